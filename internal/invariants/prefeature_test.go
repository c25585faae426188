package invariants_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation"
	"pgregory.net/rapid"
	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/adapters/helm"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/plantest"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// TestOldChartIsTheSpecText anchors the reference: with the chart's
// defaults it renders the pre-feature chart's text byte for byte, and an empty
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
	defaults := oldValues{SchematicID: chartdefaults.SchematicID, Version: chartdefaults.Version, ImageFactoryURL: chartdefaults.ImageFactoryURL,
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
// at the field it came from, and a diskSize the chart's values schema
// refuses (off its quantity pattern; past 64 characters, unparsed), which
// fails the release before the template renders. Its warnings are a
// diskSize that is no positive quantity, rendered as given; without a
// factory override, a malformed talos.*
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
			// given, and a warning says so. The charts'
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
			if schemaRefusesSize(p.Spec.DiskSize) {
				want = append(want, findingOf(guard.InvalidValue, "diskSize", ""))
			}
			if got := refusals(err); !assert.ElementsMatch(t, want, got) {
				t.Fatalf("pool %d: refusals %v, the pre-feature chart had %v", i, got, want)
			}

			size := p.Spec.DiskSize
			if size == "" {
				size = chartdefaults.DiskSize
			}
			q, qerr := resource.ParseQuantity(size)
			malformed := qerr != nil || q.Sign() <= 0
			var wantWarnings []finding
			if malformed && !schemaRefusesSize(p.Spec.DiskSize) {
				wantWarnings = append(wantWarnings, findingOf(guard.InvalidQuantity, "diskSize", ""))
			}
			if !schemaRefusesSize(p.Spec.DiskSize) {
				// A size refused leaves no disk to judge.
				wantWarnings = append(wantWarnings, render...)
			}
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
			// The chart trims one trailing "/" of the repository.
			if want := strings.TrimSuffix(p.Spec.Talos.InstallerRepository, "/") + "/" + old.SchematicID + ":" + old.Version; res.InstallerImage != want {
				t.Fatalf("pool %d: installer %q, want %q", i, res.InstallerImage, want)
			}
		}
	})
}

// httpRenderWarning is the warning an HTTP disk gets when, from what was
// observed, CDI never renders its PVC: no class and no
// default CDI reads (DiskUnrenderable at storageClass); under 1MiB
// (DiskUnrenderable at diskSize); a class that does not exist
// (StorageClassNotFound); no StorageProfile for it, or none whose first
// claim property set carries access modes, or no CDIConfig
// (DiskUnrenderable). One warning, for the first of these; none when the
// StorageClasses were not observed, and a kind not observed proves
// nothing. A diskSize that does not parse is judged on its class only.
func httpRenderWarning(st *state.State, p plan.Pool) []finding {
	snap := state.NewSnapshot(st)
	if !stateindex.Of(snap).Observed(state.StorageClass) {
		return nil
	}
	c := cluster{st}
	size := p.Spec.DiskSize
	if size == "" {
		size = chartdefaults.DiskSize
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
	if stateindex.Of(snap).Observed(state.StorageProfile) {
		sp := c.profile(class)
		if sp == nil || len(sp.Status.ClaimPropertySets) == 0 || len(sp.Status.ClaimPropertySets[0].AccessModes) == 0 {
			return []finding{findingOf(guard.DiskUnrenderable, "storageClass", "")}
		}
	}
	if stateindex.Of(snap).Observed(state.CDIConfig) && c.config() == nil {
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

// nameRefusals are the InvalidPoolName refusals of a pool:
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

// TestFluxValuesRenderAsTheChart (invariant 3, from the values Flux hands
// Helm): for any KubernetesNodes spec without
// osImage, written as JSON in any form (fluxPoolValues), the planner does
// what the pre-feature chart does with it (oldchart_test.go: Helm's
// coalescing, the values schema, the template). Where the chart fails the
// release, the planner refuses, each refusal typed and at a field the
// chart faults, every faulted field refused; where the chart renders, the
// planner plans, and its disk-system entry and installer image are the
// chart's, byte for byte, with InvalidQuantity at diskSize exactly when
// the size rendered is no positive quantity, and no other warning but
// malformed talos.* values and unknown keys. A diskSize the schema refuses
// (a string off the quantity pattern, "", a fraction, a boolean) fails the
// release, and the planner refuses it. It holds on every path the
// values come by: decoded as Flux decodes them (sigs.k8s.io/yaml, numbers
// float64), inside a KubernetesNodes object as the API machinery decodes
// it (whole numbers int64), and into a PoolSpec by encoding/json.
func TestFluxValuesRenderAsTheChart(t *testing.T) {
	const namespace, name = "tenant-demo", "demo-md0"
	rapid.Check(t, func(t *rapid.T) {
		doc := fluxPoolValues().Draw(t, "values")
		var values map[string]any
		if err := yaml.Unmarshal([]byte(doc), &values); err != nil {
			t.Fatalf("Flux cannot decode %s: %v", doc, err)
		}
		coalesced := helmCoalesce(values)
		faulted := chartRefuses(coalesced, name)
		var wantText, wantInstaller, wantSize string
		if len(faulted) == 0 {
			var err error
			if wantText, err = chartDiskText(coalesced); err != nil {
				t.Fatalf("the chart's template fails on values its schema takes: %v", err)
			}
			wantInstaller = chartInstaller(coalesced)
			wantSize = sprigText(helmFuncs["default"].(func(any, ...any) any)("20Gi", coalesced["diskSize"]))
		}

		for path, pool := range poolsFromDocument(t, namespace, name, doc, values) {
			res, err := plan.Plan(pool, nil, nil)
			byField := map[string][]guard.Reason{}
			for _, r := range refusals(err) {
				byField[r.Field] = append(byField[r.Field], r.Reason)
			}
			for fld, reasons := range byField {
				allowed, ok := faulted[fld]
				if !ok {
					t.Fatalf("%s: %s refused %v at %s, where the chart faults nothing; the chart faults %v", path, doc, reasons, fld, faulted)
				}
				for _, r := range reasons {
					if !slices.Contains(allowed, r) {
						t.Fatalf("%s: %s refused %s at %s, the chart faults it as %v", path, doc, r, fld, allowed[0])
					}
				}
			}
			for fld, allowed := range faulted {
				if !slices.Contains(byField[fld], allowed[0]) {
					t.Fatalf("%s: %s: the chart fails the release at %s (%s), the planner refuses %v", path, doc, fld, allowed[0], res.Refusals)
				}
			}
			if (err != nil) != (len(faulted) > 0) || !sameError(err, res.Refusals) {
				t.Fatalf("%s: %s: error %v with refusals %v", path, doc, err, res.Refusals)
			}
			if len(faulted) > 0 {
				continue
			}

			text, terr := helm.DiskText(res, helm.ChartIndent)
			if terr != nil || text != wantText {
				t.Fatalf("%s: %s: the disk-system entry is not the chart's (%v):\n%s\nthe chart renders\n%s", path, doc, terr, text, wantText)
			}
			if res.InstallerImage != wantInstaller {
				t.Fatalf("%s: %s: installer %q, the chart's Job applies %q", path, doc, res.InstallerImage, wantInstaller)
			}
			q, qerr := resource.ParseQuantity(wantSize)
			notPositive := qerr != nil || q.Sign() <= 0
			sizeWarned := false
			for _, w := range res.Warnings {
				switch {
				case w.Reason == guard.InvalidQuantity && w.Field == "diskSize":
					sizeWarned = true
				case w.Reason == guard.UnknownField,
					strings.HasPrefix(w.Field, "talos.") && slices.Contains([]guard.Reason{guard.InvalidSchematicID, guard.InvalidVersion, guard.InvalidImageFactoryURL}, w.Reason):
				default:
					t.Fatalf("%s: %s: warning %s at %s", path, doc, w.Reason, w.Field)
				}
			}
			if sizeWarned != notPositive {
				t.Fatalf("%s: %s: diskSize renders %q; InvalidQuantity warned %v", path, doc, wantSize, sizeWarned)
			}
		}
	})
}

// schemaRefusesSize is whether the chart's values schema refuses a
// diskSize string a PoolSpec holds: "" there is no value written (the
// chart's 20Gi), and a string off the quantity pattern fails the schema;
// one past 64 characters the planner refuses unparsed.
func schemaRefusesSize(size string) bool {
	return size != "" && (!schemaQuantity.MatchString(size) || len(size) > 64)
}

// poolsFromDocument reads a pool's spec, the JSON text doc, every way a
// caller may: values decoded as Flux decodes them (values), a
// KubernetesNodes object holding doc as the API machinery decodes one, and
// a PoolSpec decoded from doc by encoding/json.
func poolsFromDocument(t *rapid.T, namespace, name, doc string, values map[string]any) map[string]plan.Pool {
	var obj map[string]any
	kn := `{"apiVersion":"` + plan.PoolAPIVersion + `","kind":"` + plan.PoolKind + `","metadata":{"namespace":"` + namespace + `","name":"` + name + `"},"spec":` + doc + `}`
	if err := utiljson.Unmarshal([]byte(kn), &obj); err != nil {
		t.Fatalf("the API machinery cannot decode %s: %v", kn, err)
	}
	fromObject, err := plan.PoolFromObject(obj)
	if err != nil {
		t.Fatalf("a KubernetesNodes is not read: %v", err)
	}
	var spec plan.PoolSpec
	_ = json.Unmarshal([]byte(doc), &spec) // its error is the refusals Plan reports
	return map[string]plan.Pool{
		"Flux's values":     plan.DecodePool(namespace, name, values),
		"a KubernetesNodes": fromObject,
		"encoding/json":     {Namespace: namespace, Name: name, Spec: spec},
	}
}

// TestFluxValuesCoverage: the draws of fluxPoolValues reach what the chart
// does with each value on the disk's and the installer's paths, so that
// TestFluxValuesRenderAsTheChart checks each: every refusal it makes, and
// among the renders a number in exponent form, a 0 read as unset, a null
// size, an empty and a deleted class, trailing slashes trimmed from the
// factory and the installer repository; and among the refusals the sizes
// the schema refuses ("", a fraction, a boolean, off the pattern). With -v
// it logs how often.
func TestFluxValuesCoverage(t *testing.T) {
	seen := map[string]int{}
	g := fluxPoolValues()
	for i := range 3000 {
		doc := g.Example(i)
		var values map[string]any
		if err := yaml.Unmarshal([]byte(doc), &values); err != nil {
			t.Fatalf("Flux cannot decode %s: %v", doc, err)
		}
		coalesced := helmCoalesce(values)
		for fld, reasons := range chartRefuses(coalesced, "demo-md0") {
			seen["schema or template refuses "+string(reasons[0])+" at "+fld]++
		}
		faulted := chartRefuses(coalesced, "demo-md0")
		for fld, reasons := range faulted {
			seen["refused "+string(reasons[0])+" at "+fld]++
		}
		if size, set := values["diskSize"]; set && faulted["diskSize"] != nil {
			f, isNumber := size.(float64)
			for what, ok := range map[string]bool{
				"\"\"":        size == "",
				"a fraction":  isNumber && f != math.Trunc(f),
				"a boolean":   size == true || size == false,
				"off pattern": size != "" && !isNumber && size != true && size != false,
			} {
				if ok {
					seen["refused a diskSize: "+what]++
				}
			}
		}
		if len(faulted) > 0 {
			continue
		}
		seen["rendered"]++
		if _, err := chartDiskText(coalesced); err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		size, sizeSet := values["diskSize"]
		_, isNumber := size.(float64)
		talos, _ := values["talos"].(map[string]any)
		class, classSet := values["storageClass"]
		for what, ok := range map[string]bool{
			"a number in exponent form":  isNumber && strings.Contains(sprigText(size), "e"),
			"0, unset to the default":    size == 0.0,
			"a null size":                sizeSet && size == nil,
			"an empty class":             class == "",
			"a deleted class":            classSet && class == nil,
			"the factory's / trimmed":    strings.HasSuffix(fmt.Sprint(talos["imageFactoryURL"]), "/"),
			"the repository's / trimmed": strings.HasSuffix(fmt.Sprint(talos["installerRepository"]), "/"),
		} {
			if ok {
				seen["rendered: "+what]++
			}
		}
	}
	want := []string{"rendered", "rendered: a number in exponent form", "rendered: 0, unset to the default", "rendered: a null size",
		"refused a diskSize: \"\"", "refused a diskSize: a fraction", "refused a diskSize: a boolean", "refused a diskSize: off pattern",
		"schema or template refuses InvalidValue at diskSize",
		"rendered: an empty class", "rendered: a deleted class", "rendered: the factory's / trimmed", "rendered: the repository's / trimmed",
		"refused InvalidPoolName at cluster", "refused InvalidValue at cluster", "refused InvalidPoolName at metadata.name",
		"refused InvalidValue at diskSize", "refused InvalidValue at storageClass",
		"refused InvalidValue at talos", "refused InvalidValue at talos.schematicID", "refused InvalidValue at talos.version",
		"refused InvalidValue at talos.imageFactoryURL", "refused InvalidValue at talos.installerRepository",
		"refused InvalidValue at talos.registryMirrors"}
	for _, w := range want {
		if seen[w] == 0 {
			t.Errorf("no draw reaches %q", w)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(seen)) {
		t.Logf("%5d %s", seen[k], k)
	}
}
