package cli_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// catalogReleaseDoc is the catalog HelmRelease as Cozystack deploys it:
// the platform's Secret and a ConfigMap of values under spec.values.
const catalogReleaseDoc = `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: kubernetes-worker-image, namespace: cozy-system}
spec:
  chart: {spec: {chart: kubernetes-worker-image}}
  valuesFrom:
  - {kind: Secret, name: cozystack-values}
  - {kind: ConfigMap, name: catalog-images, valuesKey: images.yaml}
  values:
    enabled: true
    storageClass: replicated
`

// catalogObjects are the release's valuesFrom objects: the catalog holds
// v1.13.6 and v1.11.5; v1.12.4 and v1.10.9 are retired goldens, in the
// cluster and not in the catalog.
func catalogObjects() string {
	secret := base64.StdEncoding.EncodeToString([]byte("_cluster: {root-host: example.org}\n"))
	return `apiVersion: v1
kind: Secret
metadata: {name: cozystack-values, namespace: cozy-system}
data: {values.yaml: ` + secret + `}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: catalog-images, namespace: cozy-system}
data:
  images.yaml: |
    images:
    - {schematicID: ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515, version: v1.13.6}
    - {schematicID: ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515, version: v1.11.5}
`
}

type catalogJSON struct {
	Source, Release, File, Fallback string
	ValuesFrom, Notes               []string
	Deployed                        *bool
}

func planCatalog(t *testing.T, stdout string) (catalogJSON, []poolOut) {
	t.Helper()
	var out struct{ Catalog catalogJSON }
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	return out.Catalog, decodePlan(t, stdout)
}

// TestOneCatalog: without --catalog, plan reads the catalog from the
// catalog HelmRelease (spec.values over its valuesFrom), as the webhook
// does, and says so; a retired golden is no entry. Only where the release
// cannot be read is the catalog read back from the goldens, and it says
// why.
func TestOneCatalog(t *testing.T) {
	retired := write(t, "retired.yaml", poolDoc("demo-md3", "storageClass: replicated\nosImage: {builtin: {version: v1.12.4}}"))
	current := write(t, "current.yaml", poolDoc("demo-md0", builtinPool))

	api := newFakeAPI(t, readExample(t, exampleState)+"\n---\n"+catalogReleaseDoc+"---\n"+catalogObjects())
	kc := kubeconfig(t, "tenant-demo", [2]string{"c", api.URL})
	r := exe(t, "", "plan", "-f", retired, "--kubeconfig", kc, "-o", "json")
	cat, pools := planCatalog(t, r.stdout)
	if cat.Source != "release" || cat.Release != "cozy-system/kubernetes-worker-image" || strings.Join(cat.ValuesFrom, ",") != "ConfigMap catalog-images" || len(cat.Notes) != 1 {
		t.Errorf("the catalog's source: %+v", cat)
	}
	if r.code != 3 || len(pools) != 1 || pools[0].Outcome != "refused" || !containsReason(pools[0].Refusals, "GoldenNotInCatalog") {
		t.Errorf("a pool of a retired golden is refused GoldenNotInCatalog, as the webhook refuses it: exit %d %+v\n%s", r.code, pools, r.stderr)
	}
	r = exe(t, "", "plan", "-f", current, "--kubeconfig", kc)
	if r.code != 0 || !strings.Contains(r.stderr, "catalog: the values of the HelmRelease cozy-system/kubernetes-worker-image (spec.values over valuesFrom ConfigMap catalog-images); spec.valuesFrom Secret cozystack-values: not read") {
		t.Errorf("the text says the source: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}

	// No Flux: the release cannot be read; the read-back says why.
	noFlux := newFakeAPI(t, readExample(t, exampleState))
	kc = kubeconfig(t, "tenant-demo", [2]string{"c", noFlux.URL})
	r = exe(t, "", "plan", "-f", retired, "--kubeconfig", kc, "-o", "json")
	cat, pools = planCatalog(t, r.stdout)
	if cat.Source != "readback" || !strings.Contains(cat.Fallback, "serves no group helm.toolkit.fluxcd.io") || len(pools) != 1 || pools[0].Outcome != "planned" {
		t.Errorf("fallback: exit %d %+v %+v\n%s", r.code, cat, pools, r.stderr)
	}
	r = exe(t, "", "plan", "-f", retired, "--kubeconfig", kc)
	if !strings.Contains(r.stderr, "catalog: read back from the goldens in cozy-public, since the catalog release cozy-system/kubernetes-worker-image could not be read") {
		t.Errorf("the text says the fallback:\n%s", r.stderr)
	}

	// Flux, no release: the catalog is not deployed, as the webhook takes it.
	bare := newFakeAPI(t, readExample(t, exampleState))
	bare.flux = true
	kc = kubeconfig(t, "tenant-demo", [2]string{"c", bare.URL})
	r = exe(t, "", "plan", "-f", current, "--kubeconfig", kc, "-o", "json")
	cat, pools = planCatalog(t, r.stdout)
	if cat.Source != "release" || cat.Deployed == nil || *cat.Deployed || len(pools) != 1 || !containsReason(pools[0].Warnings, "GoldenUnavailable") {
		t.Errorf("no release: the catalog is disabled, as the webhook takes it: exit %d %+v %+v", r.code, cat, pools)
	}

	// Another release, named.
	other := strings.Replace(catalogReleaseDoc, "name: kubernetes-worker-image, namespace: cozy-system", "name: catalog, namespace: ops", 1)
	named := newFakeAPI(t, readExample(t, exampleState)+"\n---\n"+other+"---\n"+strings.ReplaceAll(catalogObjects(), "cozy-system", "ops"))
	kc = kubeconfig(t, "tenant-demo", [2]string{"c", named.URL})
	r = exe(t, "", "plan", "-f", current, "--kubeconfig", kc, "--catalog-release", "ops/catalog", "-o", "json")
	if cat, pools = planCatalog(t, r.stdout); cat.Release != "ops/catalog" || r.code != 0 || pools[0].Outcome != "planned" {
		t.Errorf("--catalog-release: exit %d %+v %+v\n%s", r.code, cat, pools, r.stderr)
	}
	if r := exe(t, "", "plan", "-f", current, "--kubeconfig", kc, "--catalog-release", "catalog"); r.code != 2 || !strings.Contains(r.stderr, "is not NAMESPACE/NAME") {
		t.Errorf("a bad --catalog-release: exit %d\n%s", r.code, r.stderr)
	}
}

// TestCatalogFileHoldsARelease: --catalog takes the HelmRelease object
// (kubectl get hr -o yaml) and reads its values, never the object as
// values; its valuesFrom is read from the cluster, and without one only
// the platform's Secret of "_" keys may be left unread.
func TestCatalogFileHoldsARelease(t *testing.T) {
	inline := write(t, "hr.yaml", `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: kubernetes-worker-image, namespace: cozy-system}
spec:
  valuesFrom: [{kind: Secret, name: cozystack-values}]
  values:
    enabled: true
    storageClass: replicated
    images: [{schematicID: ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515, version: v1.13.6}]
`)
	r := exe(t, "", "catalog", "render", "--catalog", inline, "--state", exampleState, "-o", "json")
	var out struct {
		Goldens  []any
		Warnings []struct{ Reason, Field string }
		Catalog  catalogJSON
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != 0 || len(out.Goldens) != 1 || len(out.Warnings) != 0 || out.Catalog.Source != "release-file" {
		t.Errorf("render of a release file: exit %d %v %+v\n%s\n%s", r.code, err, out, r.stdout, r.stderr)
	}
	text := exe(t, "", "catalog", "render", "--catalog", inline)
	if text.code != 0 || !strings.Contains(text.stdout, "kind: DataVolume") || !strings.Contains(text.stderr, "catalog: the values of the HelmRelease cozy-system/kubernetes-worker-image in "+inline) {
		t.Errorf("render prints the release's golden: exit %d\n%s\n%s", text.code, text.stdout, text.stderr)
	}

	fromCluster := write(t, "hr2.yaml", catalogReleaseDoc)
	if r := exe(t, "", "plan", "-f", examplePools, "--catalog", fromCluster); r.code != 2 || !strings.Contains(r.stderr, "spec.valuesFrom ConfigMap catalog-images: its values are in the cluster") {
		t.Errorf("offline, a valuesFrom ConfigMap is unusable: exit %d\n%s", r.code, r.stderr)
	}
	api := newFakeAPI(t, readExample(t, exampleState)+"\n---\n"+catalogObjects())
	kc := kubeconfig(t, "tenant-demo", [2]string{"c", api.URL})
	r = exe(t, "", "plan", "-f", write(t, "p.yaml", poolDoc("demo-md5", "storageClass: replicated\nosImage: {builtin: {version: v1.11.5}}")), "--catalog", fromCluster, "--kubeconfig", kc, "-o", "json")
	if cat, pools := planCatalog(t, r.stdout); cat.Source != "release-file" || len(cat.ValuesFrom) != 1 || pools[0].Outcome != "planned" {
		t.Errorf("a release file's valuesFrom read from the cluster: exit %d %+v %+v\n%s", r.code, cat, pools, r.stderr)
	}
}

// TestRenderAndPruneReadTheRelease: catalog render and prune take the
// catalog from the release; where it cannot be read they ask for
// --catalog rather than read it back (which would manage every golden).
func TestRenderAndPruneReadTheRelease(t *testing.T) {
	api := newFakeAPI(t, readExample(t, exampleState)+"\n---\n"+catalogReleaseDoc+"---\n"+catalogObjects())
	kc := kubeconfig(t, "tenant-demo", [2]string{"c", api.URL})
	r := exe(t, "", "catalog", "render", "--kubeconfig", kc, "-o", "json")
	var out struct {
		Goldens   []any
		Unmanaged []string
		Catalog   catalogJSON
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != 0 || len(out.Goldens) != 2 || out.Catalog.Source != "release" ||
		strings.Join(out.Unmanaged, ",") != "talos-worker-ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515-v1.10.9,"+legacyGolden {
		t.Errorf("render from the release: exit %d %+v\n%s", r.code, out, r.stderr)
	}
	p := exe(t, "", "catalog", "prune", "--kubeconfig", kc, "-o", "json")
	if p.code != 0 || !strings.Contains(p.stdout, `"source": "release"`) {
		t.Errorf("prune from the release: exit %d\n%s\n%s", p.code, p.stdout, p.stderr)
	}
	for _, cmd := range [][]string{{"catalog", "render", "--state", exampleState}, {"catalog", "prune", "--state", exampleState}} {
		if r := exe(t, "", cmd...); r.code != 2 || !strings.Contains(r.stderr, "--catalog CATALOG.yaml is required") {
			t.Errorf("%v without a release: exit %d\n%s", cmd, r.code, r.stderr)
		}
	}
}

// Each command's help says where its catalog comes from without
// --catalog, as the code finds it: the catalog release first, read back
// from the goldens only where it cannot be read (plan, diff, helm-verify),
// or never (render, prune: --catalog is then required).
func TestHelpSaysWhereTheCatalogComesFrom(t *testing.T) {
	for _, args := range [][]string{{"plan"}, {"diff"}, {"helm-verify"}} {
		h := exe(t, "", append(args, "-h")...)
		require.Equal(t, 0, h.code, "%v", args)
		text := strings.Join(strings.Fields(h.stdout), " ")
		assert.Contains(t, text, "Without --catalog the catalog is the values of its HelmRelease read from the cluster (--catalog-release, default cozy-system/kubernetes-worker-image", "%v", args)
		assert.Contains(t, text, "Only where the release cannot be read (no cluster is read, as with --state;", "%v", args)
		assert.NotContains(t, text, "goldens read back from the cluster", "%v", args)
		assert.NotContains(t, text, "Without --catalog the catalog is read back", "%v", args)
		assert.NotContains(t, text, "--catalog, or the catalog read back", "%v", args)
	}
	for _, args := range [][]string{{"catalog", "render"}, {"catalog", "prune"}} {
		h := exe(t, "", append(args, "-h")...)
		require.Equal(t, 0, h.code, "%v", args)
		text := strings.Join(strings.Fields(h.stdout), " ")
		assert.Contains(t, text, "never one read back from the goldens", "%v", args)
		assert.Contains(t, text, "required when that release cannot be read", "%v", args)
		assert.NotContains(t, text, "else read back from the goldens", "%v", args)
	}

	// What the help promises: with --state no cluster is read, so the
	// catalog is read back, and standard error says so and why.
	r := exe(t, "", "plan", "-f", examplePools, "--state", exampleState)
	assert.Contains(t, r.stderr, "catalog: read back from the goldens in cozy-public, since the catalog release cozy-system/kubernetes-worker-image could not be read: no cluster was read")
	p := exe(t, "", "catalog", "prune", "--state", exampleState)
	assert.Equal(t, 2, p.code, "%s", p.stderr)
	assert.Contains(t, p.stderr, "--catalog CATALOG.yaml is required")
}
