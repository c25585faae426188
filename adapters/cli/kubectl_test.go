package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// Issue 18: the CLI follows kubectl's conventions. One test per
// convention, through the binary, against a fake API server on loopback
// that holds the walkthrough's cluster and its pools.

// clusterWithPools is the example state and the example's pools, as a
// cluster holds them.
func clusterWithPools(t *testing.T) *fakeAPI {
	t.Helper()
	return newFakeAPI(t, readExample(t, exampleState)+"\n---\n"+readExample(t, examplePools)+"\n---\n"+readExample(t, exampleRefused))
}

func planNames(t *testing.T, stdout string) []string {
	t.Helper()
	var names []string
	for _, p := range decodePlan(t, stdout) {
		names = append(names, p.Namespace+"/"+p.Name+" "+p.Outcome)
	}
	return names
}

func TestPlanFromTheCluster(t *testing.T) {
	api := clusterWithPools(t)
	kc := kubeconfig(t, "tenant-demo", [2]string{"c", api.URL})
	all := []string{"tenant-demo/demo-md0 planned", "tenant-demo/demo-md1 planned", "tenant-demo/demo-gpu refused"}
	cases := map[string]struct {
		reason string
		args   []string
		code   int
		want   []string
	}{
		"ByName": {
			reason: "kubernetesnodes/NAME plans that pool, in the context's namespace",
			args:   []string{"plan", "kubernetesnodes/demo-md0"},
			want:   all[:1],
		},
		"TypeAndNames": {
			reason: "kubectl's TYPE NAME... form",
			args:   []string{"plan", "kubernetesnodes", "demo-md1", "demo-md0"},
			want:   []string{all[1], all[0]},
		},
		"Namespace": {
			reason: "-n plans every KubernetesNodes of the namespace",
			args:   []string{"plan", "-n", "tenant-demo"},
			code:   3,
			want:   all,
		},
		"AllNamespaces": {
			reason: "-A plans every KubernetesNodes of the cluster",
			args:   []string{"plan", "-A"},
			code:   3,
			want:   all,
		},
		"OtherNamespace": {
			reason: "-n of a namespace without pools plans none, and says so",
			args:   []string{"plan", "--namespace", "tenant-other"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := exe(t, "", append(tc.args, "--kubeconfig", kc, "--catalog", exampleCatalog, "-o", "json")...)
			if got := planNames(t, r.stdout); r.code != tc.code || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s: exit %d, pools %v, want %d %v\n%s", tc.reason, r.code, got, tc.code, tc.want, r.stderr)
			}
		})
	}
	t.Run("NotFound", func(t *testing.T) {
		r := exe(t, "", "plan", "kubernetesnodes/nope", "--kubeconfig", kc)
		if r.code != 1 || !strings.Contains(r.stderr, `"nope" not found in namespace tenant-demo`) {
			t.Errorf("exit %d\n%s", r.code, r.stderr)
		}
	})
	t.Run("SameAsFromFiles", func(t *testing.T) {
		// The same pools plan the same, from the cluster or from files.
		live := exe(t, "", "plan", "-A", "--kubeconfig", kc, "--catalog", exampleCatalog, "-o", "json")
		files := exe(t, "", "plan", "-f", examplePools, "-f", exampleRefused, "--kubeconfig", kc, "--catalog", exampleCatalog, "-o", "json")
		if live.stdout != files.stdout || live.code != files.code {
			t.Errorf("the cluster's pools plan as the files do:\n--- live\n%s\n--- files\n%s", live.stdout, files.stdout)
		}
		state := exe(t, "", "plan", "-f", examplePools, "-f", exampleRefused, "--state", exampleState, "--catalog", exampleCatalog, "-o", "json")
		if live.stdout != state.stdout {
			t.Errorf("and as against the same cluster's dump:\n--- live\n%s\n--- state\n%s", live.stdout, state.stdout)
		}
	})
	t.Run("Usage", func(t *testing.T) {
		for _, args := range [][]string{
			{"plan", "-A", "-f", examplePools},
			{"plan", "kubernetesnodes/demo-md0", "-A"},
			{"plan", "-A", "-n", "tenant-demo"},
			{"plan", "pods/x"},
			{"plan", "kubernetesnodes"},
			{"plan", "-A", "--state", exampleState},
		} {
			if r := exe(t, "", append(args, "--kubeconfig", kc)...); r.code != 2 {
				t.Errorf("%v: exit %d, want 2\n%s", args, r.code, r.stderr)
			}
		}
	})
}

// TestKUBECONFIG: the loading rules are kubectl's: KUBECONFIG names the
// cluster read, --kubeconfig overrides it, --context picks a context.
func TestKUBECONFIG(t *testing.T) {
	api := clusterWithPools(t)
	dead := "https://127.0.0.1:1"
	good := kubeconfig(t, "tenant-demo", [2]string{"good", api.URL}, [2]string{"dead", dead})
	bad := kubeconfig(t, "tenant-demo", [2]string{"dead", dead}, [2]string{"good", api.URL})
	pools := write(t, "pools.yaml", poolDoc("demo-md0", builtinPool))
	plan := []string{"plan", "-f", pools, "--catalog", exampleCatalog, "-o", "json"}
	planned := func(r run) bool {
		p := decodePlan(t, r.stdout)
		return r.code == 0 && len(p) == 1 && p[0].Outcome == "planned" && len(planWarnings(t, r.stdout)) == 0
	}
	if r := exeEnv(t, binary, []string{"KUBECONFIG=" + good}, "", plan...); !planned(r) {
		t.Errorf("KUBECONFIG is read: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := exeEnv(t, binary, []string{"KUBECONFIG=" + bad}, "", plan...); r.code != 1 || !strings.Contains(r.stderr, "127.0.0.1:1") {
		t.Errorf("KUBECONFIG's current context is read: exit %d\n%s", r.code, r.stderr)
	}
	if r := exeEnv(t, binary, []string{"KUBECONFIG=" + bad}, "", append(plan, "--context", "good")...); !planned(r) {
		t.Errorf("--context picks a context: exit %d\n%s", r.code, r.stderr)
	}
	if r := exeEnv(t, binary, []string{"KUBECONFIG=" + bad}, "", append(plan, "--kubeconfig", good)...); !planned(r) {
		t.Errorf("--kubeconfig overrides KUBECONFIG: exit %d\n%s", r.code, r.stderr)
	}
	if r := exe(t, "", append(plan, "--context", "nope", "--kubeconfig", good)...); r.code != 2 || !strings.Contains(r.stderr, `"nope"`) {
		t.Errorf("a context the kubeconfig lacks is unusable input: exit %d\n%s", r.code, r.stderr)
	}
	offline := exe(t, "", plan...)
	if w := planWarnings(t, offline.stdout); offline.code != 0 || len(w) == 0 {
		t.Errorf("without any, offline: exit %d, warnings %v", offline.code, w)
	}
}

// TestNamespaceFlag: -n is the namespace of documents that name none; a
// document in another is an error, as kubectl's.
func TestNamespaceFlag(t *testing.T) {
	noNS := write(t, "pool.yaml", strings.Replace(poolDoc("demo-md1", ""), "  namespace: tenant-demo\n", "", 1))
	r := exe(t, "", "plan", "-f", noNS, "-n", "tenant-x", "-o", "json")
	if got := planNames(t, r.stdout); r.code != 0 || !reflect.DeepEqual(got, []string{"tenant-x/demo-md1 planned"}) {
		t.Errorf("exit %d, pools %v", r.code, got)
	}
	if r := exe(t, "", "plan", "-f", noNS, "-o", "json"); !reflect.DeepEqual(planNames(t, r.stdout), []string{"default/demo-md1 planned"}) {
		t.Errorf("without -n or a context, default: %v", planNames(t, r.stdout))
	}
	api := clusterWithPools(t)
	kc := kubeconfig(t, "tenant-ctx", [2]string{"c", api.URL})
	if r := exe(t, "", "plan", "-f", noNS, "--kubeconfig", kc, "-o", "json"); !reflect.DeepEqual(planNames(t, r.stdout), []string{"tenant-ctx/demo-md1 planned"}) {
		t.Errorf("the context's namespace: %v\n%s", planNames(t, r.stdout), r.stderr)
	}
	other := exe(t, "", "plan", "-f", examplePools, "--namespace", "tenant-x")
	if other.code != 2 || other.stdout != "" || !strings.Contains(other.stderr, `the namespace of KubernetesNodes "demo-md0" is "tenant-demo", which does not match --namespace "tenant-x"`) {
		t.Errorf("exit %d\n%s", other.code, other.stderr)
	}
	if same := exe(t, "", "plan", "-f", examplePools, "-n", "tenant-demo", "--state", exampleState, "--catalog", exampleCatalog); same.code != 0 {
		t.Errorf("the same namespace is fine: exit %d\n%s", same.code, same.stderr)
	}
}

func TestRequestTimeout(t *testing.T) {
	api := clusterWithPools(t)
	api.answerWith(slow(2 * time.Second))
	kc := kubeconfig(t, "tenant-demo", [2]string{"c", api.URL})
	began := time.Now()
	r := exe(t, "", "plan", "-f", examplePools, "--kubeconfig", kc, "--request-timeout", "200ms")
	if r.code != 1 || time.Since(began) > 10*time.Second {
		t.Errorf("a read past --request-timeout fails: exit %d after %v\n%s", r.code, time.Since(began), r.stderr)
	}
	for _, bad := range []string{"soon", "-1"} {
		if r := exe(t, "", "plan", "-f", examplePools, "--request-timeout", bad); r.code != 2 || !strings.Contains(r.stderr, "--request-timeout") {
			t.Errorf("--request-timeout %s: exit %d\n%s", bad, r.code, r.stderr)
		}
	}
	api.answerWith(nil)
	if r := exe(t, "", "plan", "-f", examplePools, "--kubeconfig", kc, "--request-timeout", "30", "--catalog", exampleCatalog); r.code != 0 {
		t.Errorf("an integer is seconds: exit %d\n%s", r.code, r.stderr)
	}
}

func TestOutputFormats(t *testing.T) {
	base := []string{"plan", "-f", examplePools, "--catalog", exampleCatalog, "--state", exampleState}
	j := exe(t, "", append(base, "-o", "json")...)
	for _, form := range [][]string{{"-ojson"}, {"--output", "json"}, {"--output=json"}, {"-o=json"}} {
		if r := exe(t, "", append(base, form...)...); r.code != 0 || r.stdout != j.stdout {
			t.Errorf("%v is -o json: exit %d", form, r.code)
		}
	}
	if y := exe(t, "", append(base, "-oyaml")...); y.code != 0 || !strings.HasPrefix(y.stdout, "catalog:\n  file: "+exampleCatalog+"\n  source: file\npools:\n") {
		t.Errorf("-oyaml: exit %d\n%s", y.code, y.stdout)
	}
	if c := exe(t, "", append(base, "-ochart")...); c.code != 0 || !strings.HasPrefix(c.stdout, "# tenant-demo/demo-md0\n      - metadata:\n") {
		t.Errorf("-ochart: exit %d\n%s", c.code, c.stdout)
	}
	w := exe(t, "", append(base, "-o", "wide")...)
	lines := strings.Split(strings.TrimSpace(w.stdout), "\n")
	if w.code != 0 || len(lines) != 3 || !strings.HasPrefix(lines[0], "NAMESPACE ") || !strings.Contains(lines[1], "demo-md0") ||
		!strings.Contains(lines[1], "replicated (explicit)") || !strings.Contains(lines[2], "https://factory.talos.dev/") {
		t.Errorf("-o wide is a line per pool: exit %d\n%s", w.code, w.stdout)
	}
	cw := exe(t, "", "catalog", "consumers", legacyGolden, "--example", "-o", "wide")
	if cw.code != 0 || !strings.HasPrefix(cw.stdout, "KIND ") || !strings.Contains(cw.stdout, "kubernetes-legacy-md0") {
		t.Errorf("consumers -o wide: exit %d\n%s", cw.code, cw.stdout)
	}
}

func TestFilenames(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"a.yaml": readExample(t, examplePools), "b.yml": readExample(t, exampleRefused), "notes.txt": "not read", "c.json": ""} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	common := []string{"--catalog", exampleCatalog, "--state", exampleState, "-o", "json"}
	want := []string{"tenant-demo/demo-md0 planned", "tenant-demo/demo-md1 planned", "tenant-demo/demo-gpu refused"}
	cases := map[string]struct {
		stdin string
		args  []string
	}{
		"Repeated":     {args: []string{"-f", examplePools, "-f", exampleRefused}},
		"CommaList":    {args: []string{"-f", examplePools + "," + exampleRefused}},
		"LongName":     {args: []string{"--filename", examplePools, "--filename=" + exampleRefused}},
		"Directory":    {args: []string{"-f", dir}},
		"StandardIn":   {stdin: readExample(t, exampleRefused), args: []string{"-f", examplePools, "-f", "-"}},
		"StandardOnly": {stdin: readExample(t, examplePools) + "---\n" + readExample(t, exampleRefused), args: []string{"-f", "-"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := exe(t, tc.stdin, append(append([]string{"plan"}, tc.args...), common...)...)
			if got := planNames(t, r.stdout); r.code != 3 || !reflect.DeepEqual(got, want) {
				t.Errorf("exit %d, pools %v\n%s", r.code, got, r.stderr)
			}
		})
	}
	if r := exe(t, "", "plan", "-f", t.TempDir()); r.code != 2 || !strings.Contains(r.stderr, "is a directory without") {
		t.Errorf("an empty directory: exit %d\n%s", r.code, r.stderr)
	}
	if r := exe(t, "x", "plan", "-f", "-", "-f", "-"); r.code != 2 || !strings.Contains(r.stderr, "standard input (-) is named 2 times") {
		t.Errorf("-f - twice: exit %d\n%s", r.code, r.stderr)
	}
}

func TestVersionAndCompletion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		if r := exe(t, "", args...); r.code != 0 || !strings.HasPrefix(r.stdout, "worker-image version ") {
			t.Errorf("%v: exit %d\n%s", args, r.code, r.stdout)
		}
	}
	for shell, want := range map[string]string{"bash": "__start_worker-image", "zsh": "#compdef worker-image", "fish": "complete -c worker-image"} {
		if r := exe(t, "", "completion", shell); r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("completion %s: exit %d, lacks %q", shell, r.code, want)
		}
	}
	// Completion knows the commands and flags.
	r := exe(t, "", "__complete", "catalog", "")
	for _, want := range []string{"render", "consumers", "prune"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("completion of catalog lacks %s:\n%s", want, r.stdout)
		}
	}
}

// TestFlagsShowTheirValue: help shows flags as kubectl's, --flag VALUE.
func TestFlagsShowTheirValue(t *testing.T) {
	r := exe(t, "", "plan", "-h")
	for _, want := range []string{"-f, --filename POOL.yaml", "--catalog CATALOG.yaml", "--state STATE.yaml", "--observed KIND,...",
		"--kubeconfig PATH", "--context NAME", "-n, --namespace NAMESPACE", "-A, --all-namespaces", "--request-timeout DURATION",
		"-o, --output FORMAT", "--name NAME", "--strict", "--progress"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("plan -h lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, " string ") || strings.Contains(r.stdout, "stringSlice") {
		t.Errorf("a flag shows its type instead of its value:\n%s", r.stdout)
	}
	v := exe(t, "", "helm-verify", "-h")
	for _, want := range []string{"--strict ", "(default true)", "--report-to PATH", "-n, --namespace NAMESPACE", "--context NAME"} {
		if !strings.Contains(v.stdout, want) {
			t.Errorf("helm-verify -h lacks %q:\n%s", want, v.stdout)
		}
	}
}

func TestBareValuesHint(t *testing.T) {
	values := write(t, "values.yaml", "cluster: demo\nstorageClass: replicated\n")
	r := exe(t, "", "plan", "-f", values)
	if r.code != 2 || !strings.Contains(r.stderr, "bare values (its spec), pass --name NAME") {
		t.Errorf("bare values without --name say how: exit %d\n%s", r.code, r.stderr)
	}
}

// TestHelmVerifyNotAGolden: helm-verify refuses a disk that clones a
// volume that is not a golden of the catalog, through the CLI.
func TestHelmVerifyNotAGolden(t *testing.T) {
	clone := chartDisk(t, builtinPool)
	tenant := render(t, strings.Replace(clone, "namespace: cozy-public", "namespace: other-tenant", 1))
	r := exe(t, tenant, "helm-verify", "--state", exampleState, "--catalog", exampleCatalog)
	if r.code != 3 || r.stdout != "" || !strings.Contains(r.stderr, "refused NotAGolden at spec.template.spec.virtualMachineTemplate.spec.dataVolumeTemplates[0].spec.source.pvc.namespace") {
		t.Errorf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
}

// TestHelmPluginReport: run as a Helm 4 plugin (HELM_PLUGIN_NAME set),
// helm-verify writes its report to its parent's standard error, which
// Helm 4 does not swallow, as well as to its own, which it does. The
// parent is this test's binary standing in for Helm (helmParent): it runs
// the command as Helm 4's subprocess runtime does, dropping its output.
func TestHelmPluginReport(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd/2"); err != nil {
		t.Skip("no /proc: the plugin writes to the terminal instead")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	onLocal := render(t, strings.Replace(chartDisk(t, builtinPool), `storageClassName: "replicated"`, `storageClassName: "local"`, 1))
	argv, _ := json.Marshal([]string{binary, "helm-verify", "--state", exampleState})
	r := exeEnv(t, self, []string{helmParentEnv + "=" + string(argv)}, onLocal)
	if r.code != 3 || !strings.Contains(r.stderr, "refused StorageClassMismatch") || !strings.Contains(r.stderr, "nothing was written") {
		t.Errorf("the refusal reaches Helm's standard error: exit %d\n%s", r.code, r.stderr)
	}
	clean := render(t, chartDisk(t, builtinPool))
	if r := exeEnv(t, self, []string{helmParentEnv + "=" + string(argv)}, clean); r.code != 0 || r.stderr != "" {
		t.Errorf("a clean render says nothing: exit %d\n%s", r.code, r.stderr)
	}
	report := filepath.Join(t.TempDir(), "report.txt")
	exe(t, onLocal, "helm-verify", "--state", exampleState, "--report-to", report)
	if data, err := os.ReadFile(report); err != nil || !strings.Contains(string(data), "refused StorageClassMismatch") {
		t.Errorf("--report-to gets the report: %v\n%s", err, data)
	}
}

func decodeJSON(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("%v\n%s", err, s)
	}
}
