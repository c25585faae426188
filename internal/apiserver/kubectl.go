package apiserver

import (
	"bytes"
	"os"
	"os/exec"
	"slices"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// Kubectl runs kubectl as the admin and returns its standard output. The
// build script builds kubectl beside the server unless told not to
// (ENVTEST_WITH_KUBECTL=0); without it the test is skipped, since nothing
// else of the suite needs it.
func (e *Env) Kubectl(t testing.TB, args ...string) []byte {
	t.Helper()
	path, opts := e.adminKubectl(t)
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(path, append(opts, args...)...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("kubectl %v: %v: %s", args, err, stderr.Bytes())
	}
	return stdout.Bytes()
}

// KubectlIn runs kubectl as the admin in folder dir, as a reader runs it
// from there, and returns what it prints (standard error, then standard
// output) and its error: a command that fails is a result here, not a
// test failure. Without kubectl the test is skipped, as by Kubectl.
func (e *Env) KubectlIn(t testing.TB, dir string, args ...string) ([]byte, error) {
	t.Helper()
	path, opts := e.adminKubectl(t)
	cmd := exec.Command(path, append(opts, args...)...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return append(stderr.Bytes(), stdout.Bytes()...), err
}

// adminKubectl is kubectl's path and the options that make it the
// admin of this control plane; without kubectl the test is skipped.
func (e *Env) adminKubectl(t testing.TB) (string, []string) {
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
	return k.Path, slices.Clone(k.Opts)
}
