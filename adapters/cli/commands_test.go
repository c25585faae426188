package cli_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func decodeMap(t *testing.T, stdout string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(stdout), &m); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout)
	}
	return m
}

func TestCatalogRender(t *testing.T) {
	r := exe(t, "", "catalog", "render", "--catalog", exampleCatalog, "--state", exampleState, "-o", "json")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	out := decodeMap(t, r.stdout)
	// The documented shape, and the blast radius of each unmanaged
	// golden (a key more: the shapes gain keys, never lose them).
	if got := keys(out); !reflect.DeepEqual(got, []string{"blastRadius", "catalog", "goldens", "refusals", "unmanaged", "warnings"}) {
		t.Errorf("keys %v", got)
	}
	goldens := out["goldens"].([]any)
	if len(goldens) != 1 || goldens[0].(map[string]any)["kind"] != "DataVolume" {
		t.Errorf("one golden DataVolume: %v", goldens)
	}
	if got := out["unmanaged"].([]any); len(got) != 3 {
		t.Errorf("three unmanaged goldens: %v", got)
	}
	radii := out["blastRadius"].([]any)
	if len(radii) != 3 {
		t.Fatalf("a radius per unmanaged golden: %v", radii)
	}
	if r := radii[1].(map[string]any); !strings.HasSuffix(r["golden"].(string), "-v1.11.5") || r["pools"] != 1.0 || r["templates"] != 1.0 ||
		!reflect.DeepEqual(r["unobserved"], []any{"DataSource", "KubernetesNodes", "HelmRelease"}) {
		t.Errorf("the golden the scaled-to-zero pool's template clones: %v", r)
	}

	// The human output is the goldens as YAML documents, the rest on stderr.
	h := exe(t, "", "catalog", "render", "--example")
	if h.code != 0 || !strings.HasPrefix(h.stdout, "---\napiVersion: cdi.kubevirt.io/v1beta1\nkind: DataVolume\n") || !strings.Contains(h.stderr, "unmanaged goldens") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", h.code, h.stdout, h.stderr)
	}

	// An edit of a live golden is refused, with the entry's field.
	edited := write(t, "catalog.yaml", strings.Replace(readExample(t, exampleCatalog), "storage: 6Gi", "storage: 8Gi", 1))
	e := exe(t, "", "catalog", "render", "--catalog", edited, "--state", exampleState, "-o", "json")
	refusals := decodeMap(t, e.stdout)["refusals"].([]any)
	if e.code != 3 || len(refusals) != 1 || refusals[0].(map[string]any)["reason"] != "CatalogEntryImmutable" || refusals[0].(map[string]any)["field"] != "images[0].storage" {
		t.Errorf("exit %d, refusals %v", e.code, refusals)
	}
	e = exe(t, "", "catalog", "render", "--catalog", edited, "--state", exampleState)
	if e.code != 3 || e.stdout != "" || !strings.Contains(e.stderr, "catalog: refused CatalogEntryImmutable at images[0].storage") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", e.code, e.stdout, e.stderr)
	}
}

const legacyGolden = "talos-worker-ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515-v1.12.4"

func TestCatalogConsumers(t *testing.T) {
	r := exe(t, "", "catalog", "consumers", legacyGolden, "--state", exampleState, "-o", "json")
	if r.code != 4 {
		t.Fatalf("exit %d, want 4: the dump holds no DataSource, KubernetesNodes or HelmRelease, so the list is a floor\n%s", r.code, r.stderr)
	}
	out := decodeMap(t, r.stdout)
	// The documented shape, with the warnings every command's JSON
	// carries, so that "no consumers" is never read from a
	// state that could not see.
	if got := keys(out); !reflect.DeepEqual(got, []string{"blastRadius", "consumers", "golden", "outcome", "warnings"}) {
		t.Errorf("keys %v", got)
	}
	if _, ok := out["warnings"].([]any); !ok {
		t.Errorf("warnings is a list: %v", out["warnings"])
	}
	cs := out["consumers"].([]any)
	if len(cs) != 3 {
		t.Fatalf("three consumers: the pool's template, its worker's VM and its disk: %v", cs)
	}
	var kinds []any
	for _, c := range cs {
		c := c.(map[string]any)
		if got := keys(c); !reflect.DeepEqual(got, []string{"kind", "name", "namespace", "pool"}) {
			t.Errorf("consumer keys %v", got)
		}
		if c["namespace"] != "tenant-legacy" || c["pool"] != "kubernetes-legacy-md0" {
			t.Errorf("consumer %v", c)
		}
		kinds = append(kinds, c["kind"])
	}
	if !reflect.DeepEqual(kinds, []any{"KubevirtMachineTemplate", "VirtualMachine", "PersistentVolumeClaim"}) {
		t.Errorf("consumers by namespace and name: %v", kinds)
	}
	if r := out["blastRadius"].(map[string]any); r["pools"] != 1.0 || r["templates"] != 1.0 {
		t.Errorf("one pool and its template: %v", r)
	}
	none := exe(t, "", "catalog", "consumers", "talos-worker-abc-v1.0.0", "--example", "-o", "json")
	if none.code != 0 || !strings.Contains(none.stdout, `"consumers": []`) {
		t.Errorf("no consumer is an empty list: exit %d\n%s", none.code, none.stdout)
	}
}

func TestCatalogPrune(t *testing.T) {
	// The example state is every namespace's: --observed all says so, and
	// only then may a file report a golden safe to delete.
	r := exe(t, "", "catalog", "prune", "--catalog", exampleCatalog, "--state", exampleState, "--observed", "all", "-o", "json")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	out := decodeMap(t, r.stdout)
	// The documented shape, with the warnings and where the catalog came
	// from.
	if got := keys(out); !reflect.DeepEqual(got, []string{"catalog", "kept", "safeToDelete", "warnings"}) {
		t.Errorf("keys %v", got)
	}
	if _, ok := out["warnings"].([]any); !ok {
		t.Errorf("warnings is a list: %v", out["warnings"])
	}
	safe := out["safeToDelete"].([]any)
	kept := out["kept"].([]any)
	if len(safe) != 1 || !strings.HasSuffix(safe[0].(string), "-v1.10.9") || len(kept) != 2 {
		t.Fatalf("safe %v, kept %v", safe, kept)
	}
	k := kept[0].(map[string]any)
	if got := keys(k); !reflect.DeepEqual(got, []string{"blastRadius", "consumers", "name"}) || !strings.HasSuffix(k["name"].(string), "-v1.11.5") {
		t.Errorf("kept %v", k)
	}
	if cs := k["consumers"].([]any); len(cs) != 1 || cs[0].(map[string]any)["kind"] != "KubevirtMachineTemplate" {
		t.Errorf("the golden only the scaled-to-zero pool's template clones is kept: %v", cs)
	}
	if kept[1].(map[string]any)["name"] != legacyGolden {
		t.Errorf("kept %v", kept[1])
	}
	y := exe(t, "", "catalog", "prune", "--example", "-o", "yaml")
	if y.code != 0 || !strings.Contains(y.stdout, "safeToDelete:\n- talos-worker-") {
		t.Errorf("exit %d\n%s", y.code, y.stdout)
	}
}

func TestComputePlane(t *testing.T) {
	values := write(t, "values.yaml", "nodeGroups:\n  md0:\n    maxReplicas: 3\n    roles: [ingress-nginx]\n    osImage: {builtin: {}}\n")
	r := exe(t, "", "computeplane", "-f", values, "-o", "json")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	out := decodeMap(t, r.stdout)
	if got := keys(out); !reflect.DeepEqual(got, []string{"cluster", "pools", "refusals", "warnings"}) {
		t.Errorf("keys %v", got)
	}
	pool := out["pools"].([]any)[0].(map[string]any)
	if got := keys(pool); !reflect.DeepEqual(got, []string{"name", "releaseName", "values"}) || pool["releaseName"] != "kubernetes-nodes-computeplane-cluster-md0" {
		t.Errorf("pool %v", pool)
	}
	if _, leaked := pool["values"].(map[string]any)["osImage"]; leaked {
		t.Error("osImage never reaches a pool release")
	}
	cluster := out["cluster"].(map[string]any)
	if got := keys(cluster); !reflect.DeepEqual(got, []string{"adminKubeconfig", "release"}) {
		t.Errorf("cluster %v", cluster)
	}
	if got := keys(cluster["adminKubeconfig"].(map[string]any)); !reflect.DeepEqual(got, []string{"key", "secret"}) {
		t.Errorf("adminKubeconfig %v", got)
	}
	if !strings.Contains(r.stdout, `"reason": "DroppedField"`) {
		t.Errorf("the dropped osImage is a warning:\n%s", r.stdout)
	}

	refused := exe(t, "nodeGroups: {md0: {maxReplicas: 0, roles: [ingress-nginx]}}\n", "computeplane", "-f", "-")
	if refused.code != 3 || !strings.Contains(refused.stderr, "refused MissingIngressPool at nodeGroups") {
		t.Errorf("exit %d\nstderr:\n%s", refused.code, refused.stderr)
	}
	human := exe(t, "{}\n", "computeplane", "-f", "-")
	if human.code != 0 || !strings.Contains(human.stdout, "pool md0: release kubernetes-nodes-computeplane-cluster-md0") {
		t.Errorf("exit %d\nstdout:\n%s", human.code, human.stdout)
	}
	if bad := exe(t, "[a]\n", "computeplane", "-f", "-"); bad.code != 2 {
		t.Errorf("values that are not a map are unusable: exit %d", bad.code)
	}
}
