package computeplane

// The derived contract of a ComputePlane, exported so that no
// consumer derives it again: a placement: ComputePlane application reads the
// cluster's admin kubeconfig from the Secret Kamaji writes for the cluster
// release, and the tenant never sees it.
const (
	// clusterRelease is the ComputePlane's cluster HelmRelease, and the
	// cluster value of every pool release.
	clusterRelease = "computeplane-cluster"
	// adminKubeconfigSecret is where Kamaji writes the cluster's admin
	// kubeconfig.
	adminKubeconfigSecret = clusterRelease + "-admin-kubeconfig"
	// adminKubeconfigKey is the Secret's key that holds the kubeconfig.
	adminKubeconfigKey = "super-admin.svc"
)

// Pool releases.
const (
	// releasePrefix starts every pool release's name.
	releasePrefix = "kubernetes-nodes-" + clusterRelease + "-"
	// maxReleaseNameLength is Helm's limit on a release name.
	maxReleaseNameLength = 53
	// maxPoolNameLength is the longest pool key whose release name fits
	// Helm's limit: 53 - len(releasePrefix) = 15.
	maxPoolNameLength = maxReleaseNameLength - len(releasePrefix)
)

// The pool supplied when the tenant supplies none, and what the ingress guard
// looks for.
const (
	// defaultPoolName is the pool a ComputePlane gets without nodeGroups.
	defaultPoolName = "md0"
	// ingressRole marks a pool that runs the cluster's ingress controller.
	ingressRole = "ingress-nginx"
	// defaultMaxReplicas is the pool chart's maxReplicas, which an omitted
	// maxReplicas takes.
	defaultMaxReplicas = 10
)

// releaseName is the HelmRelease of a pool. For example releaseName("md0") is
// "kubernetes-nodes-computeplane-cluster-md0". It does not validate the pool
// name: Plan refuses one that is not a DNS-1123 label or is longer than
// maxPoolNameLength.
func releaseName(pool string) string { return releasePrefix + pool }
