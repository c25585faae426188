package helm_test

import (
	"testing"

	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/adapters/helm"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// goldenDoc is the catalog chart's golden for the default catalog.
const goldenDoc = `apiVersion: cdi.kubevirt.io/v1beta1
kind: DataVolume
metadata:
  name: talos-worker-ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515-v1.13.6
  namespace: cozy-public
  annotations:
    helm.sh/resource-policy: keep
    cdi.kubevirt.io/storage.bind.immediate.requested: "true"
    cdi.kubevirt.io/storage.usePopulator: "true"
    kubernetes-worker-image.cozystack.io/schematic-id: "ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515"
    kubernetes-worker-image.cozystack.io/talos-version: "v1.13.6"
  labels:
    app.kubernetes.io/managed-by: cozystack
spec:
  contentType: kubevirt
  source:
    http:
      url: "https://factory.talos.dev/image/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515/v1.13.6/openstack-amd64.raw.xz"
  storage:
    resources:
      requests:
        storage: "6Gi"
    storageClassName: "replicated"
`

func TestGoldenText(t *testing.T) {
	classless := catalog.Default()
	classless.Enabled, classless.StorageClass = true, ""
	classless.Images[0].Storage = "6144Mi"
	cases := map[string]struct {
		reason string
		values catalog.Values
		snap   *state.Snapshot
		want   string
	}{
		"default": {
			reason: "the default catalog's golden, as the catalog chart renders it",
			values: enabledCatalog().Values(),
			want:   "---\n" + goldenDoc,
		},
		"live golden reproduced": {
			reason: "an unchanged live golden renders its own spec, which the layout holds",
			values: enabledCatalog().Values(),
			snap:   cluster(),
			want:   "---\n" + goldenDoc,
		},
		"classless": {
			reason: "an empty class leaves the storageClassName line out; the size reads as the quantity holds it",
			values: classless,
			want:   "---\n" + goldenDoc[:len(goldenDoc)-len("    storageClassName: \"replicated\"\n")],
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res, err := catalog.Render(catalog.Compile(tc.values), tc.snap)
			if err != nil {
				t.Fatalf("%s: %v", tc.reason, err)
			}
			got, err := helm.GoldenDocuments(res.Goldens)
			if err != nil {
				t.Fatalf("%s: %v", tc.reason, err)
			}
			if got != tc.want {
				t.Errorf("%s\n-want:\n%s\n+got:\n%s", tc.reason, tc.want, got)
			}
		})
	}
}

func TestGoldenTextRefusesWhatItCannotHold(t *testing.T) {
	e, ok := enabledCatalog().Lookup(catalog.Flavor{SchematicID: chartdefaults.SchematicID, Version: chartdefaults.Version})
	if !ok {
		t.Fatal("the default catalog holds the default flavor")
	}
	if _, err := helm.GoldenText(nil); err == nil {
		t.Error("no DataVolume has no text: want an error")
	}
	dv := catalog.NewGolden(e)
	dv.Spec.Storage.VolumeMode = nil
	dv.Spec.Preallocation = new(bool)
	if _, err := helm.GoldenText(&dv); err == nil {
		t.Error("a field outside the layout would be lost: want an error")
	}
	dv = catalog.NewGolden(e)
	dv.Annotations["extra"] = "x"
	if _, err := helm.GoldenDocuments([]cdiv1.DataVolume{dv}); err == nil {
		t.Error("an annotation outside the layout would be lost: want an error")
	}
	dv = catalog.NewGolden(e)
	delete(dv.Annotations, "helm.sh/resource-policy")
	if _, err := helm.GoldenText(&dv); err == nil {
		t.Error("a missing annotation would be written empty: want an error")
	}
}
