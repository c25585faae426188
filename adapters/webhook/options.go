package webhook

import (
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/catalogrelease"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/internal/poolrelease"
	"github.com/cozystack/kubernetes-worker-image/plan"
)

// The paths the webhook server serves its two webhooks on.
const (
	// PoolsPath validates KubernetesNodes.
	PoolsPath = "/validate-kubernetesnodes"
	// ReleasesPath validates HelmReleases of the kubernetes-nodes chart
	// (pools) and of the kubernetes-worker-image chart (the catalog).
	ReleasesPath = "/validate-helmreleases"
)

// DefaultPort is the port the webhook serves on, the chart's webhook.port.
const DefaultPort = 9443

// DisableLabel opts a namespace out of the webhook: label the namespace
// with it set to "disabled" (the chart's webhook configuration selects
// namespaces without it). It is the way around the webhook when it is down
// and failurePolicy is Fail, and an administrator's act: a namespace's
// labels are not its tenant's to set. A KubernetesNodes or a HelmRelease
// carrying it is validated as any other: no object opts itself out.
const DisableLabel = "kubernetes-worker-image.cozystack.io/admission"

// helmReleaseGVK is Flux's HelmRelease, read as unstructured.
var helmReleaseGVK = schema.GroupVersionKind{Group: "helm.toolkit.fluxcd.io", Version: "v2", Kind: "HelmRelease"}

// poolGVK is the kind of a worker pool.
var poolGVK = schema.FromAPIVersionAndKind(plan.PoolAPIVersion, plan.PoolKind)

// How cozystack-api turns a KubernetesNodes into its HelmRelease
// (pkg/registry/apps/application/rest.go, convertApplicationToHelmRelease
// and Create, in cozystack/cozystack): the release is named
// <prefix><name> in the pool's namespace, with the ApplicationDefinition's
// chartRef, the pool's spec as spec.values, and the labels below, by which
// cozystack-api itself recognises its releases (hasRequiredApplicationLabels).
const (
	// poolReleasePrefix is the ApplicationDefinition kubernetes-nodes'
	// release prefix; the chart requires it of its release name too
	// (kubernetes-nodes.groupName in templates/_helpers.tpl).
	poolReleasePrefix = poolrelease.Prefix

	applicationKindLabel  = poolrelease.KindLabel
	applicationGroupLabel = poolrelease.GroupLabel
	applicationNameLabel  = "apps.cozystack.io/application.name"
)

// catalogChart is the kubernetes-worker-image chart, recognised by its
// name; its release is also recognised as the catalog by
// Options.CatalogRelease, whatever its source.
var catalogChart = poolrelease.Chart{Name: "kubernetes-worker-image"}

// DefaultCatalogRelease is where Cozystack releases the catalog, the
// HelmRelease cozy-system/kubernetes-worker-image: cozystack-operator
// releases a package's component under its name in its install namespace.
// Set it as Options.CatalogRelease to read the catalog there.
func DefaultCatalogRelease() types.NamespacedName { return catalogrelease.Default }

// readTimeout bounds the reads of one admission (a cache whose informer
// has not synced makes a read wait), below the webhook's timeoutSeconds,
// 5, so that a slow read is a denial that says so rather than a call the
// API server gives up on.
const readTimeout = 4 * time.Second

// Options say what the webhook plans pools against. The HelmReleases it
// validates are the charts' as Cozystack releases them: for pools, the
// kubernetes-nodes chart by the chartRef of Cozystack's ExternalArtifact
// (or a chart named kubernetes-nodes, or the labels cozystack-api gives a
// pool's release); for the catalog, a chart named kubernetes-worker-image
// or the release CatalogRelease names.
type Options struct {
	// Catalog, when set, is the catalog pools are planned against: fixed
	// values the webhook was started with.
	Catalog *catalog.Catalog
	// CatalogRelease is the kubernetes-worker-image HelmRelease whose
	// values are the catalog pools are planned against (spec.values over
	// the ConfigMaps and Secrets of spec.valuesFrom, as Flux merges them),
	// read on every admission: the release through the Validator's reader,
	// what its valuesFrom names through Setup's manager's API reader (a
	// cache would watch every ConfigMap and Secret); it is ignored when
	// Catalog is set. A release that does not exist is a catalog that is not deployed:
	// disabled, so a pool that clones is refused GoldenNotInCatalog. With
	// neither Catalog nor a CatalogRelease name, the catalog is read back from
	// the goldens in cozy-public (catalog.FromCluster).
	CatalogRelease types.NamespacedName
}
