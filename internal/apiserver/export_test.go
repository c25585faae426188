package apiserver

import "testing"

// Separate starts a control plane of the test's own, beside the package's,
// and stops it when the test ends: for a test that reads every namespace
// and compares what it prints with a document, whose cluster must hold
// that document's objects and no other test's. Missing binaries skip the
// test as Get does.
func Separate(t testing.TB) *Env {
	t.Helper()
	e, err := start()
	switch {
	case skips(err):
		t.Skip(err)
	case err != nil:
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.env.Stop(); err != nil {
			t.Errorf("stop the separate kube-apiserver and etcd: %v", err)
		}
	})
	t.Logf("a separate kube-apiserver and etcd started, CRDs installed, in %v", e.Startup)
	return e
}
