package manifests_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cozystack/kubernetes-worker-image/adapters/manifests"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

func TestReadCluster(t *testing.T) {
	objs := fixtures.Cluster()
	for name, in := range map[string][]byte{
		"List":      fixtures.ListYAML(objs...),
		"Documents": fixtures.DocumentsYAML(objs...),
	} {
		t.Run(name, func(t *testing.T) {
			rr, err := manifests.Read("state.yaml", strings.NewReader(string(in)))
			st, notes := rr.State, rr.Notes
			require.NoError(t, err)
			assert.Empty(t, notes, "every object of the cluster is of a kind the planner reads")
			assert.Equal(t, state.AllKinds, st.Observed, "a file is a full observation")
			assert.Nil(t, st.Namespaces, "a file covers every namespace")
			assert.Len(t, st.StorageClasses, 3)
			assert.Len(t, st.CSIDrivers, 2)
			assert.Len(t, st.StorageProfiles, 2)
			assert.Len(t, st.CDIs, 1)
			assert.Len(t, st.DataVolumes, 2)
			assert.Len(t, st.PersistentVolumeClaims, 4)

			snap := state.NewSnapshot(st)
			assert.Equal(t, fixtures.ReplicatedClass, stateindex.Of(snap).DefaultClass().Name, "the GA default outranks the newer beta one")
			golden := stateindex.Of(snap).Disk("cozy-public", fixtures.Golden)
			require.NotNil(t, golden.DataVolume)
			require.NotNil(t, golden.PVC)
			assert.Equal(t, "6Gi", golden.PVC.Status.Capacity.Storage().String())
			assert.Len(t, stateindex.Of(snap).ClonedDisks(fixtures.TenantNamespace, "kubernetes-"+fixtures.PoolName, fixtures.Golden), 1)
			assert.True(t, stateindex.Of(snap).Covers(state.DataVolume, "cozy-public", fixtures.OldGolden), "the file says the old golden's DataVolume is gone")
		})
	}
}

func TestReadEmptyObservesEverything(t *testing.T) {
	rr, err := manifests.Read("state.yaml", strings.NewReader("# nothing here\n"))
	st, notes := rr.State, rr.Notes
	require.NoError(t, err)
	assert.Empty(t, notes)
	assert.Equal(t, state.AllKinds, st.Observed, "a kind with no object in the file is observed as empty, not unknown")
	snap := state.NewSnapshot(st)
	assert.True(t, stateindex.Of(snap).Observed(state.StorageClass))
	assert.Equal(t, "", stateindex.Of(snap).DefaultClass().Name)
	assert.True(t, stateindex.Of(snap).DefaultClass().Known, "no default class, known")
}

func TestReadNotes(t *testing.T) {
	in := `apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web, namespace: default}
- apiVersion: apps.cozystack.io/v1alpha1
  kind: KubernetesNodes
  metadata: {name: demo-md0, namespace: tenant-demo}
- apiVersion: storage.k8s.io/v1beta1
  kind: StorageClass
  metadata: {name: old-api}
- apiVersion: v1
  kind: PersistentVolumeClaim
  metadata: {name: disk, namespace: t, annotations: {copy: first}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: disk, namespace: t, annotations: {copy: second}}
`
	rr, err := manifests.Read("dump.yaml", strings.NewReader(in))
	st, notes := rr.State, rr.Notes
	require.NoError(t, err)
	type note struct {
		Line   int
		Reason manifests.NoteReason
		Kind   string
		By     int
	}
	var got []note
	for _, n := range notes {
		assert.Equal(t, "dump.yaml", n.File)
		got = append(got, note{n.Line, n.Reason, n.Kind, n.By.Line})
	}
	assert.Equal(t, []note{
		{4, manifests.KindNotRead, "Deployment", 0},
		{10, manifests.VersionNotRead, "StorageClass", 0},
		{13, manifests.Superseded, "PersistentVolumeClaim", 17},
	}, got, "other kinds, other versions of a kind and repeated objects are noted, with their lines")
	assert.Empty(t, st.StorageClasses, "a StorageClass of another API version is not read")
	assert.Equal(t, state.AllKinds&^state.StorageClass, st.Observed, "nor are StorageClasses observed: the file holds one the State lacks")
	require.Len(t, st.PersistentVolumeClaims, 1, "a repeated object is kept once")
	assert.Equal(t, "second", st.PersistentVolumeClaims[0].Annotations["copy"], "the later copy wins")
	require.Len(t, st.KubernetesNodes, 1, "a pool is read, unstructured, for the golden it clones")
	assert.Equal(t, "demo-md0", st.KubernetesNodes[0].GetName())
	for _, n := range notes {
		assert.Contains(t, n.String(), "dump.yaml:", "a note names its file")
	}
}

func TestReadInvalidObjects(t *testing.T) {
	cases := map[string]struct {
		reason string
		in     string
		line   int
	}{
		"WrongType": {
			reason: "a field of the wrong type is refused at the object, not skipped",
			in:     "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: PersistentVolumeClaim\n  metadata: {name: a, namespace: t}\n  spec: {accessModes: ReadWriteOnce}\n",
			line:   4,
		},
		"NoName": {
			reason: "an object without a name cannot be looked up",
			in:     "---\napiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {}\n",
			line:   2,
		},
		"NoNamespace": {
			reason: "a namespaced object without a namespace cannot be placed",
			in:     "apiVersion: cdi.kubevirt.io/v1beta1\nkind: DataVolume\nmetadata: {name: g}\n",
			line:   1,
		},
		"BadQuantity": {
			reason: "a quantity that does not parse is refused",
			in:     "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: a, namespace: t}\nspec:\n  resources: {requests: {storage: lots}}\n",
			line:   1,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := manifests.Read("state.yaml", strings.NewReader(tc.in))
			var e *manifests.Error
			require.True(t, errors.As(err, &e), "%s: want *manifests.Error, got %T %v", tc.reason, err, err)
			assert.Equal(t, manifests.InvalidObject, e.Problem, tc.reason)
			assert.Equal(t, tc.line, e.Line, tc.reason)
		})
	}
	t.Run("NeighbourClusterScoped", func(t *testing.T) {
		_, err := manifests.Read("state.yaml", strings.NewReader("apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: r}\nprovisioner: p\n"))
		assert.NoError(t, err, "a cluster-scoped object needs no namespace")
	})
}

func TestReadFiles(t *testing.T) {
	dir := t.TempDir()
	classes := filepath.Join(dir, "classes.yaml")
	disks := filepath.Join(dir, "disks.yaml")
	objs := fixtures.Cluster()
	require.NoError(t, os.WriteFile(classes, fixtures.ListYAML(objs[:3]...), 0o600))
	require.NoError(t, os.WriteFile(disks, fixtures.DocumentsYAML(objs[3:]...), 0o600))

	rr, err := manifests.ReadFiles(classes, disks)
	st, notes := rr.State, rr.Notes
	require.NoError(t, err)
	assert.Empty(t, notes)
	assert.Equal(t, state.AllKinds, st.Observed)
	assert.Len(t, st.StorageClasses, 3)
	assert.Len(t, st.PersistentVolumeClaims, 4)

	t.Run("Missing", func(t *testing.T) {
		_, err := manifests.ReadFiles(classes, filepath.Join(dir, "nope.yaml"))
		assert.ErrorIs(t, err, fs.ErrNotExist, "a missing file is the operating system's error, naming the file")
	})
	t.Run("ErrorNamesTheFile", func(t *testing.T) {
		bad := filepath.Join(dir, "bad.yaml")
		require.NoError(t, os.WriteFile(bad, []byte("apiVersion: v1\nkind: [\n"), 0o600))
		_, err := manifests.ReadFiles(classes, bad)
		var e *manifests.Error
		require.True(t, errors.As(err, &e))
		assert.Equal(t, bad, e.File)
		assert.Equal(t, 2, e.Line)
	})
	t.Run("LaterFileWins", func(t *testing.T) {
		again := filepath.Join(dir, "again.yaml")
		require.NoError(t, os.WriteFile(again, fixtures.ListYAML(objs[0]), 0o600))
		rr, err := manifests.ReadFiles(classes, again)
		st, notes := rr.State, rr.Notes
		require.NoError(t, err)
		assert.Len(t, st.StorageClasses, 3)
		require.Len(t, notes, 1)
		assert.Equal(t, manifests.Superseded, notes[0].Reason)
		assert.Equal(t, classes, notes[0].File)
		assert.Equal(t, again, notes[0].By.File)
	})
	t.Run("NoFile", func(t *testing.T) {
		rr, err := manifests.ReadFiles()
		st := rr.State
		require.NoError(t, err)
		assert.Equal(t, state.Kind(0), st.Observed, "no file, no observation")
	})
}

func TestErrorUnwraps(t *testing.T) {
	_, err := manifests.Read("state.yaml", strings.NewReader("apiVersion: v1\nkind: [\n"))
	var e *manifests.Error
	require.True(t, errors.As(err, &e))
	assert.NotNil(t, errors.Unwrap(e), "the decoder's error stays reachable")
	assert.True(t, strings.HasPrefix(e.Error(), "state.yaml:2:"), "the message starts with file:line, as compilers print it")
}

// A consumer of a golden printed in another API version of its kind either
// is read (KubeVirt serves v1alpha3 from its v1 types) or leaves its kind
// unknown: never dropped with its kind still observed.
func TestReadOtherVersions(t *testing.T) {
	const vm = `apiVersion: %s
kind: VirtualMachine
metadata: {name: old-vm, namespace: tenant-x}
spec:
  dataVolumeTemplates:
  - metadata: {name: old-vm-disk}
    spec:
      source:
        pvc: {namespace: cozy-public, name: golden}
`
	cases := map[string]struct {
		reason     string
		apiVersion string
		kind       string
		vms        int
		unread     state.Kind
		note       manifests.NoteReason
	}{
		"SameTypes": {
			reason:     "kubevirt.io/v1alpha3 is v1's schema: the VirtualMachine is read, its golden a consumer's",
			apiVersion: "kubevirt.io/v1alpha3", kind: "VirtualMachine", vms: 1,
		},
		"VersionNotRead": {
			reason:     "a version of a read kind the planner cannot decode leaves the kind unknown",
			apiVersion: "kubevirt.io/v2", kind: "VirtualMachine", unread: state.VirtualMachine, note: manifests.VersionNotRead,
		},
		"OtherKind": {
			reason:     "an unrelated kind in an unknown version changes nothing but a note",
			apiVersion: "example.com/v9", kind: "VirtualMachine", note: manifests.KindNotRead,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			in := fmt.Sprintf(vm, tc.apiVersion)
			for _, format := range []string{"documents", "list"} {
				data := in
				if format == "list" {
					data = "apiVersion: v1\nkind: List\nitems:\n- " + strings.ReplaceAll(strings.TrimSuffix(in, "\n"), "\n", "\n  ") + "\n"
				}
				res, err := manifests.Read("state.yaml", strings.NewReader(data))
				require.NoError(t, err, format)
				assert.Len(t, res.State.VirtualMachines, tc.vms, "%s: %s", format, tc.reason)
				assert.Equal(t, tc.unread, manifests.Unread(res), "%s: %s", format, tc.reason)
				assert.Equal(t, state.AllKinds&^tc.unread, res.State.Observed, "%s: %s", format, tc.reason)
				assert.Equal(t, state.AllKinds&^tc.unread, res.Observed(state.AllKinds),
					"%s: naming every kind observes all but the unread", format)
				if tc.vms == 1 {
					assert.Equal(t, "kubevirt.io/v1", res.State.VirtualMachines[0].APIVersion, "%s: read as the version served", format)
					assert.Equal(t, state.VirtualMachine, res.Held, format)
				}
				if tc.note == "" {
					assert.Empty(t, res.Notes, format)
					continue
				}
				require.Len(t, res.Notes, 1, format)
				n := res.Notes[0]
				assert.Equal(t, tc.note, n.Reason, "%s: %s", format, tc.reason)
				line := 1
				if format == "list" {
					line = 4
				}
				assert.Equal(t, line, n.Line, format)
				if tc.note == manifests.VersionNotRead {
					assert.Contains(t, n.Cause(), fmt.Sprintf("state.yaml:%d", line), "the cause says where the object is")
					assert.Contains(t, n.Cause(), "virtualmachines.v1.kubevirt.io", "and how to dump the kind as read")
				} else {
					assert.Empty(t, n.Cause())
				}
			}
		})
	}
}

func TestResultObserved(t *testing.T) {
	res := manifests.WithKinds(state.PersistentVolumeClaim|state.VirtualMachine, state.DataVolume|state.VirtualMachine)
	assert.Equal(t, state.PersistentVolumeClaim|state.CDIConfig, res.Observed(state.DataVolume|state.CDIConfig),
		"held and named, but an unread kind neither held nor named counts")
}

// onlyReader hides every method of its reader but Read.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// inPlace is a buffer read at offsets whose Read fails: what reads it whole
// reads it in place.
type inPlace struct{ *bytes.Reader }

func (inPlace) Read([]byte) (int, error) { return 0, errors.New("read in place, never streamed") }

// TestReadFromWhereTheReaderStands: a reader is read from where it stands
// to its end, whether it is a file, a buffer read at offsets (a
// bytes.Reader, an io.SectionReader: read where it lies) or a stream
// (copied into memory): each reads the same state.
func TestReadFromWhereTheReaderStands(t *testing.T) {
	junk := "not: a document\n"
	body := fixtures.ListYAML(fixtures.Cluster()...)
	data := append([]byte(junk), body...)
	rr, err := manifests.Read("state.yaml", strings.NewReader(string(body)))
	want := rr.State
	require.NoError(t, err)

	path := filepath.Join(t.TempDir(), "state.yaml")
	require.NoError(t, os.WriteFile(path, data, 0o600))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()

	section := io.NewSectionReader(bytes.NewReader(data), 0, int64(len(data)))
	atOffsets := inPlace{bytes.NewReader(data)}
	_, err = atOffsets.Seek(int64(len(junk)), io.SeekStart)
	require.NoError(t, err)
	rr, err = manifests.Read("state.yaml", atOffsets)
	got := rr.State
	require.NoError(t, err, "a buffer with ReadAt, Seek and Size is read where it lies")
	assert.Equal(t, want, got)

	for name, r := range map[string]io.Reader{
		"file":           f,
		"bytes.Reader":   bytes.NewReader(data),
		"SectionReader":  section,
		"strings.Reader": strings.NewReader(string(data)),
		"stream":         onlyReader{bytes.NewReader(data)},
	} {
		_, err := io.ReadFull(r, make([]byte, len(junk)))
		require.NoError(t, err, name)
		rr, err := manifests.Read("state.yaml", r)
		got := rr.State
		require.NoError(t, err, name)
		assert.Equal(t, want, got, name)
	}
}

// TestVersionNotReadSaysThePlural: a note names the kind's plural as the
// planner spells it, for a kind whose name already ends in s as for any
// other.
func TestVersionNotReadSaysThePlural(t *testing.T) {
	for kind, want := range map[string]string{
		"KubernetesNodes": "the planner reads KubernetesNodes only as",
		"VirtualMachine":  "the planner reads VirtualMachines only as",
	} {
		in := fmt.Sprintf("apiVersion: %s/v999\nkind: %s\nmetadata:\n  name: x\n  namespace: t\n", groupOf(t, kind), kind)
		res, err := manifests.Read("state.yaml", strings.NewReader(in))
		require.NoError(t, err)
		require.Len(t, res.Notes, 1, kind)
		assert.Equal(t, manifests.VersionNotRead, res.Notes[0].Reason, kind)
		assert.Contains(t, res.Notes[0].String(), want, kind)
		assert.NotContains(t, res.Notes[0].String(), "Nodess", kind)
	}
}

// groupOf is the API group the planner reads kind in.
func groupOf(t *testing.T, kind string) string {
	t.Helper()
	switch kind {
	case "KubernetesNodes":
		return "apps.cozystack.io"
	case "VirtualMachine":
		return "kubevirt.io"
	}
	t.Fatalf("no group for %s", kind)
	return ""
}
