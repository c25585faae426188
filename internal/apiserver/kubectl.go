package apiserver

import (
	"io"
	"os"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// Kubectl runs kubectl as the admin and returns its standard output. The
// build script builds kubectl beside the server unless told not to
// (ENVTEST_WITH_KUBECTL=0); without it the test is skipped, since nothing
// else of the suite needs it.
func (e *Env) Kubectl(t testing.TB, args ...string) []byte {
	t.Helper()
	if fi, err := os.Stat(e.env.ControlPlane.KubectlPath); err != nil || fi.IsDir() {
		t.Skipf("no kubectl at %q: %s builds it unless ENVTEST_WITH_KUBECTL=0", e.env.ControlPlane.KubectlPath, BuildScript)
	}
	admin, err := e.env.AddUser(envtest.User{Name: "kubectl-admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatalf("kubectl user: %v", err)
	}
	k, err := admin.Kubectl()
	if err != nil {
		t.Fatalf("kubectl: %v", err)
	}
	stdout, stderr, err := k.Run(args...)
	if err != nil {
		msg, _ := io.ReadAll(stderr)
		t.Fatalf("kubectl %v: %v: %s", args, err, msg)
	}
	out, err := io.ReadAll(stdout)
	if err != nil {
		t.Fatalf("kubectl %v: %v", args, err)
	}
	return out
}
