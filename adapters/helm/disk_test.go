package helm_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/cozystack/kubernetes-worker-image/adapters/helm"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/plan"
)

// defaultURL is the pre-feature chart's image URL for the chart's talos.*
// defaults.
const defaultURL = "https://factory.talos.dev/image/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515/v1.13.6/openstack-amd64.raw.xz"

// preFeatureNoClass is the pre-feature entry for storageClass: "": the
// chart leaves the class to the cluster.
var preFeatureNoClass = fixtures.PreFeature(defaultURL, "20Gi", "")

// cloneText is the clone path's entry in the same layout.
const cloneText = `      - metadata:
          name: disk-system
          annotations:
            kubernetes-worker-image.cozystack.io/golden: "talos-worker-ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515-v1.13.6"
            kubernetes-worker-image.cozystack.io/pool: "kubernetes-demo-md0"
        spec:
          source:
            pvc:
              namespace: cozy-public
              name: talos-worker-ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515-v1.13.6
          storage:
            resources:
              requests:
                storage: "20Gi"
            storageClassName: "replicated"
`

func TestDiskText(t *testing.T) {
	cases := map[string]struct {
		reason string
		values map[string]any
		indent int
		want   string
	}{
		"chart defaults": {
			reason: "osImage absent is the pre-feature render, byte for byte",
			values: map[string]any{"cluster": "demo"},
			indent: helm.ChartIndent,
			want:   fixtures.PreFeatureDiskSystem,
		},
		"empty factory": {
			reason: "osImage.factory: {} renders exactly like an absent osImage",
			values: map[string]any{"cluster": "demo", "osImage": map[string]any{"factory": map[string]any{}}},
			indent: helm.ChartIndent,
			want:   fixtures.PreFeatureDiskSystem,
		},
		"factory of empty strings": {
			reason: `"" in osImage.factory.* falls back to talos.*`,
			values: map[string]any{"cluster": "demo", "osImage": map[string]any{"factory": map[string]any{"schematicID": "", "version": "", "imageFactoryURL": ""}}},
			indent: helm.ChartIndent,
			want:   fixtures.PreFeatureDiskSystem,
		},
		"empty osImage": {
			reason: "osImage: {} sets neither source: the HTTP default",
			values: map[string]any{"cluster": "demo", "osImage": map[string]any{}},
			indent: helm.ChartIndent,
			want:   fixtures.PreFeatureDiskSystem,
		},
		"null osImage": {
			reason: "null is not set, as Helm drops it",
			values: map[string]any{"cluster": "demo", "osImage": nil, "diskSize": nil},
			indent: helm.ChartIndent,
			want:   fixtures.PreFeatureDiskSystem,
		},
		"zero diskSize": {
			reason: `diskSize: 0 falls back to 20Gi, as the chart's default does`,
			values: map[string]any{"cluster": "demo", "diskSize": 0.0},
			indent: helm.ChartIndent,
			want:   fixtures.PreFeatureDiskSystem,
		},
		"empty storageClass": {
			reason: `storageClass: "" leaves the class to the cluster: no storageClassName line`,
			values: map[string]any{"cluster": "demo", "storageClass": ""},
			indent: helm.ChartIndent,
			want:   preFeatureNoClass,
		},
		"malformed diskSize": {
			reason: "the HTTP path renders a diskSize of the quantity pattern that is no positive quantity as given, quoted",
			values: map[string]any{"cluster": "demo", "diskSize": "-20Gi", "storageClass": ""},
			indent: 0,
			want:   fixtures.AtIndent(fixtures.PreFeature(defaultURL, "-20Gi", ""), 0),
		},
		"factory override": {
			reason: "the factory's own URL, one trailing slash trimmed, and the class through quote",
			values: map[string]any{"cluster": "demo", "storageClass": `a"b`, "osImage": map[string]any{"factory": map[string]any{"imageFactoryURL": "https://f.example/", "version": "v1.12.0"}}},
			indent: 2,
			want: fixtures.AtIndent(fixtures.PreFeature(
				"https://f.example/image/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515/v1.12.0/openstack-amd64.raw.xz",
				"20Gi", `a"b`), 2),
		},
		"clone": {
			reason: "the clone path: the golden's pvc source, annotation values quoted, the class always written",
			values: map[string]any{"cluster": "demo", "osImage": map[string]any{"builtin": map[string]any{}}},
			indent: helm.ChartIndent,
			want:   cloneText,
		},
		"clone on the default class": {
			reason: `storageClass: "" on the clone path writes the resolved default, never leaves it out`,
			values: map[string]any{"cluster": "demo", "storageClass": "", "osImage": map[string]any{"builtin": map[string]any{}}},
			indent: helm.ChartIndent,
			want:   cloneText,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res, err := plan.Plan(plan.DecodePool(tenantNS, "demo-md0", tc.values), enabledCatalog(), cluster())
			if err != nil {
				t.Fatalf("%s: plan refused: %v", tc.reason, err)
			}
			got, err := helm.DiskText(res, tc.indent)
			if err != nil {
				t.Fatalf("%s: %v", tc.reason, err)
			}
			if got != tc.want {
				t.Errorf("%s\n-want:\n%s\n+got:\n%s", tc.reason, tc.want, got)
			}
		})
	}
}

func TestDiskTextOffline(t *testing.T) {
	// Offline with an empty class, the clone path leaves the class out
	// and StateUnverified says so.
	pool := plan.DecodePool(tenantNS, "demo-md0", map[string]any{"cluster": "demo", "storageClass": "", "osImage": map[string]any{"builtin": map[string]any{}}})
	res, err := plan.Plan(pool, enabledCatalog(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := helm.DiskText(res, helm.ChartIndent)
	if err != nil {
		t.Fatal(err)
	}
	want := cloneText[:len(cloneText)-len("            storageClassName: \"replicated\"\n")]
	if got != want {
		t.Errorf("-want:\n%s\n+got:\n%s", want, got)
	}
}

func TestDiskTextRefused(t *testing.T) {
	pool := plan.DecodePool(tenantNS, "demo-md0", map[string]any{"cluster": "demo", "storageClass": "local", "osImage": map[string]any{"builtin": map[string]any{}}})
	res, _ := plan.Plan(pool, enabledCatalog(), cluster())
	if _, err := helm.DiskText(res, helm.ChartIndent); !errors.Is(err, helm.ErrRefused) {
		t.Errorf("a refused pool has no disk text: got %v, want ErrRefused", err)
	}
	if _, err := helm.DiskText(plan.Result{Outcome: plan.Planned, Source: plan.Clone}, 0); err == nil {
		t.Error("a plan without a disk source renders nothing")
	}
	res, _ = plan.Plan(plan.Pool{Namespace: tenantNS, Name: "demo-md0", Spec: plan.DefaultPoolSpec("demo")}, nil, nil)
	for _, indent := range []int{-1, helm.MaxIndent + 1, math.MaxInt} {
		if _, err := helm.DiskText(res, indent); err == nil {
			t.Errorf("indentation %d is an error", indent)
		}
	}
	if text, err := helm.DiskText(res, helm.MaxIndent); err != nil || !strings.HasPrefix(text, strings.Repeat(" ", helm.MaxIndent)+"- metadata:\n") {
		t.Errorf("indentation %d is written: %v", helm.MaxIndent, err)
	}
}
