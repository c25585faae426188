package invariants_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
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
// HTTP path reads nothing of the catalog, and of the cluster only what
// says whether CDI can render the disk's PVC; it gains no refusal the chart
// did not have but a bad pool name (nameRefusals) and, with a factory
// override, a malformed value its URL is built from, its own or talos.*'s,
// at the field it came from, and a diskSize off the values schema's
// quantity pattern, which the chart refused too. Its warnings are a
// diskSize of the pattern that is no positive quantity, rendered as given;
// without a factory override, a malformed talos.*
// value, rendered as given; and, from what was observed, one for a disk
// CDI never renders (httpRenderWarning).
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
			render := httpRenderWarning(s.State, p)
			if d := sameResult(withoutWarnings(res, render), offline); d != "" {
				t.Fatalf("pool %d: the HTTP path read the catalog or the cluster: %s", i, d)
			}

			old := oldValues{SchematicID: p.Spec.Talos.SchematicID, Version: p.Spec.Talos.Version, ImageFactoryURL: p.Spec.Talos.ImageFactoryURL,
				DiskSize: p.Spec.DiskSize, StorageClass: p.Spec.StorageClass}
			want := nameRefusals(p)
			// The values the image URL is built from: a factory override's
			// own, else talos.*. With a factory override each is refused at
			// the field it came from; without one the chart rendered them as
			// given, and a warning says so (SPEC section 11). The charts'
			// defaults are valid.
			var flavorFindings []finding
			idPath, verPath, urlPath := "talos.schematicID", "talos.version", "talos.imageFactoryURL"
			factory := img != nil && img.Factory != nil
			if factory {
				f := img.Factory
				if f.SchematicID != "" {
					old.SchematicID, idPath = f.SchematicID, "osImage.factory.schematicID"
				}
				if f.Version != "" {
					old.Version, verPath = f.Version, "osImage.factory.version"
				}
				if f.ImageFactoryURL != "" {
					old.ImageFactoryURL, urlPath = f.ImageFactoryURL, "osImage.factory.imageFactoryURL"
				}
			}
			if naming.ValidateSchematicID(old.SchematicID, nil) != nil {
				flavorFindings = append(flavorFindings, findingOf(guard.InvalidSchematicID, idPath, ""))
			}
			if naming.ValidateVersion(old.Version, nil) != nil {
				flavorFindings = append(flavorFindings, findingOf(guard.InvalidVersion, verPath, ""))
			}
			if naming.ValidateImageFactoryURL(old.ImageFactoryURL, nil) != nil {
				flavorFindings = append(flavorFindings, findingOf(guard.InvalidImageFactoryURL, urlPath, ""))
			}
			if factory {
				want = append(want, flavorFindings...)
			}
			// A size off the values schema's quantity pattern fails the
			// chart's release: nothing rendered, the planner refuses.
			unquantity := oldChartRefusesSize(p.Spec.DiskSize)
			if unquantity {
				want = append(want, findingOf(guard.InvalidQuantity, "diskSize", ""))
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
			if malformed && !unquantity {
				wantWarnings = append(wantWarnings, findingOf(guard.InvalidQuantity, "diskSize", ""))
			}
			wantWarnings = append(wantWarnings, render...)
			if !factory {
				wantWarnings = append(wantWarnings, flavorFindings...)
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

// httpRenderWarning is the warning an HTTP disk gets when, from what was
// observed, CDI never renders its PVC (SPEC section 10): no class and no
// default CDI reads (DiskUnrenderable at storageClass); under 1MiB
// (DiskUnrenderable at diskSize); a class that does not exist
// (StorageClassNotFound); no StorageProfile for it, or none whose first
// claim property set carries access modes, or no CDIConfig
// (DiskUnrenderable). One warning, for the first of these; none when the
// StorageClasses were not observed, and a kind not observed proves
// nothing. A diskSize that does not parse is judged on its class only.
func httpRenderWarning(st *state.State, p plan.Pool) []finding {
	snap := state.NewSnapshot(st)
	if !snap.Observed(state.StorageClass) {
		return nil
	}
	c := cluster{st}
	size := p.Spec.DiskSize
	if size == "" {
		size = plan.DefaultDiskSize
	}
	class := p.Spec.StorageClass
	if class == "" {
		sc := c.defaultClass(true)
		if sc == nil {
			return []finding{findingOf(guard.DiskUnrenderable, "storageClass", "")}
		}
		class = sc.Name
	}
	if q, err := resource.ParseQuantity(size); err == nil && q.Sign() > 0 && q.Value() < mebibyte {
		return []finding{findingOf(guard.DiskUnrenderable, "diskSize", "")}
	}
	if c.storageClass(class) == nil {
		return []finding{findingOf(guard.StorageClassNotFound, "storageClass", "")}
	}
	if snap.Observed(state.StorageProfile) {
		sp := c.profile(class)
		if sp == nil || len(sp.Status.ClaimPropertySets) == 0 || len(sp.Status.ClaimPropertySets[0].AccessModes) == 0 {
			return []finding{findingOf(guard.DiskUnrenderable, "storageClass", "")}
		}
	}
	if snap.Observed(state.CDIConfig) && c.config() == nil {
		return []finding{findingOf(guard.DiskUnrenderable, "storageClass", "")}
	}
	return nil
}

// withoutWarnings is res without the warnings of the findings fs.
func withoutWarnings(res plan.Result, fs []finding) plan.Result {
	var kept guard.Warnings
	for _, w := range res.Warnings {
		f := findingOf(w.Reason, w.Field, w.Kind)
		if i := slices.Index(fs, f); i >= 0 {
			fs = slices.Delete(slices.Clone(fs), i, i+1)
			continue
		}
		kept = append(kept, w)
	}
	res.Warnings = kept
	return res
}

// nameRefusals are the InvalidPoolName refusals of a pool (SPEC section 11):
// a namespace that is not a DNS-1123 label; a name that is not a DNS-1123
// subdomain, else what the pre-feature chart refused (no cluster, or a name
// that is not <cluster>-<pool>).
func nameRefusals(p plan.Pool) []finding {
	var out []finding
	if len(validation.IsDNS1123Label(p.Namespace)) > 0 {
		out = append(out, findingOf(guard.InvalidPoolName, "metadata.namespace", ""))
	}
	switch {
	case len(validation.IsDNS1123Subdomain(p.Name)) > 0:
		out = append(out, findingOf(guard.InvalidPoolName, "metadata.name", ""))
	case p.Spec.Cluster == "":
		out = append(out, findingOf(guard.InvalidPoolName, "cluster", ""))
	case oldChartRefuses(p.Spec.Cluster, p.Name):
		out = append(out, findingOf(guard.InvalidPoolName, "metadata.name", ""))
	}
	return out
}
