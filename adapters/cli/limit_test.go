package cli_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// exeStdinFile runs the binary with standard input read from path (such
// as /dev/zero, which a string cannot stand for) and env added.
func exeStdinFile(t *testing.T, path string, env []string, args ...string) run {
	t.Helper()
	in, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	cmd := exec.Command(binary, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "KUBECONFIG=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdin = in
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	code := 0
	if err := cmd.Run(); err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("run %v: %v", args, err)
		}
		code = ee.ExitCode()
	}
	return run{code: code, stdout: out.String(), stderr: errOut.String()}
}

// TestEveryInputIsBounded: /dev/zero as any input the command reads ends
// in exit 2 naming the bound and the flag that raises it, never in a read
// without end. The bound is lowered to 1 MiB here so that each case reads
// only that much; TestDefaultInputBound checks the default.
func TestEveryInputIsBounded(t *testing.T) {
	const zero = "/dev/zero"
	if _, err := os.Stat(zero); err != nil {
		t.Skip("no /dev/zero here")
	}
	limit := []string{"--max-input-bytes=1Mi"}
	pools := write(t, "pools.yaml", poolDoc("demo-md0", builtinPool))
	cases := map[string]struct {
		args  []string
		stdin bool
		env   []string
		name  string
	}{
		"plan -f":                       {args: []string{"plan", "-f", zero}, name: zero},
		"plan -f -":                     {args: []string{"plan", "-f", "-"}, stdin: true, name: "<stdin>"},
		"plan --state":                  {args: []string{"plan", "-f", pools, "--catalog", exampleCatalog, "--state", zero}, name: zero},
		"plan --state -":                {args: []string{"plan", "-f", pools, "--catalog", exampleCatalog, "--state", "-"}, stdin: true, name: "<stdin>"},
		"plan --catalog":                {args: []string{"plan", "-f", pools, "--catalog", zero}, name: zero},
		"plan --kubeconfig":             {args: []string{"plan", "-f", pools, "--catalog", exampleCatalog, "--kubeconfig", zero}, name: "kubeconfig " + zero},
		"plan KUBECONFIG":               {args: []string{"plan", "-f", pools, "--catalog", exampleCatalog}, env: []string{"KUBECONFIG=" + zero}, name: "kubeconfig " + zero},
		"helm-verify":                   {args: []string{"helm-verify", "--state", exampleState}, stdin: true, name: "<stdin>"},
		"diff --cozystack-values":       {args: []string{"diff", "--example", "--set", "talos.version=v1.13.7", "--cozystack-values", zero}, name: zero},
		"diff --after-catalog":          {args: []string{"diff", "--example", "--after-catalog", zero}, name: zero},
		"diff --after-pools":            {args: []string{"diff", "--example", "--after-pools", zero}, name: zero},
		"catalog render --catalog":      {args: []string{"catalog", "render", "--catalog", zero}, name: zero},
		"catalog prune --state":         {args: []string{"catalog", "prune", "--catalog", exampleCatalog, "--state", zero}, name: zero},
		"catalog consumers --state":     {args: []string{"catalog", "consumers", legacyGolden, "--state", zero}, name: zero},
		"computeplane -f":               {args: []string{"computeplane", "-f", zero}, name: zero},
		"webhook manifests --ca-bundle": {args: []string{"webhook", "manifests", "--image", "x", "--ca-bundle", zero}, name: zero},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			args := append(append([]string{}, tc.args...), limit...)
			var r run
			if tc.stdin {
				r = exeStdinFile(t, zero, tc.env, args...)
			} else {
				r = exeStdinFile(t, os.DevNull, tc.env, args...)
			}
			want := fmt.Sprintf("%s is larger than 1Mi (1048576 bytes), the limit of one input; if it is meant to be that large, raise the limit with --max-input-bytes=2097152", tc.name)
			if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, want) {
				t.Errorf("exit %d, want 2 saying %q\nstdout:\n%s\nstderr:\n%s", r.code, want, r.stdout, r.stderr)
			}
		})
	}
}

// TestDefaultInputBound: without the flag the bound is 256 MiB.
func TestDefaultInputBound(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero here")
	}
	r := exeStdinFile(t, "/dev/zero", nil, "helm-verify", "--state", exampleState)
	if want := "<stdin> is larger than 256Mi (268435456 bytes)"; r.code != 2 || !strings.Contains(r.stderr, want) {
		t.Errorf("exit %d, want 2 saying %q\nstderr:\n%s", r.code, want, r.stderr)
	}
}

// TestInputBoundEdge: a regular file of exactly the bound is read; one
// byte more is refused from its size, before it is read.
func TestInputBoundEdge(t *testing.T) {
	data := readExample(t, examplePools)
	n := len(data)
	at := exe(t, "", "plan", "-f", examplePools, "--catalog", exampleCatalog, "--state", exampleState, fmt.Sprintf("--max-input-bytes=%d", n+len(readExample(t, exampleState))))
	if at.code != 0 {
		t.Errorf("within the bound: exit %d\n%s", at.code, at.stderr)
	}
	for _, p := range []string{examplePools, exampleState} {
		size := len(readExample(t, p))
		r := exe(t, "", "plan", "-f", examplePools, "--catalog", exampleCatalog, "--state", exampleState, fmt.Sprintf("--max-input-bytes=%d", size-1))
		if r.code != 2 || !strings.Contains(r.stderr, p+" is larger than") {
			t.Errorf("%s one byte over the bound: exit %d\n%s", p, r.code, r.stderr)
		}
	}
	for _, bad := range []string{"0", "-1", "ten", strings.Repeat("9", 70)} {
		if r := exe(t, "", "plan", "--example", "--max-input-bytes="+bad); r.code != 2 || !strings.Contains(r.stderr, "max-input-bytes") {
			t.Errorf("--max-input-bytes=%s: exit %d\n%s", bad, r.code, r.stderr)
		}
	}
}
