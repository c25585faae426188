// Package computeplane turns a ComputePlane's values into the values of its
// kubernetes-nodes pool releases. A ComputePlane is a
// single-tenant cluster for untrusted code: its tenant supplies only
// nodeGroups, and everything that makes up its security posture, the worker
// OS image among it, stays the operator's.
//
// Plan takes the values as Helm holds them (DecodeValues reads them from
// YAML) and returns each pool's name, release name and values, the derived
// contract (Result.Cluster: the computeplane-cluster release and its admin
// kubeconfig Secret and key), warnings, and the refusals as one error.
//
// # Forwarding
//
// Only these node-group fields reach a pool release: minReplicas,
// maxReplicas, instanceType, diskSize, storageClass, roles,
// resources.{cpu,memory}, gpus[].name and kubelet.{systemReservedMemory,
// kubeReservedMemory, systemReservedCpu, kubeReservedCpu, evictionHardMemory,
// evictionSoftMemory}. Every other field (osImage by name, talos, version,
// images, gpus[].foo, resources.gpu, …) is dropped and reported once, as a
// DroppedField warning at its path, such as nodeGroups.md0.osImage. The pool
// chart drops unknown fields silently; saying so is better. Every pool's
// values carry cluster: computeplane-cluster, which the tenant cannot set.
//
// What is forwarded is forwarded as the pre-feature computeplane chart
// forwarded it, verbatim ("" included, and a number as the float64 Flux
// hands Helm), but for "" (and 0 or false) in storageClass, diskSize,
// resources.cpu and resources.memory, which the wrapped chart's templates
// read as unset: it is left out, and the pool chart's own default applies.
// The wrapped chart gave an empty class the application's replicated,
// never the cluster default, which it is to the pool chart, and the pool
// chart's values schema refuses an empty size. A null node group is not supplied: Helm's coalescing
// deletes it. A null inside a group survives coalescing (the chart's values
// have no group to coalesce it with), and the values schema refuses it
// where it types the key; a null elsewhere is dropped without a word.
//
// # Defaults
//
// nodeGroups absent, null, {} or holding only null groups means no groups
// supplied: the ComputePlane gets one pool md0 with minReplicas: 0 and
// roles: [ingress-nginx], the pool chart's defaults for the rest. Supplied
// groups are authoritative; md0 is not merged in.
//
// # Refusals
//
// All are reported together, each at its values path:
//   - InvalidPoolName: a group key that is not a DNS-1123 label.
//   - PoolNameTooLong: a key over 15 characters, so that
//     kubernetes-nodes-computeplane-cluster-<pool> fits Helm's 53.
//   - MissingIngressPool (at nodeGroups): supplied groups of which none has
//     role ingress-nginx and maxReplicas of 1 or more; an omitted maxReplicas
//     counts as the pool chart's 10. A replica count is any whole number, as
//     the values schemas' integer (no minimum): a negative one is forwarded.
//   - IncompleteResources: resources with only one of cpu and memory beside
//     an instanceType (an omitted one is the pool chart's u1.medium), as the
//     pool chart's template fails them; 0 and "" are not set to it.
//   - InvalidQuantity: a resources.cpu or resources.memory that is set and
//     is not a positive quantity (a string off the values schemas' quantity
//     pattern among them). A diskSize is never refused for its value, since the
//     HTTP path gains no refusal the templates did not have: one the values
//     schemas refuse but the templates print ("20 Gi", 1.5, true) is forwarded
//     with a warning that the pool release's install fails its schema
//     validation, one that is no positive quantity ("0", -5) with a warning
//     that the API server rejects the disk; 0, false and "" are unset to the
//     chart's 20Gi, and say nothing.
//   - InvalidValue: a value of a type the values schemas refuse (a list
//     where a map belongs, a number where a string belongs, a map or a list
//     where a size belongs, a fraction where a whole number belongs, a
//     null), a gpu without its name, and ephemeralStorage, null or not, which the wrapped chart
//     failed (it is diskSize now; dropped, the size meant would silently
//     be 20Gi).
//
// # Etcd
//
// Cozystack injects _namespace into the values; _namespace.etcd names the
// tenant's etcd module. When it is empty the ComputePlane provisions nothing
// while its HelmReleases report Ready, so Plan warns EtcdUnavailable. When
// _namespace is absent that cannot be known, and Plan warns StateUnverified.
package computeplane
