package cli_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVersionHasTheCommit: --version names the commit the binary was
// built from, which the Go toolchain records from the work tree.
func TestVersionHasTheCommit(t *testing.T) {
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skip("not built from a git work tree")
	}
	rev := strings.TrimSpace(string(out))
	// The build records the commit unless told not to (-buildvcs=false,
	// which a GOFLAGS may hold): build one that does.
	stamped := filepath.Join(t.TempDir(), "worker-image")
	if out, err := exec.Command("go", "build", "-buildvcs=true", "-o", stamped, "./cmd/worker-image").CombinedOutput(); err != nil {
		t.Skipf("build with -buildvcs=true: %v\n%s", err, out)
	}
	if out, _ := exec.Command("go", "version", "-m", stamped).Output(); !strings.Contains(string(out), "vcs.revision") {
		t.Skip("the toolchain recorded no commit here (versionOf's own test checks the text)")
	}
	for _, args := range [][]string{{"--version"}, {"version"}} {
		if r := exePath(t, stamped, "", args...); r.code != 0 || !strings.Contains(r.stdout, "(commit "+rev) {
			t.Errorf("%v: exit %d, want the commit %s\n%s", args, r.code, rev, r.stdout)
		}
	}
}

// TestChartDefaultClassIsNotExplicit: a pool that sets no storageClass is
// on the chart's default class, and the text says so rather than
// "(explicit)"; one that sets it is explicit.
func TestChartDefaultClassIsNotExplicit(t *testing.T) {
	pools := write(t, "pools.yaml", poolDoc("demo-md0", "osImage: {builtin: {}}")+"---\n"+poolDoc("demo-md1", builtinPool))
	r := exe(t, "", "plan", "-f", pools, "--catalog", exampleCatalog, "--state", exampleState)
	if !strings.Contains(r.stdout, `tenant-demo/demo-md0: planned, clone of golden `+goldenName+`, on class "replicated" (the chart's default)`) ||
		!strings.Contains(r.stdout, `tenant-demo/demo-md1: planned, clone of golden `+goldenName+`, on class "replicated" (explicit)`) {
		t.Errorf("exit %d\n%s", r.code, r.stdout)
	}
	w := exe(t, "", "plan", "-f", pools, "--catalog", exampleCatalog, "--state", exampleState, "-o", "wide")
	if !strings.Contains(w.stdout, "replicated (the chart's default)") || !strings.Contains(w.stdout, "replicated (explicit)") {
		t.Errorf("-o wide:\n%s", w.stdout)
	}
}

// TestWideSaysEachReasonOnce: -o wide lists a reason once however many
// kinds or fields it is about.
func TestWideSaysEachReasonOnce(t *testing.T) {
	api := newFakeAPI(t, readExample(t, exampleState))
	api.answerWith(forbiddenResources)
	kc := kubeconfig(t, "tenant-demo", [2]string{"c", api.URL})
	pools := write(t, "pools.yaml", poolDoc("demo-md0", builtinPool))
	r := exe(t, "", "plan", "-f", pools, "--catalog", exampleCatalog, "--kubeconfig", kc, "-o", "wide")
	if strings.Count(r.stdout, "StateUnverified") != 1 {
		t.Errorf("exit %d\n%s", r.code, r.stdout)
	}
}
