package computeplane

// The derived contract of a ComputePlane, exported so that no
// consumer derives it again: a placement: ComputePlane application reads the
// cluster's admin kubeconfig from the Secret Kamaji writes for the cluster
// release, and the tenant never sees it.
const (
	// ClusterRelease is the ComputePlane's cluster HelmRelease, and the
	// cluster value of every pool release.
	ClusterRelease = "computeplane-cluster"
	// AdminKubeconfigSecret is where Kamaji writes the cluster's admin
	// kubeconfig.
	AdminKubeconfigSecret = ClusterRelease + "-admin-kubeconfig"
	// AdminKubeconfigKey is the Secret's key that holds the kubeconfig.
	AdminKubeconfigKey = "super-admin.svc"
)

// Pool releases.
const (
	// ReleasePrefix starts every pool release's name.
	ReleasePrefix = "kubernetes-nodes-" + ClusterRelease + "-"
	// MaxReleaseNameLength is Helm's limit on a release name.
	MaxReleaseNameLength = 53
	// MaxPoolNameLength is the longest pool key whose release name fits
	// Helm's limit: 53 - len(ReleasePrefix) = 15.
	MaxPoolNameLength = MaxReleaseNameLength - len(ReleasePrefix)
)

// The pool supplied when the tenant supplies none, and what the ingress guard
// looks for.
const (
	// DefaultPoolName is the pool a ComputePlane gets without nodeGroups.
	DefaultPoolName = "md0"
	// IngressRole marks a pool that runs the cluster's ingress controller.
	IngressRole = "ingress-nginx"
	// DefaultMaxReplicas is the pool chart's maxReplicas, which an omitted
	// maxReplicas takes.
	DefaultMaxReplicas = 10
)

// ReleaseName is the HelmRelease of a pool. For example ReleaseName("md0") is
// "kubernetes-nodes-computeplane-cluster-md0". It does not validate the pool
// name: Plan refuses one that is not a DNS-1123 label or is longer than
// MaxPoolNameLength.
func ReleaseName(pool string) string { return ReleasePrefix + pool }
