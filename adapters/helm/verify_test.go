package helm_test

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/adapters/helm"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
)

// template is a rendered KubevirtMachineTemplate holding disk, a
// dataVolumeTemplates entry at the chart's indentation.
func template(disk string) string {
	return `apiVersion: infrastructure.cluster.x-k8s.io/v1alpha1
kind: KubevirtMachineTemplate
metadata:
  name: kubernetes-demo-md0-0123abcd
  namespace: ` + tenantNS + `
spec:
  template:
    spec:
      virtualMachineTemplate:
        spec:
          runStrategy: Always
          dataVolumeTemplates:
          - metadata:
              name: other-disk
            spec:
              source:
                blank: {}
` + indent(disk, 4)
}

func indent(s string, n int) string {
	pad := strings.Repeat(" ", n)
	return pad + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n"+pad) + "\n"
}

func objects(t *testing.T, docs ...string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, d := range docs {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(d), &m); err != nil {
			t.Fatalf("test manifest does not parse: %v\n%s", err, d)
		}
		out = append(out, m)
	}
	return out
}

func TestVerify(t *testing.T) {
	onLocal := strings.Replace(cloneText, `storageClassName: "replicated"`, `storageClassName: "local"`, 1)
	tooSmall := strings.Replace(cloneText, `storage: "20Gi"`, `storage: "1Gi"`, 1)
	noPool := strings.Replace(cloneText, `kubernetes-worker-image.cozystack.io/pool: "kubernetes-demo-md0"`, `x: "y"`, 1)
	resized := strings.Replace(goldenDoc, `storage: "6Gi"`, `storage: "8Gi"`, 1)
	badSize := strings.Replace(cloneText, `storage: "20Gi"`, `storage: [20Gi]`, 1)
	readBack, _ := catalog.ReadBack(cluster())
	cases := map[string]struct {
		reason  string
		docs    []string
		catalog *catalog.Catalog
		sources []plan.Source
		refuse  []fixtures.Finding
	}{
		"clean clone": {
			reason:  "a clone on the golden's class passes",
			docs:    []string{template(cloneText)},
			catalog: catalog.Compile(readBack),
			sources: []plan.Source{plan.Clone},
		},
		"clean clone and its golden": {
			reason:  "the goldens in the render are the catalog, unchanged from the cluster's",
			docs:    []string{goldenDoc, template(cloneText)},
			sources: []plan.Source{plan.Clone},
		},
		"another class": {
			reason:  "a clone of a golden on another class is refused",
			docs:    []string{goldenDoc, template(onLocal)},
			sources: []plan.Source{plan.Clone},
			refuse:  []fixtures.Finding{{Reason: guard.StorageClassMismatch, Field: "storageClass"}},
		},
		"smaller": {
			reason:  "a disk smaller than its golden is refused",
			docs:    []string{goldenDoc, template(tooSmall)},
			sources: []plan.Source{plan.Clone},
			refuse:  []fixtures.Finding{{Reason: guard.DiskSmallerThanGolden, Field: "diskSize"}},
		},
		"not in catalog": {
			reason:  "without a catalog, a clone has no golden to take",
			docs:    []string{template(cloneText)},
			sources: []plan.Source{plan.Clone},
			refuse:  []fixtures.Finding{{Reason: guard.GoldenNotInCatalog, Field: "osImage.builtin"}},
		},
		"without the pool annotation": {
			reason:  "a clone without its pool annotation is still guarded",
			docs:    []string{goldenDoc, template(noPool)},
			sources: []plan.Source{plan.Clone},
		},
		"http": {
			reason:  "the pre-feature render gains no guard, even on a class the golden is not on",
			docs:    []string{template(preFeatureNoClass)},
			sources: []plan.Source{plan.HTTP},
		},
		"golden edited": {
			reason:  "a rendered golden that edits the live one is refused",
			docs:    []string{resized, template(cloneText)},
			sources: []plan.Source{plan.Clone},
			refuse:  []fixtures.Finding{{Reason: guard.CatalogEntryImmutable, Field: "images[0].storage"}},
		},
		"bad type": {
			reason: "a disk-system entry that does not decode is refused at its path",
			docs:   []string{template(badSize)},
			refuse: []fixtures.Finding{{Reason: guard.InvalidValue, Field: "spec.template.spec.virtualMachineTemplate.spec.dataVolumeTemplates[1]"}},
		},
		"other objects": {
			reason: "objects other than templates and goldens are left alone",
			docs:   []string{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: b}", "kind: DataVolume\nmetadata: {name: x, namespace: n}\nspec: 7"},
		},
		"broken golden": {
			reason: "a golden that does not decode is refused",
			docs:   []string{strings.Replace(goldenDoc, "spec:\n", "spec: 7\nx:\n", 1)},
			refuse: []fixtures.Finding{{Reason: guard.InvalidValue, Field: "spec"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res, err := helm.Verify(objects(t, tc.docs...), tc.catalog, cluster())
			if got := fixtures.Refused(err); !reflect.DeepEqual(got, tc.refuse) {
				t.Fatalf("%s: refusals\n-want %v\n+got  %v (%v)", tc.reason, tc.refuse, got, err)
			}
			if got := fixtures.Of(res.Refusals); !reflect.DeepEqual(got, tc.refuse) {
				t.Errorf("%s: the result's refusals are the error's\n-want %v\n+got  %v", tc.reason, tc.refuse, got)
			}
			var sources []plan.Source
			for _, d := range res.Disks {
				sources = append(sources, d.Plan.Source)
				if d.Template != tenantNS+"/kubernetes-demo-md0-0123abcd" {
					t.Errorf("%s: template %q", tc.reason, d.Template)
				}
			}
			if tc.refuse == nil && !reflect.DeepEqual(sources, tc.sources) {
				t.Errorf("%s: sources %v, want %v", tc.reason, sources, tc.sources)
			}
		})
	}
}

func TestVerifyNamesThePool(t *testing.T) {
	res, _ := helm.Verify(objects(t, goldenDoc, template(cloneText)), nil, cluster())
	if len(res.Disks) != 1 || res.Disks[0].Plan.Name != "demo-md0" || res.Disks[0].Plan.Namespace != tenantNS {
		t.Fatalf("the pool annotation names the pool: %+v", res.Disks)
	}
	if res.Catalog == nil || len(res.Catalog.Goldens) != 1 {
		t.Errorf("the rendered golden makes up the catalog: %+v", res.Catalog)
	}
}

// TestVerifyNotAGolden: every disk-system that clones anything is guarded;
// a clone source that is not a golden of cozy-public is refused NotAGolden
// at the source's path, whatever the catalog holds.
func TestVerifyNotAGolden(t *testing.T) {
	entry := "spec.template.spec.virtualMachineTemplate.spec.dataVolumeTemplates[1].spec."
	source := func(from string) string {
		return strings.Replace(cloneText, "            pvc:\n              namespace: cozy-public\n              name: "+golden+"\n", from, 1)
	}
	cases := map[string]struct {
		reason string
		disk   string
		field  string
	}{
		"another PVC of cozy-public": {
			reason: "a PVC of cozy-public whose name is no golden's",
			disk:   source("            pvc:\n              namespace: cozy-public\n              name: tenant-secret-disk\n"),
			field:  entry + "source.pvc.name",
		},
		"an upper-case schematic": {
			reason: "talos-worker-CE4C-v1.13.6 is not a name GoldenName derives",
			disk:   source("            pvc:\n              namespace: cozy-public\n              name: talos-worker-CE4C-v1.13.6\n"),
			field:  entry + "source.pvc.name",
		},
		"the golden's name elsewhere": {
			reason: "the golden's name in a tenant's namespace is a tenant's PVC",
			disk:   source("            pvc:\n              namespace: other-tenant\n              name: " + golden + "\n"),
			field:  entry + "source.pvc.namespace",
		},
		"a snapshot": {
			reason: "a clone of a VolumeSnapshot",
			disk:   source("            snapshot:\n              namespace: cozy-public\n              name: " + golden + "\n"),
			field:  entry + "source.snapshot",
		},
		"a DataSource": {
			reason: "a sourceRef to a DataSource, whatever it points at",
			disk:   strings.Replace(source("            blank: {}\n"), "          source:\n            blank: {}\n", "          sourceRef:\n            kind: DataSource\n            namespace: cozy-public\n            name: talos\n", 1),
			field:  entry + "sourceRef",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if tc.disk == cloneText {
				t.Fatal("the test's edit did not apply")
			}
			for catName, cat := range map[string]*catalog.Catalog{"no catalog": nil, "the catalog": enabledCatalog()} {
				res, err := helm.Verify(objects(t, goldenDoc, template(tc.disk)), cat, cluster())
				want := []fixtures.Finding{{Reason: guard.NotAGolden, Field: tc.field}}
				if got := fixtures.Refused(err); !reflect.DeepEqual(got, want) {
					t.Errorf("%s (%s): refusals\n-want %v\n+got  %v (%v)", tc.reason, catName, want, got, err)
				}
				if len(res.Disks) != 1 || res.Disks[0].Plan.Outcome != plan.Refused || res.Disks[0].Plan.Name != "demo-md0" {
					t.Errorf("%s (%s): the disk is refused, and names its pool: %+v", tc.reason, catName, res.Disks)
				}
			}
		})
	}
}

// TestVerifyMergesTheCatalog: goldens in the manifests are merged with
// --catalog rather than replacing it: a pool cloning another entry of the
// catalog is not refused GoldenNotInCatalog because the stream also
// renders a golden, and a rendered golden wins over the entry of its flavor.
func TestVerifyMergesTheCatalog(t *testing.T) {
	v := catalog.Default()
	v.Enabled = true
	v.Images = append(v.Images, catalog.Image{Flavor: catalog.Flavor{SchematicID: chartdefaults.SchematicID, Version: "v1.14.0"}})
	cat := catalog.Compile(v)
	next := naming.GoldenPrefix + chartdefaults.SchematicID + "-v1.14.0"
	onNext := strings.ReplaceAll(cloneText, golden, next)

	res, err := helm.Verify(objects(t, goldenDoc, template(onNext)), cat, cluster())
	if err != nil || len(res.Disks) != 1 || res.Disks[0].Plan.Outcome != plan.Planned {
		t.Fatalf("the catalog's other entry still serves: %v %+v", err, res.Disks)
	}
	if !slices.ContainsFunc(res.Disks[0].Plan.Warnings, func(w guard.Warning) bool { return w.Reason == guard.GoldenPending }) {
		t.Errorf("its golden is not imported yet: %v", res.Disks[0].Plan.Warnings)
	}
	if _, err := helm.Verify(objects(t, template(onNext)), nil, cluster()); !errors.Is(err, guard.GoldenNotInCatalog) {
		t.Errorf("without the catalog, the flavor is in no catalog: %v", err)
	}

	// The catalog's entry of the rendered flavor asks 8Gi; the render keeps
	// the live golden's 6Gi: the render is what will be applied.
	v.Images[0].Storage = "8Gi"
	res, err = helm.Verify(objects(t, goldenDoc, template(cloneText)), catalog.Compile(v), cluster())
	if err != nil {
		t.Errorf("the rendered golden wins over the catalog's entry of its flavor: %v", err)
	}
	if res.Catalog == nil || len(res.Catalog.Goldens) != 2 {
		t.Errorf("the merged catalog renders the rendered golden and the catalog's other entry: %+v", res.Catalog)
	}
}
