package manifests

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// readGeneral reads data the general way only, as Read did before it had
// a fast path: every document through Documents, every object through
// runtime's unstructured converter.
func readGeneral(name string, data []byte) (Result, error) {
	c := collector{st: &state.State{Observed: state.AllKinds}, index: map[state.Ref]int{}}
	docs, err := documents(name, data, 1)
	if err != nil {
		return Result{}, err
	}
	for _, d := range docs {
		o := d.Object
		if err := c.take(name, object{line: d.Line, apiVersion: o.GetAPIVersion(), kind: o.GetKind(),
			namespace: o.GetNamespace(), name: o.GetName(), slot: -1, u: o.Object}); err != nil {
			return Result{}, err
		}
	}
	return c.result()
}

// sameAsGeneral checks Read against readGeneral on data: the same State,
// notes and kinds held, or the same error at the same line.
func sameAsGeneral(t *testing.T, data []byte) {
	t.Helper()
	got, gerr := Read("f.yaml", bytes.NewReader(data))
	want, werr := readGeneral("f.yaml", data)
	if werr != nil || gerr != nil {
		var g, w *Error
		if !errors.As(gerr, &g) || !errors.As(werr, &w) || *g != *w && g.Error() != w.Error() {
			t.Fatalf("Read: %v\ngeneral path: %v\ninput:\n%s", gerr, werr, data)
		}
		if g.Line != w.Line || g.Problem != w.Problem || g.Error() != w.Error() {
			t.Fatalf("Read: %v\ngeneral path: %v\ninput:\n%s", gerr, werr, data)
		}
		return
	}
	if !reflect.DeepEqual(got.State, want.State) {
		t.Fatalf("Read's State differs from the general path's:\n%#v\n%#v\ninput:\n%s", got.State, want.State, data)
	}
	if !reflect.DeepEqual(got.Notes, want.Notes) || got.Held != want.Held || got.objects != want.objects {
		t.Fatalf("Read: %v %v %d\ngeneral path: %v %v %d\ninput:\n%s", got.Notes, got.Held, got.objects, want.Notes, want.Held, want.objects, data)
	}
}

// FuzzReadAsGeneral feeds Read anything and compares it with the general
// path alone: whatever the fast path takes, it reads as the general path
// does, and whatever it declines, the general path reads.
func FuzzReadAsGeneral(f *testing.F) {
	objs := fixtures.Cluster()
	f.Add(fixtures.ListYAML(objs...))
	f.Add(fixtures.DocumentsYAML(objs[:4]...))
	small := fleet.Served(fleet.State(fleet.Size{Goldens: 1, StorageClasses: 1, PVCs: 2, Namespaces: 1, DataVolumes: true}))
	for _, format := range []fleet.Format{fleet.YAMLList, fleet.YAMLDocuments, fleet.JSONList, fleet.JSONDocuments} {
		data, err := fleet.Print(small, format)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("apiVersion: storage.k8s.io/v1\nkind: StorageClassList\nitems:\n- metadata: {name: a}\n  provisioner: p\n"))
	f.Add([]byte("{\"apiVersion\": \"v1\", \"kind\": \"PersistentVolumeClaimList\", \"items\": [{\"metadata\": {\"name\": \"a\", \"namespace\": \"t\"}}]}"))
	f.Add([]byte("---\n--- # c\napiVersion: v1\nkind: List\nitems:\n- metadata: {name: a}\n"))
	f.Add([]byte("a: [1\n--- x\n"))
	// Keys repeated: in an item, in a List's own keys, in JSON.
	f.Add([]byte("apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: PersistentVolumeClaim\n  metadata: {name: a, namespace: t}\n  kind: PersistentVolumeClaim\nkind: List\n"))
	f.Add([]byte("{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [{\"apiVersion\": \"v1\", \"apiVersion\": \"v1\"}], \"kind\": \"List\"}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sameAsGeneral(t, data)
	})
}

func TestReadAsGeneral(t *testing.T) {
	objs := fixtures.Cluster()
	st := fleet.Served(fleet.State(fleet.Size{Goldens: 3, StorageClasses: 2, PVCs: 20, Namespaces: 3, DataVolumes: true}))
	inputs := map[string][]byte{
		"FixturesList":      fixtures.ListYAML(objs...),
		"FixturesDocuments": fixtures.DocumentsYAML(objs...),
	}
	for _, format := range []fleet.Format{fleet.YAMLList, fleet.YAMLDocuments, fleet.JSONList, fleet.JSONDocuments} {
		data, err := fleet.Print(st, format)
		if err != nil {
			t.Fatal(err)
		}
		inputs["Served"+format.String()] = data
	}
	for name, data := range inputs {
		t.Run(name, func(t *testing.T) { sameAsGeneral(t, data) })
	}
}
