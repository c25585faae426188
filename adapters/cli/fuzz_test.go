package cli_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/cozystack/kubernetes-worker-image/adapters/cli"
)

// runFile runs the command in-process on data written to a file, with the
// file's path in place of "FILE" in args. Whatever the file holds, the
// command ends planned, refused, unverified (a --state file that lacks a
// kind) or on unusable input, never on an internal error.
func runFile(t *testing.T, data []byte, args ...string) {
	path := filepath.Join(t.TempDir(), "input.yaml")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	for i, a := range args {
		if a == "FILE" {
			args[i] = path
		}
	}
	var out, errOut bytes.Buffer
	code := cli.Run(args, strings.NewReader(string(data)), &out, &errOut)
	switch code {
	case cli.ExitPlanned, cli.ExitRefused, cli.ExitUnusable, cli.ExitUnverified:
	default:
		t.Fatalf("exit %d on input:\n%s\nstderr:\n%s", code, data, errOut.String())
	}
}

// FuzzPoolFile feeds arbitrary bytes as the POOL file of plan.
func FuzzPoolFile(f *testing.F) {
	f.Add([]byte(poolDoc("demo-md0", "osImage: {builtin: {}}")))
	f.Fuzz(func(t *testing.T, data []byte) {
		runFile(t, data, "plan", "-f", "FILE", "--catalog", exampleCatalog, "--state", exampleState, "-o", "json")
	})
}

// FuzzStateFile feeds arbitrary bytes as the --state file.
func FuzzStateFile(f *testing.F) {
	f.Add([]byte("apiVersion: v1\nkind: List\nitems: []\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		runFile(t, data, "plan", "-f", examplePools, "--catalog", exampleCatalog, "--state", "FILE", "-o", "chart")
	})
}

// FuzzCatalogFile feeds arbitrary bytes as the --catalog file.
func FuzzCatalogFile(f *testing.F) {
	f.Add([]byte("enabled: true\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		runFile(t, data, "catalog", "render", "--catalog", "FILE", "--state", exampleState)
	})
}

// FuzzRenderedManifests feeds arbitrary bytes to helm-verify on stdin.
func FuzzRenderedManifests(f *testing.F) {
	f.Add([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		runFile(t, data, "helm-verify", "--state", exampleState)
	})
}

// FuzzHumanOutput feeds names and annotations, as a tenant or an input can set
// them, through every human-readable output: plan's text, -o wide and -o
// chart's standard error, catalog render, consumers and prune, the notes of a
// --state file, helm-verify's report and computeplane. No control character but
// newline and tab is ever printed raw, and newline and tab only where the
// output itself puts them.
func FuzzHumanOutput(f *testing.F) {
	f.Add("demo-md0", "tenant-demo", "kubernetes-legacy-md0")
	f.Add("demo-md0\n# tenant-demo/forged", "tenant\x1b[2K", "\x1b[1A\x1b[2Kkept (unmanaged, still cloned): 0")
	f.Add("demo-\u0085md0", "\u2028", "\xff\xfe\t\r")
	f.Fuzz(func(t *testing.T, name, namespace, annotation string) {
		dir := t.TempDir()
		put := func(file, text string) string {
			p := filepath.Join(dir, file)
			if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			return p
		}
		q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
		pools := put("pools.yaml", `{"apiVersion":"apps.cozystack.io/v1alpha1","kind":"KubernetesNodes","metadata":{"name":`+q(name)+`,"namespace":`+q(namespace)+`},`+
			`"spec":{"cluster":"demo","storageClass":`+q(annotation)+`,"osImage":{"builtin":{"version":`+q(annotation)+`}},"talos":{"version":`+q(name)+`}}}`+
			"\n---\n"+`{"apiVersion":"apps.cozystack.io/v1alpha1","kind":"KubernetesNodes","metadata":{"name":`+q(name)+`,"namespace":"tenant-demo"},"spec":{"cluster":"demo","talos":{"schematicID":`+q(annotation)+`}}}`+
			"\n---\n"+`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":`+q(name)+`,"namespace":`+q(namespace)+`}}`)
		state := put("state.yaml", readExampleF(t, exampleState)+"\n---\n"+`{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":`+q(name)+`,"namespace":`+q(namespace)+`,`+
			`"annotations":{"kubernetes-worker-image.cozystack.io/pool":`+q(annotation)+`,"kubernetes-worker-image.cozystack.io/golden":"`+legacyGolden+`"}},"spec":{"storageClassName":`+q(annotation)+`},"status":{"phase":"Bound"}}`+
			"\n---\n"+`{"apiVersion":"v1","kind":"Secret","metadata":{"name":`+q(annotation)+`}}`)
		cat := put("catalog.yaml", `{"enabled":true,"images":[{"schematicID":`+q(name)+`,"version":"v1.0.0","storageClass":`+q(annotation)+`}],`+q(annotation)+`:1}`)
		cp := put("cp.yaml", `{"nodeGroups":{`+q(name)+`:{"maxReplicas":1,"roles":["ingress-nginx"],`+q(annotation)+`:1}}}`)
		rendered := `{"apiVersion":"infrastructure.cluster.x-k8s.io/v1alpha1","kind":"KubevirtMachineTemplate","metadata":{"name":"t","namespace":` + q(namespace) + `},` +
			`"spec":{"template":{"spec":{"virtualMachineTemplate":{"spec":{"dataVolumeTemplates":[{"metadata":{"name":"disk-system","annotations":{"kubernetes-worker-image.cozystack.io/pool":` + q(annotation) + `}},` +
			`"spec":{"source":{"pvc":{"namespace":` + q(namespace) + `,"name":` + q(name) + `}},"storage":{"storageClassName":` + q(annotation) + `}}}]}}}}}}`
		for _, run := range []struct {
			stdin string
			args  []string
		}{
			{args: []string{"plan", "-f", pools, "--catalog", cat, "--state", state}},
			{args: []string{"plan", "-f", pools, "--catalog", exampleCatalog}},
			{args: []string{"plan", "-f", pools, "--state", state, "-o", "wide"}},
			{args: []string{"plan", "-f", pools, "--catalog", exampleCatalog, "--state", state, "-o", "chart"}},
			{args: []string{"catalog", "render", "--catalog", cat, "--state", state}},
			{args: []string{"catalog", "consumers", legacyGolden, "--state", state}},
			{args: []string{"catalog", "consumers", name, "--state", state, "-o", "wide"}},
			{args: []string{"catalog", "prune", "--catalog", exampleCatalog, "--state", state, "--observed", "all"}},
			{args: []string{"computeplane", "-f", cp}},
			{stdin: rendered, args: []string{"helm-verify", "--state", state, "--catalog", exampleCatalog}},
			{args: []string{"plan", "-f", pools, "--name", name}},
			{args: []string{"plan", "kubernetesnodes/" + name, "--kubeconfig", put("kc", "apiVersion: v1\nkind: Config\n")}},
		} {
			var out, errOut bytes.Buffer
			cli.Run(run.args, strings.NewReader(run.stdin), &out, &errOut)
			stdout := out.String()
			if len(run.args) > 1 && slices.Contains(run.args, "chart") {
				stdout = "" // the chart's text is YAML for Helm, not for people: its entries parse back (TestChartParsesBackToThePlan)
			}
			for stream, text := range map[string]string{"stdout": stdout, "stderr": errOut.String()} {
				if i := rawControlAt(text); i >= 0 {
					t.Fatalf("%v: %s prints %q raw at %d:\n%q", run.args, stream, text[i:min(i+8, len(text))], i, text)
				}
				for _, v := range []string{name, namespace, annotation} {
					if strings.ContainsAny(v, "\n\t") && len(v) > 3 && strings.Contains(text, v) {
						t.Fatalf("%v: %s prints %q with its newline or tab raw:\n%q", run.args, stream, v, text)
					}
				}
			}
		}
	})
}

// rawControlAt is where text holds a character no human-readable output
// may print raw (a control character but newline and tab, a line or
// paragraph separator, a bidirectional control, a byte that is not
// UTF-8), or -1.
func rawControlAt(text string) int {
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if size == 1 && r == utf8.RuneError || r != '\n' && r != '\t' && (unicode.IsControl(r) || r == '\u2028' || r == '\u2029' ||
			r >= '\u202a' && r <= '\u202e' || r >= '\u2066' && r <= '\u2069') {
			return i
		}
		i += size
	}
	return -1
}

func readExampleF(t *testing.T, path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
