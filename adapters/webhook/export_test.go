package webhook

import "github.com/cozystack/kubernetes-worker-image/internal/poolrelease"

// What the package's own tests build requests and releases with.
var (
	HelmReleaseGVK = helmReleaseGVK
	PoolChart      = poolrelease.Pools
)

const (
	ApplicationKindLabel  = applicationKindLabel
	ApplicationGroupLabel = applicationGroupLabel
	ApplicationNameLabel  = applicationNameLabel
	PoolReleasePrefix     = poolReleasePrefix
)
