package plan_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

const defaultURL = "https://factory.talos.dev/image/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515/v1.13.6/openstack-amd64.raw.xz"

// TestHTTPPathCarriesPreFeatureValues: an absent osImage and osImage.factory:
// {} plan exactly what the pre-feature chart rendered.
func TestHTTPPathCarriesPreFeatureValues(t *testing.T) {
	variants := map[string]func(*plan.Pool){
		"osImage absent":     func(*plan.Pool) {},
		"osImage.factory {}": func(p *plan.Pool) { p.Spec.OSImage = &plan.OSImage{Factory: &plan.Factory{}} },
		"osImage {}":         func(p *plan.Pool) { p.Spec.OSImage = &plan.OSImage{} },
		"factory empty fields": func(p *plan.Pool) {
			p.Spec.OSImage = &plan.OSImage{Factory: &plan.Factory{Flavor: catalog.Flavor{SchematicID: "", Version: ""}}}
		},
	}
	for name, mutate := range variants {
		t.Run(name, func(t *testing.T) {
			p := httpPool()
			mutate(&p)
			// The HTTP path reads nothing of the cluster: an offline plan and
			// a full one are the same.
			for _, snap := range []*state.Snapshot{nil, state.NewSnapshot(fullState())} {
				res, err := plan.Plan(p, nil, snap)
				require.NoError(t, err)
				assert.Empty(t, res.Warnings)
				assert.Equal(t, plan.HTTP, res.Source)
				assert.Empty(t, res.Golden)
				assert.Equal(t, "disk-system", res.Disk.Name)
				assert.Equal(t, map[string]string{"cdi.kubevirt.io/storage.usePopulator": "false"}, res.Disk.Annotations)
				assert.Equal(t, &cdiv1.DataVolumeSource{HTTP: &cdiv1.DataVolumeSourceHTTP{URL: defaultURL}}, res.Disk.Spec.Source)
				q := res.Disk.Spec.Storage.Resources.Requests[corev1.ResourceStorage]
				assert.Equal(t, "20Gi", q.String())
				assert.Equal(t, "20Gi", res.DiskSize)
				assert.Equal(t, "replicated", *res.Disk.Spec.Storage.StorageClassName)
				assert.Equal(t, storage.Resolution{Name: "replicated", From: storage.Explicit}, res.StorageClass)
				assert.Equal(t, "factory.talos.dev/installer/"+chartdefaults.SchematicID+":"+chartdefaults.Version, res.InstallerImage)
			}
		})
	}
}

func TestHTTPPath(t *testing.T) {
	cases := map[string]planCase{
		"empty class left to the cluster": {reason: "storageClass \"\" is left out", pool: setClass("")},
		"malformed diskSize warns": {
			reason:   "the HTTP path renders a diskSize of the quantity pattern that is no positive quantity as given, as the chart did, and warns",
			pool:     func(p *plan.Pool) { p.Spec.DiskSize = "-20Gi" },
			warnings: []finding{f(guard.InvalidQuantity, "diskSize")},
		},
		"unquantity diskSize refused": {
			reason:   "a diskSize off the values schema's quantity pattern fails the release on the schema before the template renders it: refused",
			pool:     func(p *plan.Pool) { p.Spec.DiskSize = "20 Gi" },
			refusals: []finding{f(guard.InvalidValue, "diskSize")},
		},
		"malformed talos renders as before": {
			reason: "talos.* of a pool without osImage renders as the pre-feature chart rendered it, with a warning per value that fails the patterns, never a refusal",
			pool: func(p *plan.Pool) {
				p.Spec.Talos.SchematicID = "NOT-VALID"
				p.Spec.Talos.Version = "1.2"
				p.Spec.Talos.ImageFactoryURL = "factory"
			},
			warnings: []finding{f(guard.InvalidImageFactoryURL, "talos.imageFactoryURL"), f(guard.InvalidSchematicID, "talos.schematicID"), f(guard.InvalidVersion, "talos.version")},
		},
		"factory override schematicID": {
			reason: "a factory override's own fields are validated",
			pool: func(p *plan.Pool) {
				p.Spec.OSImage = &plan.OSImage{Factory: &plan.Factory{Flavor: catalog.Flavor{SchematicID: "X"}}}
			},
			refusals: []finding{f(guard.InvalidSchematicID, "osImage.factory.schematicID")},
		},
		"factory override version": {
			reason: "a version without v is refused",
			pool: func(p *plan.Pool) {
				p.Spec.OSImage = &plan.OSImage{Factory: &plan.Factory{Flavor: catalog.Flavor{Version: "1.13.6"}}}
			},
			refusals: []finding{f(guard.InvalidVersion, "osImage.factory.version")},
		},
		"factory override URL": {
			reason: "a URL with a query is refused",
			pool: func(p *plan.Pool) {
				p.Spec.OSImage = &plan.OSImage{Factory: &plan.Factory{ImageFactoryURL: "https://f.example/?a=b"}}
			},
			refusals: []finding{f(guard.InvalidImageFactoryURL, "osImage.factory.imageFactoryURL")},
		},
		"factory override valid": {
			reason: "valid overrides plan",
			pool: func(p *plan.Pool) {
				p.Spec.OSImage = &plan.OSImage{Factory: &plan.Factory{Flavor: catalog.Flavor{SchematicID: "abc", Version: "v1.12.0"}, ImageFactoryURL: "https://f.example/"}}
			},
		},
		// on the HTTP path a disk CDI never renders is a
		// warning, never a refusal, and only from what was observed.
		"StorageClassNotFound warns": {
			reason:   "a class the cluster lacks: CDI renders no PVC (controller/datavolume/util.go renderPvcSpecVolumeModeAndAccessModesAndStorageClass), and the chart rendered it too",
			pool:     setClass("gone"),
			warnings: []finding{f(guard.StorageClassNotFound, "storageClass")},
		},
		"DiskUnrenderable warns: no CDIConfig": {
			reason:   "without CDIConfig config CDI renders no PVC (controller/datavolume/util.go pvcFromStorage)",
			state:    func(s *state.State) { s.CDIConfigs = nil },
			warnings: []finding{f(guard.DiskUnrenderable, "storageClass")},
		},
		"DiskUnrenderable warns: no StorageProfile": {
			reason:   "no StorageProfile for the class (controller/datavolume/util.go getDefaultVolumeAndAccessMode)",
			state:    func(s *state.State) { s.StorageProfiles = s.StorageProfiles[1:] },
			warnings: []finding{f(guard.DiskUnrenderable, "storageClass")},
		},
		"DiskUnrenderable warns: empty class, no default": {
			reason:   "an empty class and no default CDI reads (controller/common/util.go getFallbackStorageClass)",
			pool:     setClass(""),
			state:    func(s *state.State) { s.StorageClasses[0].Annotations = nil },
			warnings: []finding{f(guard.DiskUnrenderable, "storageClass")},
		},
		"DiskUnrenderable warns: under 1MiB": {
			reason:   "CDI's webhook rejects a DataVolume under 1MiB (apiserver/webhooks/datavolume-validate.go validateStorageSize)",
			pool:     func(p *plan.Pool) { p.Spec.DiskSize = "1000Ki" },
			warnings: []finding{f(guard.DiskUnrenderable, "diskSize")},
		},
		"unobserved kinds warn nothing": {
			reason: "neighbour: the HTTP path does not say StateUnverified; it only warns of what it saw",
			state: func(s *state.State) {
				s.StorageProfiles, s.CDIConfigs = nil, nil
				s.Observed &^= state.StorageProfile | state.CDIConfig
			},
		},
		"pool name still checked": {
			reason:   "the chart refused a bad name before the feature too",
			pool:     func(p *plan.Pool) { p.Name = "md0" },
			refusals: []finding{f(guard.InvalidPoolName, "metadata.name")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) { runPlan(t, tc, httpPool) })
	}
}

func TestHTTPPathDetails(t *testing.T) {
	p := httpPool()
	p.Spec.StorageClass = ""
	p.Spec.DiskSize = "-20Gi"
	p.Spec.OSImage = &plan.OSImage{Factory: &plan.Factory{Flavor: catalog.Flavor{SchematicID: "abc", Version: "v1.12.0"}, ImageFactoryURL: "https://f.example/"}}
	res, err := plan.Plan(p, nil, nil)
	require.NoError(t, err)
	assert.Nil(t, res.Disk.Spec.Storage.StorageClassName)
	assert.Equal(t, storage.Resolution{From: storage.Cluster}, res.StorageClass)
	assert.Equal(t, "-20Gi", res.DiskSize, "rendered as given")
	assert.Empty(t, res.Disk.Spec.Storage.Resources.Requests)
	assert.Equal(t, "https://f.example/image/abc/v1.12.0/openstack-amd64.raw.xz", res.Disk.Spec.Source.HTTP.URL, "one trailing / trimmed")
	assert.Equal(t, "factory.talos.dev/installer/abc:v1.12.0", res.InstallerImage)
}

// TestInstallerRepositoryTrailingSlash: the installer image is the
// repository with one trailing "/" trimmed, then /<schematicID>:<version>,
// as the chart renders it, on both paths.
func TestInstallerRepositoryTrailingSlash(t *testing.T) {
	tail := "/" + chartdefaults.SchematicID + ":" + chartdefaults.Version
	cases := map[string]struct {
		repository string
		want       string
	}{
		"no slash":    {"registry.example/talos/installer", "registry.example/talos/installer" + tail},
		"one slash":   {"registry.example/talos/installer/", "registry.example/talos/installer" + tail},
		"two slashes": {"registry.example/installer//", "registry.example/installer/" + tail},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			for path, pool := range map[string]plan.Pool{"http": httpPool(), "clone": builtinPool()} {
				pool.Spec.Talos.InstallerRepository = tc.repository
				res, err := plan.Plan(pool, enabledCatalog(), state.NewSnapshot(fullState()))
				require.NoError(t, err, path)
				assert.Equal(t, tc.want, res.InstallerImage, path)
			}
		})
	}
}

// TestDiskSizeTheSchemaRefuses: the kubernetes-nodes chart's
// values.schema.json takes a diskSize of "anyOf integer or string", and
// holds a string to the Kubernetes quantity pattern: a fraction and a
// boolean are neither, and "" or "20 Gi" does not match the pattern. Helm
// validates the schema on install, upgrade and template, so the release
// fails: the planner refuses each, on both paths, once, InvalidValue at
// diskSize, the message naming the schema's rule and the way out, and no
// InvalidQuantity beside it. Just clear of the rule, 0 and null are what
// Helm's default reads as unset, 20Gi, and a map is refused as before.
func TestDiskSizeTheSchemaRefuses(t *testing.T) {
	cases := map[string]struct {
		diskSize any
		rule     string
	}{
		"empty string": {"", "quantity pattern"},
		"fraction":     {0.5, "whole number of bytes or a quantity string"},
		"false":        {false, "whole number of bytes or a quantity string"},
		"true":         {true, "whole number of bytes or a quantity string"},
		"off pattern":  {"20 Gi", "quantity pattern"},
		"a suffix off": {"20GiB", "quantity pattern"},
		"a map":        {map[string]any{"size": "20Gi"}, "whole number of bytes or a quantity string"},
	}
	for name, tc := range cases {
		for _, osImage := range []any{nil, map[string]any{"builtin": map[string]any{}}} {
			t.Run(fmt.Sprintf("%s/osImage %v", name, osImage), func(t *testing.T) {
				values := map[string]any{"cluster": "demo", "diskSize": tc.diskSize, "osImage": osImage}
				res, err := plan.Plan(plan.DecodePool(tenantNS, "demo-md0", values), enabledCatalog(), state.NewSnapshot(fullState()))
				require.Equal(t, []finding{f(guard.InvalidValue, "diskSize")}, refusalsOf(err))
				assert.Empty(t, warningsOf(res.Warnings))
				for _, says := range []string{"values schema", tc.rule, "20Gi"} {
					assert.Contains(t, res.Refusals[0].Detail, says)
				}
			})
		}
	}
	for _, unset := range []any{0.0, nil} {
		res, err := plan.Plan(plan.DecodePool(tenantNS, "demo-md0", map[string]any{"cluster": "demo", "diskSize": unset}), nil, nil)
		require.NoError(t, err, "diskSize %v", unset)
		assert.Equal(t, "20Gi", res.DiskSize, "diskSize %v is Helm's default", unset)
		assert.Empty(t, res.Warnings)
	}
	pool := httpPool()
	pool.Spec.DiskSize = "20 Gi"
	_, err := plan.Plan(pool, nil, nil)
	assert.Equal(t, []finding{f(guard.InvalidValue, "diskSize")}, refusalsOf(err), "a spec built in Go is held to the same pattern")
}
