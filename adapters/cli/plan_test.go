package cli_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
)

const goldenName = "talos-worker-ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515-v1.13.6"

// poolDoc is a KubernetesNodes of cluster demo in tenant-demo with spec,
// YAML written at the spec's indentation.
func poolDoc(name, spec string) string {
	return fmt.Sprintf(`apiVersion: apps.cozystack.io/v1alpha1
kind: KubernetesNodes
metadata:
  name: %s
  namespace: tenant-demo
spec:
  cluster: demo
%s
`, name, indentText(spec, "  "))
}

func indentText(s, pad string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	return pad + strings.ReplaceAll(s, "\n", "\n"+pad)
}

// stateEdit changes the example state's text.
type stateEdit func(string) string

func replaceFirst(old, new string) stateEdit {
	return func(s string) string {
		if !strings.Contains(s, old) {
			panic("the example state has no " + old)
		}
		return strings.Replace(s, old, new, 1)
	}
}

// appendDoc adds a document after the example's List.
func appendDoc(doc string) stateEdit {
	return func(s string) string { return s + "---\n" + doc }
}

// finding is a warning's or a refusal's identity in the JSON output.
type finding struct{ Reason, Field string }

type poolOut struct {
	Namespace, Name, Outcome, Source, InstallerImage string
	Golden                                           *string
	Disk                                             map[string]any
	StorageClass                                     *struct{ Name, From string }
	Warnings, Refusals                               []finding
}

func decodePlan(t *testing.T, stdout string) []poolOut {
	t.Helper()
	var out struct{ Pools []poolOut }
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("plan -o json is not JSON: %v\n%s", err, stdout)
	}
	return out.Pools
}

func reasons(fs []finding) []finding {
	out := append([]finding(nil), fs...)
	sort.Slice(out, func(i, j int) bool { return out[i].Reason+out[i].Field < out[j].Reason+out[j].Field })
	return out
}

func TestPlanRefusals(t *testing.T) {
	goldenPVCClass := "    storageClassName: replicated\n    volumeMode: Block\n    volumeName: pvc-"
	cases := map[string]struct {
		reason  string
		spec    string
		name    string
		catalog string
		state   []stateEdit
		want    []finding
		warn    string
	}{
		"planned": {
			reason: "a builtin pool on the golden's class plans",
			spec:   "storageClass: replicated\nosImage: {builtin: {}}",
		},
		"StorageClassMismatch": {
			reason: "a disk on another class than the golden's",
			spec:   "storageClass: local\nosImage: {builtin: {}}",
			want:   []finding{{"StorageClassMismatch", "storageClass"}},
		},
		"ConflictingImageSource": {
			reason: "builtin and factory together",
			spec:   "osImage: {builtin: {}, factory: {}}",
			want:   []finding{{"ConflictingImageSource", "osImage"}},
		},
		"InvalidSchematicID": {
			reason: "a schematic ID that is not lowercase letters and digits",
			spec:   "osImage: {builtin: {schematicID: CE4C}}",
			want:   []finding{{"InvalidSchematicID", "osImage.builtin.schematicID"}},
		},
		"InvalidVersion": {
			reason: "a version that is not a release",
			spec:   "osImage: {factory: {version: v1.13}}",
			want:   []finding{{"InvalidVersion", "osImage.factory.version"}},
		},
		"InvalidImageFactoryURL": {
			reason: "a factory that is not http(s)",
			spec:   "osImage: {factory: {imageFactoryURL: 'ftp://factory.talos.dev'}}",
			want:   []finding{{"InvalidImageFactoryURL", "osImage.factory.imageFactoryURL"}},
		},
		"InvalidQuantity": {
			reason: "a clone's diskSize that is no positive quantity",
			spec:   "diskSize: \"0\"\nosImage: {builtin: {}}",
			want:   []finding{{"InvalidQuantity", "diskSize"}},
		},
		"InvalidValue at diskSize": {
			reason: "a diskSize off the values schema's quantity pattern fails the chart's release",
			spec:   "diskSize: lots\nosImage: {builtin: {}}",
			want:   []finding{{"InvalidValue", "diskSize"}},
		},
		"GoldenNotInCatalog": {
			reason: "a flavor the catalog does not hold",
			spec:   "osImage: {builtin: {version: v1.9.9}}",
			want:   []finding{{"GoldenNotInCatalog", "osImage.builtin"}},
		},
		"GoldenNotInCatalog disabled": {
			reason:  "a disabled catalog serves no golden (to a pool that has not cloned it yet)",
			spec:    "osImage: {builtin: {}}",
			name:    "demo-md5",
			catalog: "enabled: false",
			want:    []finding{{"GoldenNotInCatalog", "osImage.builtin"}},
		},
		"GoldenUnavailable": {
			reason:  "a pool that has already cloned is not refused for its golden dropping out of the catalog",
			spec:    "osImage: {builtin: {}}",
			catalog: "enabled: false",
			warn:    "GoldenUnavailable",
		},
		"GoldenImportFailed": {
			reason: "the golden's import failed",
			spec:   "osImage: {builtin: {}}",
			name:   "demo-md5",
			state:  []stateEdit{replaceFirst("    phase: Succeeded", "    phase: Failed")},
			want:   []finding{{"GoldenImportFailed", "osImage.builtin"}},
		},
		"DiskSmallerThanGolden": {
			reason: "a disk smaller than the golden",
			spec:   "diskSize: 5Gi\nosImage: {builtin: {}}",
			want:   []finding{{"DiskSmallerThanGolden", "diskSize"}},
		},
		"DefaultStorageClassUnresolvable": {
			reason: "an empty class on a cluster without a default",
			spec:   "storageClass: ''\nosImage: {builtin: {}}",
			name:   "demo-md5",
			state:  []stateEdit{replaceFirst(`storageclass.kubernetes.io/is-default-class: "true"`, `example.com/note: "x"`)},
			want:   []finding{{"DefaultStorageClassUnresolvable", "storageClass"}},
		},
		"FrozenStorageClassConflict": {
			reason: "the pool's cloned disks are on two classes",
			spec:   "storageClass: ''\nosImage: {builtin: {}}",
			state: []stateEdit{appendDoc(`apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: kubernetes-demo-md0-6b7f9-zzzzz-disk-system
  namespace: tenant-demo
  annotations:
    kubernetes-worker-image.cozystack.io/golden: ` + goldenName + `
    kubernetes-worker-image.cozystack.io/pool: kubernetes-demo-md0
spec:
  storageClassName: local
  resources: {requests: {storage: 20Gi}}
status:
  phase: Bound
`)},
			want: []finding{{"FrozenStorageClassConflict", "storageClass"}},
		},
		"HostAssistedClone": {
			reason: "the CDI resource forces the host-assisted copy",
			spec:   "osImage: {builtin: {}}",
			state:  []stateEdit{replaceFirst("    cloneStrategyOverride: csi-clone\n", "    cloneStrategyOverride: copy\n")},
			want:   []finding{{"HostAssistedClone", "storageClass"}},
		},
		"HostAssistedClone volume mode": {
			reason: "the golden's volume mode differs from the disk's",
			spec:   "osImage: {builtin: {}}",
			state:  []stateEdit{replaceFirst(goldenPVCClass, "    storageClassName: replicated\n    volumeMode: Filesystem\n    volumeName: pvc-")},
			want:   []finding{{"HostAssistedClone", "storageClass"}},
		},
		"InvalidPoolName": {
			reason: "a name that does not start with the cluster's",
			spec:   "osImage: {builtin: {}}",
			name:   "other-md0",
			want:   []finding{{"InvalidPoolName", "metadata.name"}},
		},
		"InvalidValue": {
			reason: "a list where a map belongs",
			spec:   "osImage: [builtin]",
			want:   []finding{{"InvalidValue", "osImage"}},
		},
		"all together": {
			reason: "independent refusals come together",
			spec:   "diskSize: 1Gi\nstorageClass: local\nosImage: {builtin: {}}",
			want:   []finding{{"DiskSmallerThanGolden", "diskSize"}, {"StorageClassMismatch", "storageClass"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			poolName := tc.name
			if poolName == "" {
				poolName = "demo-md0"
			}
			st := readExample(t, exampleState)
			for _, edit := range tc.state {
				st = edit(st)
			}
			cat := exampleCatalog
			if tc.catalog != "" {
				cat = write(t, "catalog.yaml", tc.catalog)
			}
			r := exe(t, "", "plan", "-f", write(t, "pools.yaml", poolDoc(poolName, tc.spec)),
				"--catalog", cat, "--state", write(t, "state.yaml", st), "-o", "json")
			pools := decodePlan(t, r.stdout)
			if len(pools) != 1 {
				t.Fatalf("%s: %d pools, want 1\n%s", tc.reason, len(pools), r.stderr)
			}
			p := pools[0]
			if got := reasons(p.Refusals); !reflect.DeepEqual(got, reasons(tc.want)) {
				t.Errorf("%s: refusals\n-want %v\n+got  %v", tc.reason, tc.want, got)
			}
			if tc.warn != "" && !containsReason(p.Warnings, tc.warn) {
				t.Errorf("%s: warning %s expected: %v", tc.reason, tc.warn, p.Warnings)
			}
			wantCode, wantOutcome := 0, "planned"
			if tc.want != nil {
				wantCode, wantOutcome = 3, "refused"
			}
			if r.code != wantCode || p.Outcome != wantOutcome {
				t.Errorf("%s: exit %d outcome %s, want %d %s\nstderr: %s", tc.reason, r.code, p.Outcome, wantCode, wantOutcome, r.stderr)
			}
		})
	}
}

func TestPlanBuiltin(t *testing.T) {
	pools := write(t, "pools.yaml", poolDoc("demo-md0", "storageClass: replicated\nosImage: {builtin: {}}"))
	r := exe(t, "", "plan", "-f", pools, "--catalog", exampleCatalog, "--state", exampleState)
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\nstderr: %s", r.code, r.stderr)
	}
	for _, want := range []string{
		"tenant-demo/demo-md0: planned, clone of golden " + goldenName + `, on class "replicated" (explicit)`,
		"installer image: factory.talos.dev/installer/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515:v1.13.6",
		"            name: " + goldenName + "\n",
		"1 pool: 1 planned, 0 refused",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if r.stderr != "" {
		t.Errorf("nothing to say on stderr, got:\n%s", r.stderr)
	}
}

func TestPlanExample(t *testing.T) {
	// The README's first command: the embedded example plans every pool.
	r := exe(t, "", "plan", "--example", "-o", "json")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("the example plans: exit %d, want 0\n%s", r.code, r.stderr)
	}
	outcomes := map[string]string{}
	for _, p := range decodePlan(t, r.stdout) {
		outcomes[p.Name] = p.Outcome + " " + p.Source
	}
	if want := map[string]string{"demo-md0": "planned clone", "demo-md1": "planned http"}; !reflect.DeepEqual(outcomes, want) {
		t.Errorf("outcomes %v, want %v", outcomes, want)
	}
	// The walkthrough's refusal, and its one-line fix.
	refused := readExample(t, exampleRefused)
	r = exe(t, "", "plan", "-f", exampleRefused, "--catalog", exampleCatalog, "--state", exampleState, "-o", "json")
	if p := decodePlan(t, r.stdout); r.code != 3 || len(p) != 1 || !reflect.DeepEqual(p[0].Refusals, []finding{{"StorageClassMismatch", "storageClass"}}) {
		t.Errorf("refused.yaml: exit %d, pools %+v", r.code, p)
	}
	fixed := strings.Replace(refused, "  storageClass: local\n", "  storageClass: replicated\n", 1)
	r = exe(t, fixed, "plan", "-f", "-", "--catalog", exampleCatalog, "--state", exampleState, "-o", "json")
	if p := decodePlan(t, r.stdout); r.code != 0 || len(p) != 1 || p[0].Outcome != "planned" || p[0].Source != "clone" {
		t.Errorf("refused.yaml on the golden's class: exit %d, pools %+v\n%s", r.code, p, r.stderr)
	}
}

func TestPlanJSONShape(t *testing.T) {
	r := exe(t, "", "plan", "-f", allExamplePools(t), "--catalog", exampleCatalog, "--state", exampleState, "-o", "json")
	if r.code != 3 {
		t.Fatalf("the example refuses one pool: exit %d, want 3\n%s", r.code, r.stderr)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatal(err)
	}
	pools := out["pools"].([]any)
	planned := []string{"namespace", "name", "outcome", "source", "golden", "disk", "installerImage", "storageClass", "warnings", "refusals"}
	refused := []string{"namespace", "name", "outcome", "source", "golden", "installerImage", "storageClass", "warnings", "refusals"} // no disk
	wantSource := map[string]string{"demo-md0": "clone", "demo-md1": "http"}
	for _, raw := range pools {
		p := raw.(map[string]any)
		want := planned
		if p["outcome"] == "refused" {
			want = refused
		}
		if got := keys(p); !reflect.DeepEqual(got, sorted(want)) {
			t.Errorf("pool %v: keys %v, want %v", p["name"], got, sorted(want))
		}
		if p["outcome"] != "planned" {
			continue
		}
		if p["source"] != wantSource[p["name"].(string)] {
			t.Errorf("pool %v: source %v", p["name"], p["source"])
		}
		if got := keys(p["disk"].(map[string]any)); !reflect.DeepEqual(got, []string{"metadata", "spec"}) {
			t.Errorf("disk keys %v", got)
		}
		if got := keys(p["storageClass"].(map[string]any)); !reflect.DeepEqual(got, []string{"from", "name"}) {
			t.Errorf("storageClass keys %v", got)
		}
		if p["source"] == "http" && p["golden"] != "" {
			t.Errorf("golden is empty on the HTTP path: %v", p["golden"])
		}
	}
	last := pools[2].(map[string]any)
	f := last["refusals"].([]any)[0].(map[string]any)
	if got := keys(f); !reflect.DeepEqual(got, []string{"field", "message", "reason"}) {
		t.Errorf("refusal keys %v", got)
	}
	if !strings.Contains(f["message"].(string), "tenant-demo/demo-gpu") {
		t.Errorf("a refusal's message names the pool: %v", f["message"])
	}
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

func TestPlanYAMLIsTheJSONShape(t *testing.T) {
	r := exe(t, "", "plan", "--example", "-o", "yaml")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "catalog:\n  source: example\npools:\n- disk:\n") {
		t.Errorf("exit %d, stdout:\n%s", r.code, r.stdout)
	}
}

func TestPlanChart(t *testing.T) {
	r := exe(t, "", "plan", "-f", allExamplePools(t), "--catalog", exampleCatalog, "--state", exampleState, "-o", "chart")
	if r.code != 3 {
		t.Fatalf("exit %d, want 3", r.code)
	}
	if strings.Contains(r.stdout, "demo-gpu") {
		t.Errorf("a refused pool prints nothing on stdout:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "pool tenant-demo/demo-gpu: refused StorageClassMismatch at storageClass") {
		t.Errorf("its refusals go to stderr:\n%s", r.stderr)
	}
	// demo-md1 has the chart's defaults: the pre-feature text.
	want := "# tenant-demo/demo-md1\n" + fixtures.PreFeatureDiskSystem
	if !strings.HasPrefix(r.stdout, "# tenant-demo/demo-md0\n      - metadata:\n") || !strings.HasSuffix(r.stdout, want) {
		t.Errorf("each entry after its # line, at the chart's indentation:\n%s", r.stdout)
	}
	if ex := exe(t, "", "plan", "--example", "-o", "chart"); ex.code != 0 || ex.stdout != r.stdout {
		t.Errorf("--example prints the same entries: exit %d\n%s", ex.code, ex.stdout)
	}

	// One pool: no # line, the chart's text alone.
	one := exe(t, "", "plan", "-f", write(t, "p.yaml", poolDoc("demo-md1", "storageClass: replicated")), "-o", "chart")
	if one.code != 0 || one.stdout != strings.TrimPrefix(want, "# tenant-demo/demo-md1\n") {
		t.Errorf("exit %d, stdout:\n%s", one.code, one.stdout)
	}
}

func TestPlanBareValues(t *testing.T) {
	values := write(t, "values.yaml", "cluster: demo\nstorageClass: ''\n")
	r := exe(t, "", "plan", "-f", values, "--name", "demo-md0", "--namespace", "tenant-x", "-o", "json")
	pools := decodePlan(t, r.stdout)
	if r.code != 0 || len(pools) != 1 || pools[0].Namespace != "tenant-x" || pools[0].Name != "demo-md0" {
		t.Fatalf("exit %d, pools %+v\n%s", r.code, pools, r.stderr)
	}
	if sc := pools[0].StorageClass; sc == nil || sc.From != "cluster" || sc.Name != "" {
		t.Errorf(`storageClass "" on the HTTP path is left to the cluster: %+v`, sc)
	}
	// From standard input too.
	r = exe(t, "cluster: demo\n", "plan", "-f", "-", "--name", "demo-md0")
	if r.code != 0 || !strings.Contains(r.stdout, "default/demo-md0: planned") {
		t.Errorf("exit %d, stdout:\n%s", r.code, r.stdout)
	}
}

func TestPlanOffline(t *testing.T) {
	// Without state every kind is unknown: the builtin pool plans with
	// StateUnverified; only what the values prove is refused (demo-gpu's
	// class against the catalog entry's).
	r := exe(t, "", "plan", "-f", allExamplePools(t), "--catalog", exampleCatalog, "-o", "json")
	if r.code != 3 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	outcomes := map[string]string{}
	for _, p := range decodePlan(t, r.stdout) {
		outcomes[p.Name] = p.Outcome
		if p.Source == "clone" && !containsReason(p.Warnings, "StateUnverified") {
			t.Errorf("pool %s: StateUnverified expected: %v", p.Name, p.Warnings)
		}
	}
	want := map[string]string{"demo-md0": "planned", "demo-md1": "planned", "demo-gpu": "refused"}
	if !reflect.DeepEqual(outcomes, want) {
		t.Errorf("outcomes %v, want %v", outcomes, want)
	}
	// A warning is {"reason","field","message"}, and a
	// StateUnverified names the kind it could not read.
	var out struct {
		Pools []struct{ Warnings []map[string]any }
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatal(err)
	}
	for _, p := range out.Pools {
		for _, w := range p.Warnings {
			want := []string{"field", "message", "reason"}
			if w["reason"] == "StateUnverified" {
				// The kind it could not read, and why (offline).
				want = []string{"cause", "field", "kind", "message", "reason"}
			}
			if got := keys(w); !reflect.DeepEqual(got, want) {
				t.Errorf("warning %v: keys %v, want %v", w["reason"], got, want)
			}
		}
	}
}

func containsReason(fs []finding, reason string) bool {
	for _, f := range fs {
		if f.Reason == reason {
			return true
		}
	}
	return false
}

func TestPlanCatalogReadBack(t *testing.T) {
	// Without --catalog the catalog is read back from the goldens in the
	// state: the default flavor's golden is there.
	pools := write(t, "pools.yaml", poolDoc("demo-md0", "storageClass: replicated\nosImage: {builtin: {}}"))
	r := exe(t, "", "plan", "-f", pools, "--state", exampleState, "-o", "json")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if p := decodePlan(t, r.stdout)[0]; p.Golden == nil || *p.Golden != goldenName {
		t.Errorf("golden %v", p.Golden)
	}
}

func TestPlanThousandPools(t *testing.T) {
	var b strings.Builder
	for i := range 1001 {
		b.WriteString("---\n")
		spec := "storageClass: replicated\nosImage: {builtin: {}}"
		if i%2 == 1 {
			spec = "storageClass: replicated"
		}
		b.WriteString(poolDoc(fmt.Sprintf("demo-md%d", i), spec))
	}
	fleet := write(t, "pools.yaml", b.String())
	r := exe(t, "", "plan", "-f", fleet, "--catalog", exampleCatalog, "--state", exampleState, "-o", "json", "--progress")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	pools := decodePlan(t, r.stdout)
	if len(pools) != 1001 {
		t.Fatalf("%d pools, want 1001", len(pools))
	}
	for i, p := range pools {
		if want := fmt.Sprintf("demo-md%d", i); p.Name != want || p.Outcome != "planned" {
			t.Fatalf("pool %d: %s %s, want %s planned", i, p.Name, p.Outcome, want)
		}
	}
	if !strings.Contains(r.stderr, "planned 1001 of 1001 pools") {
		t.Errorf("--progress: a progress line on stderr for a fleet over 1,000 pools:\n%s", r.stderr)
	}
	if quiet := exe(t, "", "plan", "-f", fleet, "--catalog", exampleCatalog, "--state", exampleState, "-o", "json"); quiet.stderr != "" {
		t.Errorf("no progress when standard error is not a terminal, without --progress:\n%s", quiet.stderr)
	}
	few := exe(t, "", "plan", "--example")
	if strings.Contains(few.stderr, "pools\n") {
		t.Errorf("no progress line for a few pools:\n%s", few.stderr)
	}
}

// TestPlanJSONDiskSizeAsGiven: the JSON disk carries diskSize as the chart
// renders it, no positive quantity (HTTP path, with its warning) or not
// canonical.
func TestPlanJSONDiskSizeAsGiven(t *testing.T) {
	for size, warns := range map[string]bool{"-20Gi": true, "20480Mi": false} {
		r := exe(t, "", "plan", "-f", write(t, "p.yaml", poolDoc("demo-md1", "diskSize: "+size)), "-o", "json")
		var out struct {
			Pools []struct {
				Disk struct {
					Spec struct {
						Storage struct {
							Resources struct {
								Requests map[string]string `json:"requests"`
							} `json:"resources"`
						} `json:"storage"`
					} `json:"spec"`
				} `json:"disk"`
				Warnings []finding `json:"warnings"`
			} `json:"pools"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != 0 || len(out.Pools) != 1 {
			t.Fatalf("%q: exit %d, %v\n%s%s", size, r.code, err, r.stdout, r.stderr)
		}
		p := out.Pools[0]
		if got := p.Disk.Spec.Storage.Resources.Requests["storage"]; got != size {
			t.Errorf("%q: disk size %q in the JSON", size, got)
		}
		if got := len(p.Warnings) == 1 && p.Warnings[0] == (finding{"InvalidQuantity", "diskSize"}); got != warns {
			t.Errorf("%q: warnings %v", size, p.Warnings)
		}
	}
}
