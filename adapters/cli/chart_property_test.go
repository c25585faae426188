package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"
	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/adapters/cli"
)

// hostile draws text from an alphabet of what breaks YAML and lines:
// newlines, carriage returns, ESC, NEL and the line separator, "#", ":",
// "-", quotes, spaces, and the letters of valid names.
func hostile(t *rapid.T, label string) string {
	return rapid.Custom(func(t *rapid.T) string {
		valid := rapid.SampledFrom([]string{"demo-md0", "demo-md1", "tenant-demo", "v1.13.6", "ce4c98", "demo"}).Draw(t, "base")
		if rapid.Bool().Draw(t, "clean") {
			return valid
		}
		parts := rapid.SliceOfN(rapid.SampledFrom([]string{
			"\n", "\r", "\x1b[2K", "\u0085", "\u2028", "# ", ": ", "- ", "\"", "'", " ", "\t", "{", "}", "[", "/", "a", "md0", "\n      - metadata:\n          name: disk-system\n",
		}), 1, 6).Draw(t, "parts")
		return valid + strings.Join(parts, "")
	}).Draw(t, label)
}

// entry is one disk-system entry of -o chart, after its header.
type entry struct {
	header string
	text   string
}

// chartEntries splits -o chart's output at its "# " lines.
func chartEntries(out string, headers bool) []entry {
	if !headers {
		if out == "" {
			return nil
		}
		return []entry{{text: out}}
	}
	var es []entry
	if out == "" {
		return nil
	}
	for _, line := range strings.SplitAfter(strings.TrimSuffix(out, "\n"), "\n") {
		if h, ok := strings.CutPrefix(line, "# "); ok {
			es = append(es, entry{header: strings.TrimSuffix(h, "\n")})
			continue
		}
		if len(es) == 0 {
			es = append(es, entry{header: "(none)"})
		}
		es[len(es)-1].text += line
	}
	if len(es) > 0 {
		es[len(es)-1].text += "\n"
	}
	return es
}

// TestChartParsesBackToThePlan: for any pool text, -o chart's headers and
// entries parse back to exactly the planned pools, in order, each entry
// the disk its plan says: no input can add, remove or reorder an entry.
// A planned pool whose text would not parse back is withheld, and says
// so on standard error.
func TestChartParsesBackToThePlan(t *testing.T) {
	dir := t.TempDir()
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 4).Draw(t, "pools")
		var docs []string
		for i := range n {
			spec := map[string]any{"cluster": "demo"}
			if rapid.Bool().Draw(t, "builtin") {
				spec["osImage"] = map[string]any{"builtin": map[string]any{}}
				spec["storageClass"] = "replicated"
			}
			talos := map[string]any{}
			for _, k := range []string{"version", "schematicID", "imageFactoryURL"} {
				if rapid.Bool().Draw(t, "set "+k) {
					talos[k] = hostile(t, k)
				}
			}
			spec["talos"] = talos
			if rapid.Bool().Draw(t, "diskSize") {
				spec["diskSize"] = hostile(t, "diskSize")
			}
			doc := map[string]any{
				"apiVersion": "apps.cozystack.io/v1alpha1", "kind": "KubernetesNodes",
				"metadata": map[string]any{"name": hostile(t, "name"), "namespace": hostile(t, "namespace")},
				"spec":     spec,
			}
			data, _ := json.Marshal(doc)
			docs = append(docs, string(data))
			_ = i
		}
		file := filepath.Join(dir, "pools.yaml")
		if err := os.WriteFile(file, []byte(strings.Join(docs, "\n---\n")), 0o600); err != nil {
			t.Fatal(err)
		}
		args := []string{"plan", "-f", file, "--catalog", exampleCatalog, "--state", exampleState}
		var jout, cout, cerr bytes.Buffer
		cli.Run(append(args, "-o", "json"), strings.NewReader(""), &jout, &bytes.Buffer{})
		cli.Run(append(args, "-o", "chart"), strings.NewReader(""), &cout, &cerr)
		var plan struct {
			Pools []struct {
				Namespace, Name, Outcome string
				Disk                     map[string]any
			}
		}
		if err := json.Unmarshal(jout.Bytes(), &plan); err != nil {
			t.Fatalf("plan -o json: %v\n%s", err, jout.String())
		}
		entries := chartEntries(cout.String(), len(plan.Pools) > 1)
		withheld := strings.Count(cerr.String(), ": not printed: its chart text would not parse back")
		var printed []int
		for i, p := range plan.Pools {
			if p.Outcome == "planned" {
				printed = append(printed, i)
			}
		}
		if len(entries)+withheld != len(printed) {
			t.Fatalf("%d entries and %d withheld, for %d planned pools\nstdout:\n%s\nstderr:\n%s", len(entries), withheld, len(printed), cout.String(), cerr.String())
		}
		// The entries are a subsequence of the planned pools, in order,
		// each the disk of the pool it stands for. Two pools may share a
		// namespace and name, one of them withheld: an entry is the next
		// planned pool's of its header whose disk it is.
		k := 0
		for _, e := range entries {
			var items []map[string]any
			if err := yaml.Unmarshal([]byte(e.text), &items); err != nil || len(items) != 1 {
				t.Fatalf("%s: the entry is not one list item (%v):\n%s", e.header, err, e.text)
			}
			first := ""
			for ; k < len(printed); k++ {
				p := plan.Pools[printed[k]]
				if len(plan.Pools) > 1 && e.header != p.Namespace+"/"+p.Name {
					continue
				}
				d := diskDiff(items[0], p.Disk)
				if d == "" {
					break
				}
				if first == "" {
					first = p.Namespace + "/" + p.Name + ": " + d
				}
			}
			if k == len(printed) {
				t.Fatalf("entry %q is no planned pool's disk, in order (%s)\nstdout:\n%s", e.header, first, cout.String())
			}
			k++
		}
	})
}

// diskDiff says where a disk-system entry read back from the chart text
// differs from the plan's disk, "" where it does not.
func diskDiff(got, want map[string]any) string {
	for _, path := range [][]string{{"metadata", "name"}, {"metadata", "annotations"}, {"spec", "source"}, {"spec", "storage", "resources", "requests", "storage"}, {"spec", "storage", "storageClassName"}} {
		if g, w := at(got, path...), at(want, path...); !reflect.DeepEqual(g, w) {
			return fmt.Sprintf("%v is %#v in the chart text, %#v in the plan", path, g, w)
		}
	}
	return ""
}

func at(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}
