package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cozystack/kubernetes-worker-image/adapters/cli"
)

// runFile runs the command in-process on data written to a file, with the
// file's path in place of "FILE" in args. Whatever the file holds, the
// command ends planned, refused or on unusable input, never on an internal
// error.
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
	case cli.ExitPlanned, cli.ExitRefused, cli.ExitUnusable:
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
