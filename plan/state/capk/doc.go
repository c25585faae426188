// Package capk holds the one type of the Cluster API KubeVirt provider
// (CAPK) the library reads, KubevirtMachineTemplate
// (infrastructure.cluster.x-k8s.io/v1alpha1), with only the fields it reads,
// and the rule that says which pool a template, or a VirtualMachine made
// from one, belongs to. CAPK's own module would bring Cluster API, kind and
// kubectl into every build of the library, for one struct.
package capk
