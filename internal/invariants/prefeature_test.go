package invariants_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"pgregory.net/rapid"

	"github.com/cozystack/kubernetes-worker-image/adapters/helm"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/plantest"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// TestOldChartIsTheSpecText anchors the reference: with the chart's
// defaults it renders SPEC section 3's text byte for byte, and an empty
// class leaves the storageClassName line out.
func TestOldChartIsTheSpecText(t *testing.T) {
	const spec = `      - metadata:
          name: disk-system
          annotations:
            cdi.kubevirt.io/storage.usePopulator: "false"
        spec:
          source:
            http:
              url: https://factory.talos.dev/image/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515/v1.13.6/openstack-amd64.raw.xz
          storage:
            resources:
              requests:
                storage: "20Gi"
            storageClassName: "replicated"
`
	defaults := oldValues{SchematicID: plan.DefaultSchematicID, Version: plan.DefaultVersion, ImageFactoryURL: plan.DefaultImageFactoryURL,
		DiskSize: "20Gi", StorageClass: "replicated"}
	assert.Equal(t, spec, renderOldChart(defaults))
	defaults.StorageClass, defaults.DiskSize, defaults.ImageFactoryURL = "", "", "https://factory.talos.dev/"
	assert.Equal(t, spec[:len(spec)-len(`            storageClassName: "replicated"`+"\n")], renderOldChart(defaults),
		"no class: no line; no size: the chart's 20Gi; one trailing / trimmed")
}

// TestPreFeatureIdentity (invariant 3): for every pool without
// osImage.builtin, whatever the catalog and the cluster, the disk-system
// entry is byte for byte the pre-feature chart's for the same values (the
// KubevirtMachineTemplate is named by a hash of that text: any drift rolls
// every live worker), osImage.factory's fields standing in for talos.*. The
// HTTP path reads nothing of the cluster, and gains no refusal the chart did
// not have: a bad pool name, and a factory override's own malformed
// fields. Its only warning is a malformed diskSize, rendered as given.
func TestPreFeatureIdentity(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		opts := plantest.Options{Inconsistent: rapid.Bool().Draw(t, "inconsistent")}
		s := plantest.Scenarios(opts).Draw(t, "scenario")
		cat, snap := catalog.Compile(s.Catalog), state.NewSnapshot(s.State)
		for i, p := range s.Pools {
			img := p.Spec.OSImage
			if img != nil && img.Builtin != nil {
				continue
			}
			res, err := plan.Plan(p, cat, snap)
			offline, _ := plan.Plan(p, nil, nil)
			if d := sameResult(res, offline); d != "" {
				t.Fatalf("pool %d: the HTTP path read the catalog or the cluster: %s", i, d)
			}

			old := oldValues{SchematicID: p.Spec.Talos.SchematicID, Version: p.Spec.Talos.Version, ImageFactoryURL: p.Spec.Talos.ImageFactoryURL,
				DiskSize: p.Spec.DiskSize, StorageClass: p.Spec.StorageClass}
			var want []finding
			if oldChartRefuses(p.Spec.Cluster, p.Name) {
				fld := "metadata.name"
				if p.Spec.Cluster == "" {
					fld = "cluster"
				}
				want = append(want, findingOf(guard.InvalidPoolName, fld, ""))
			}
			if img != nil && img.Factory != nil {
				f := img.Factory
				if f.SchematicID != "" {
					old.SchematicID = f.SchematicID
					if naming.ValidateSchematicID(f.SchematicID, nil) != nil {
						want = append(want, findingOf(guard.InvalidSchematicID, "osImage.factory.schematicID", ""))
					}
				}
				if f.Version != "" {
					old.Version = f.Version
					if naming.ValidateVersion(f.Version, nil) != nil {
						want = append(want, findingOf(guard.InvalidVersion, "osImage.factory.version", ""))
					}
				}
				if f.ImageFactoryURL != "" {
					old.ImageFactoryURL = f.ImageFactoryURL
					if naming.ValidateImageFactoryURL(f.ImageFactoryURL, nil) != nil {
						want = append(want, findingOf(guard.InvalidImageFactoryURL, "osImage.factory.imageFactoryURL", ""))
					}
				}
			}
			if got := refusals(err); !assert.ElementsMatch(t, want, got) {
				t.Fatalf("pool %d: refusals %v, the pre-feature chart had %v", i, got, want)
			}

			size := p.Spec.DiskSize
			if size == "" {
				size = plan.DefaultDiskSize
			}
			q, qerr := resource.ParseQuantity(size)
			malformed := qerr != nil || q.Sign() <= 0
			var wantWarnings []finding
			if malformed {
				wantWarnings = append(wantWarnings, findingOf(guard.InvalidQuantity, "diskSize", ""))
			}
			if got := warnings(res.Warnings); !assert.ElementsMatch(t, wantWarnings, got) {
				t.Fatalf("pool %d: warnings %v, want %v", i, got, wantWarnings)
			}
			if err != nil {
				continue
			}

			text, terr := helm.DiskText(res, helm.ChartIndent)
			if wantText := renderOldChart(old); terr != nil || text != wantText {
				t.Fatalf("pool %d: the disk-system entry drifted from the pre-feature chart (%v):\n%s\nwant\n%s", i, terr, text, wantText)
			}
			got := res.Disk.Spec.Storage.Resources.Requests[corev1.ResourceStorage]
			if malformed != got.IsZero() || !malformed && got.Cmp(q) != 0 {
				t.Fatalf("pool %d: disk requests %s for diskSize %q", i, got.String(), p.Spec.DiskSize)
			}
			// The chart trims one trailing "/" of the repository (SPEC section 13).
			if want := strings.TrimSuffix(p.Spec.Talos.InstallerRepository, "/") + "/" + old.SchematicID + ":" + old.Version; res.InstallerImage != want {
				t.Fatalf("pool %d: installer %q, want %q", i, res.InstallerImage, want)
			}
		}
	})
}
