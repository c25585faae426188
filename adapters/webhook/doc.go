// Package webhook refuses at the API door: an admission webhook, on
// controller-runtime's webhook server, that plans each worker pool as it is
// created or changed and denies what the planner refuses, so `kubectl
// apply` of a pool that would clone on the wrong class fails there, with
// the field and the way out, instead of saying "created" and failing when
// the chart renders.
//
// # What it validates
//
//   - KubernetesNodes (apps.cozystack.io/v1alpha1), at PoolsPath: the
//     pool's spec is the kubernetes-nodes chart's values, planned against
//     the catalog and the cluster through the manager's cache, reading
//     exactly plan.Needs.
//   - HelmReleases (helm.toolkit.fluxcd.io/v2), at ReleasesPath. One of
//     the kubernetes-nodes chart (its spec.chartRef is Cozystack's
//     ExternalArtifact of that chart, or it carries cozystack-api's
//     application labels for a KubernetesNodes) is
//     planned as the pool cozystack-api made it for: spec.values, in the
//     release's namespace, named by the release name without
//     kubernetes-nodes-. One of the kubernetes-worker-image chart (the
//     catalog release, or a chart of that name) is rendered as the catalog
//     against the goldens (catalog.RenderNeeds), so CatalogEntryImmutable,
//     DuplicateCatalogEntry and every check catalog.Render makes refuse an
//     edit at the door. Any other HelmRelease is admitted untouched.
//
// # Answers
//
//   - Refused: denied with a 422 Invalid status whose causes are the
//     refusals: the cause's type is the reason, its field the object's
//     field (spec.storageClass, spec.values.images[0].storage), its message
//     the refusal's detail. The status's message holds every refusal.
//   - Planned: admitted; the plan's warnings (GoldenPending, …) become
//     admission warnings, which kubectl prints as "Warning: …".
//   - An update that leaves the disk-system as it was (or, for the catalog,
//     the goldens its refusals are about) is never refused for a state it
//     did not change: a running pool stays editable while its golden
//     imports, or while the cluster refuses its disk for its own reasons.
//     It is admitted, and each refusal comes back as a warning.
//   - A request that does not decode, or an object that is not what the
//     path validates: 400 BadRequest. A read of the cluster or the catalog
//     that fails: 500 InternalError, to retry; nothing is admitted on a
//     guess. Values the chart cannot read are the planner's InvalidValue
//     refusals.
//
// # Running it
//
// Setup registers the webhooks on a manager, with a liveness check and
// readiness checks (the server answers, the informers synced); CacheOptions
// caches the catalog release alone; the metrics (admissions by outcome,
// refusals and warnings by reason, latency) are on controller-runtime's
// registry, so on the manager's metrics endpoint. The worker-image Helm
// chart (package chart) deploys it: the ValidatingWebhookConfiguration,
// Service, Deployment and least-privilege RBAC. The command `worker-image
// webhook` serves it and `worker-image webhook manifests` prints the chart's
// webhook for kubectl apply.
//
// # KubernetesNodes and the aggregated API server
//
// Cozystack serves KubernetesNodes from cozystack-api, an aggregated API
// server, not a CRD: kube-apiserver proxies those requests and runs no
// admission on them. cozystack-api runs its own chain (k8s.io/apiserver's
// RecommendedOptions, whose admission plugins include ValidatingAdmissionWebhook),
// reads ValidatingWebhookConfigurations through its own informers (its
// ClusterRole grants that), and calls it from its REST storage's Create and
// Update (createValidation, updateValidation). So the KubernetesNodes
// webhook is reached, through cozystack-api; the HelmRelease webhooks then
// check the release cozystack-api writes, and every release written
// another way.
package webhook
