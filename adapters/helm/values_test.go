package helm_test

import (
	"reflect"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/adapters/helm"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/plan"
)

// refusal is a refusal's identity: tests compare reasons and fields.
type refusal struct {
	Reason guard.Reason
	Field  string
}

func refusalsOf(err error) []refusal {
	var out []refusal
	for _, r := range guard.Refusals(err) {
		out = append(out, refusal{r.Reason, r.Field})
	}
	return out
}

// values decodes YAML the way Helm holds values.
func values(t *testing.T, doc string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatalf("test values do not parse: %v", err)
	}
	return m
}

func TestPoolSpec(t *testing.T) {
	builtin := func(id, v string) *plan.OSImage {
		return &plan.OSImage{Builtin: &plan.Builtin{SchematicID: id, Version: v}}
	}
	withSpec := func(f func(*plan.PoolSpec)) plan.PoolSpec {
		s := plan.DefaultPoolSpec("demo")
		f(&s)
		return s
	}
	cases := map[string]struct {
		reason string
		doc    string
		want   plan.PoolSpec
		refuse []refusal
	}{
		"defaults": {
			reason: "absent keys take the chart's defaults",
			doc:    "cluster: demo",
			want:   plan.DefaultPoolSpec("demo"),
		},
		"nulls": {
			reason: "null deletes the chart's default, as Helm does: empty texts, no osImage",
			doc:    "cluster: demo\ndiskSize: null\nstorageClass: null\nosImage: null\ntalos: null",
			want:   plan.PoolSpec{Cluster: "demo"},
		},
		"null storageClass": {
			reason: "a null storageClass leaves the class to the cluster, as the chart rendered no storageClassName",
			doc:    "cluster: demo\nstorageClass: null",
			want:   withSpec(func(s *plan.PoolSpec) { s.StorageClass = "" }),
		},
		"empty strings kept": {
			reason: `"" keeps its meaning: the planner falls back or picks the cluster default`,
			doc:    "cluster: demo\ndiskSize: ''\nstorageClass: ''",
			want:   withSpec(func(s *plan.PoolSpec) { s.DiskSize, s.StorageClass = "", "" }),
		},
		"builtin empty": {
			reason: "builtin: {} is set, each field defaulting to talos.*",
			doc:    "cluster: demo\nosImage:\n  builtin: {}",
			want:   withSpec(func(s *plan.PoolSpec) { s.OSImage = builtin("", "") }),
		},
		"builtin null": {
			reason: "builtin: null is not set",
			doc:    "cluster: demo\nosImage:\n  builtin: null",
			want:   withSpec(func(s *plan.PoolSpec) { s.OSImage = &plan.OSImage{} }),
		},
		"builtin flavor": {
			reason: "the builtin flavor is read as given",
			doc:    "cluster: demo\nosImage:\n  builtin: {schematicID: abc, version: v1.2.3}",
			want:   withSpec(func(s *plan.PoolSpec) { s.OSImage = builtin("abc", "v1.2.3") }),
		},
		"partial talos": {
			reason: "talos keys absent keep their defaults",
			doc:    "cluster: demo\ntalos: {version: v1.12.0}",
			want:   withSpec(func(s *plan.PoolSpec) { s.Talos.Version = "v1.12.0" }),
		},
		"other values": {
			reason: "values the planner does not read are left alone, whatever their type",
			doc:    "cluster: demo\nminReplicas: 3\nroles: [ingress-nginx]\nresources: 7",
			want:   plan.DefaultPoolSpec("demo"),
		},
		"number version": {
			reason: "a number where a string belongs is taken as the chart's quote renders it (the planner then judges it)",
			doc:    "cluster: demo\nosImage:\n  builtin: {version: 1.13}",
			want:   withSpec(func(s *plan.PoolSpec) { s.OSImage = builtin("", "1.13") }),
		},
		"number diskSize": {
			reason: "diskSize: 20 renders \"20\", as the pre-feature chart did: no new refusal",
			doc:    "cluster: demo\ndiskSize: 20",
			want:   withSpec(func(s *plan.PoolSpec) { s.DiskSize = "20" }),
		},
		"list where a map belongs": {
			reason: "a list where a map belongs is refused at its path",
			doc:    "cluster: demo\nosImage: [builtin]",
			refuse: []refusal{{guard.InvalidValue, "osImage"}},
		},
		"string where a map belongs": {
			reason: "builtin: true is not a flavor",
			doc:    "cluster: demo\nosImage: {builtin: true}",
			refuse: []refusal{{guard.InvalidValue, "osImage.builtin"}},
		},
		"all at once": {
			reason: "every type error is reported together",
			doc:    "cluster: [7]\ndiskSize: {a: 20}\nstorageClass: [a]\nosImage:\n  factory: {imageFactoryURL: {}}\ntalos: {schematicID: [123]}",
			refuse: []refusal{
				{guard.InvalidValue, "cluster"},
				{guard.InvalidValue, "diskSize"},
				{guard.InvalidValue, "osImage.factory.imageFactoryURL"},
				{guard.InvalidValue, "storageClass"},
				{guard.InvalidValue, "talos.schematicID"},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := helm.PoolSpec(values(t, tc.doc))
			if !reflect.DeepEqual(refusalsOf(err), tc.refuse) {
				t.Fatalf("%s: refusals\n-want %v\n+got  %v (%v)", tc.reason, tc.refuse, refusalsOf(err), err)
			}
			if tc.refuse != nil {
				return
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s:\n-want %+v\n+got  %+v", tc.reason, tc.want, got)
			}
		})
	}
}

func TestPoolNamesThePool(t *testing.T) {
	pool, err := helm.Pool(tenantNS, "demo-md0", map[string]any{"cluster": []any{1}})
	rs := guard.Refusals(err)
	if len(rs) != 1 || rs[0].Subject != "pool "+tenantNS+"/demo-md0" {
		t.Fatalf("a refusal names the pool: %v", err)
	}
	if pool.Namespace != tenantNS || pool.Name != "demo-md0" {
		t.Errorf("the pool keeps its name: %+v", pool)
	}
}

func TestPoolGoValues(t *testing.T) {
	// A Go caller's own map and slice types are read like Helm's.
	got, err := helm.PoolSpec(map[string]any{
		"cluster": "demo",
		"osImage": map[string]map[string]string{"builtin": {"version": "v1.2.3"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got.OSImage == nil || got.OSImage.Builtin == nil || got.OSImage.Builtin.Version != "v1.2.3" {
		t.Errorf("typed maps are read: %+v", got.OSImage)
	}
	if _, err := helm.PoolSpec(map[string]any{"cluster": make(chan int)}); !reflect.DeepEqual(refusalsOf(err), []refusal{{guard.InvalidValue, "cluster"}}) {
		t.Errorf("a value no chart holds is refused, not a panic: %v", err)
	}
	if got, err := helm.PoolSpec(nil); err != nil || !reflect.DeepEqual(got, plan.DefaultPoolSpec("")) {
		t.Errorf("nil values are the defaults: %+v, %v", got, err)
	}
}

func TestCatalogValues(t *testing.T) {
	withValues := func(f func(*catalog.Values)) catalog.Values {
		v := catalog.Default()
		f(&v)
		return v
	}
	cases := map[string]struct {
		reason string
		doc    string
		want   catalog.Values
		refuse []refusal
	}{
		"defaults": {
			reason: "absent keys: disabled, the default flavor",
			doc:    "{}",
			want:   catalog.Default(),
		},
		"enabled": {
			reason: "enabled: true is the default catalog, enabled",
			doc:    "enabled: true",
			want:   withValues(func(v *catalog.Values) { v.Enabled = true }),
		},
		"null images": {
			reason: "images: null deletes the default flavor, as Helm does: none",
			doc:    "images: null",
			want:   withValues(func(v *catalog.Values) { v.Images = []catalog.Image{} }),
		},
		"no images": {
			reason: "images: [] means none",
			doc:    "images: []",
			want:   withValues(func(v *catalog.Values) { v.Images = []catalog.Image{} }),
		},
		"empty class": {
			reason: `storageClass: "" keeps its meaning, the cluster default`,
			doc:    "storageClass: ''\nimages: [{schematicID: abc, version: v1.2.3, storage: ''}]",
			want: withValues(func(v *catalog.Values) {
				v.StorageClass = ""
				v.Images = []catalog.Image{{SchematicID: "abc", Version: "v1.2.3"}}
			}),
		},
		"quoted enabled": {
			reason: `a quoted "true" is a string, which a template reads as true even when it says "false"`,
			doc:    `enabled: "false"`,
			refuse: []refusal{{guard.InvalidValue, "enabled"}},
		},
		"list storage": {
			reason: "images[2].storage: a list where a string belongs",
			doc:    "images:\n- {schematicID: a, version: v1.0.0}\n- {schematicID: b, version: v1.0.0}\n- {schematicID: c, version: v1.0.0, storage: [6]}",
			refuse: []refusal{{guard.InvalidValue, "images[2].storage"}},
		},
		"null entry": {
			reason: "a null entry is refused at its index, so later indexes stay right",
			doc:    "images:\n- null\n- {schematicID: [12], version: v1.0.0}",
			refuse: []refusal{{guard.InvalidValue, "images[0]"}, {guard.InvalidValue, "images[1].schematicID"}},
		},
		"map where a list belongs": {
			reason: "images must be a list",
			doc:    "images: {schematicID: a}",
			refuse: []refusal{{guard.InvalidValue, "images"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := helm.CatalogValues(values(t, tc.doc))
			if !reflect.DeepEqual(refusalsOf(err), tc.refuse) {
				t.Fatalf("%s: refusals\n-want %v\n+got  %v (%v)", tc.reason, tc.refuse, refusalsOf(err), err)
			}
			if tc.refuse != nil {
				return
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s:\n-want %+v\n+got  %+v", tc.reason, tc.want, got)
			}
		})
	}
}
