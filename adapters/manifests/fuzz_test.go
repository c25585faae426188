package manifests_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/cozystack/kubernetes-worker-image/adapters/manifests"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
)

// FuzzRead feeds Read anything: it never panics, and it either reads the
// input or refuses it with an *Error whose line is in the file.
func FuzzRead(f *testing.F) {
	objs := fixtures.Cluster()
	f.Add(fixtures.ListYAML(objs...))
	f.Add(fixtures.DocumentsYAML(objs[:4]...))
	f.Add([]byte("---\n--- # c\napiVersion: v1\nkind: List\nitems:\n- metadata: {name: a}\n"))
	f.Add([]byte("apiVersion: storage.k8s.io/v1\nkind: StorageClassList\nitems: [{metadata: {name: a}}]\n"))
	f.Add([]byte("{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeClaim\",\"metadata\":{\"name\":\"a\",\"namespace\":\"t\"},\"spec\":{\"resources\":{\"requests\":{\"storage\":\"1Gi\"}}}}"))
	f.Add([]byte("a: [1\n--- x\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		rr, err := manifests.Read("fuzz.yaml", bytes.NewReader(in))
		st := rr.State
		if err == nil {
			if st == nil {
				t.Fatal("no error and no state")
			}
			return
		}
		var e *manifests.Error
		if !errors.As(err, &e) {
			t.Fatalf("want *manifests.Error, got %T %v", err, err)
		}
		if lines := bytes.Count(in, []byte("\n")) + 1; e.Line < 1 || e.Line > lines {
			t.Fatalf("line %d outside the file's %d lines: %v", e.Line, lines, err)
		}
	})
}
