package webhook

// What the package's own tests build requests and releases with.
var (
	HelmReleaseGVK = helmReleaseGVK
	PoolChart      = poolChart
)

const (
	ApplicationKindLabel  = applicationKindLabel
	ApplicationGroupLabel = applicationGroupLabel
	ApplicationNameLabel  = applicationNameLabel
	PoolReleasePrefix     = poolReleasePrefix
)
