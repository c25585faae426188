package webhook

import (
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/cozystack/kubernetes-worker-image/internal/poolrelease"
)

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

// Pools, Releases and VMDisks are the webhooks Register serves at
// PoolsPath, ReleasesPath and VMDisksPath.
func (v *Validator) Pools() *admission.Webhook    { return v.pools() }
func (v *Validator) Releases() *admission.Webhook { return v.releases() }
func (v *Validator) VMDisks() *admission.Webhook  { return v.vmDisks() }
