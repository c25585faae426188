package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cozystack/kubernetes-worker-image/adapters/cli"
)

// hugeQuantity is a quantity text of two million digits, which
// resource.ParseQuantity takes seconds on.
var hugeQuantity = strings.Repeat("9", 2_000_000)

// BenchmarkHostileQuantity runs plan on a POOL file whose diskSize, and on
// a --state file whose PVC's size, is two million digits: the pool is
// refused and the state file unusable, on the text's length, in the time
// of an ordinary run.
func BenchmarkHostileQuantity(b *testing.B) {
	dir := b.TempDir()
	write := func(name, data string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			b.Fatal(err)
		}
		return path
	}
	pools := write("pools.yaml", poolDoc("demo-md0", "diskSize: \""+hugeQuantity+"\"\nosImage: {builtin: {}}"))
	st := write("state.yaml", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: PersistentVolumeClaim\n  metadata: {name: x, namespace: tenant-demo}\n  spec:\n    resources:\n      requests:\n        storage: \""+hugeQuantity+"\"\n")
	for _, c := range []struct {
		name string
		args []string
		want int
	}{
		{"plan -f", []string{"plan", "-f", pools, "--catalog", exampleCatalog, "--state", exampleState, "-o", "json"}, cli.ExitRefused},
		{"--state", []string{"plan", "-f", examplePools, "--catalog", exampleCatalog, "--state", st}, cli.ExitUnusable},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var out, errOut bytes.Buffer
				if code := cli.Run(c.args, strings.NewReader(""), &out, &errOut); code != c.want {
					b.Fatalf("exit %d, want %d: %.500s", code, c.want, errOut.String())
				}
				if !strings.Contains(out.String()+errOut.String(), "64 characters") {
					b.Fatalf("the limit is not named: %.500s %.500s", out.String(), errOut.String())
				}
			}
		})
	}
}
