package manifests

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/kinds"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// split cuts data into documents and has the workers decode them.
func split(t *testing.T, data []byte) []*document {
	t.Helper()
	st := &state.State{}
	p := newPool(st)
	sp := splitter{src: newSource(bytes.NewReader(data), int64(len(data))), send: p.send, newBatch: p.newBatch}
	err := sp.run()
	p.wait()
	if err != nil {
		t.Fatal(err)
	}
	return sp.docs
}

// declined counts the documents of data the fast path gives up to the
// general path.
func declined(t *testing.T, data []byte) (docs, slow int) {
	t.Helper()
	for _, d := range split(t, data) {
		if d.hasHead || d.slow {
			docs++
		}
		if !fastDocument(d) {
			slow++
		}
	}
	return docs, slow
}

// TestFastPathTakesKubectlOutput: what kubectl prints the fast path reads
// whole, in every format; losing that would only show as a slow read.
func TestFastPathTakesKubectlOutput(t *testing.T) {
	st := fleet.Served(fleet.State(fleet.Size{Goldens: 3, StorageClasses: 2, PVCs: 50, Namespaces: 3, DataVolumes: true}))
	inputs := map[string][]byte{
		"FixturesList":      fixtures.ListYAML(fixtures.Cluster()...),
		"FixturesDocuments": fixtures.DocumentsYAML(fixtures.Cluster()...),
	}
	for _, f := range []fleet.Format{fleet.YAMLList, fleet.YAMLDocuments, fleet.JSONList, fleet.JSONDocuments} {
		data, err := fleet.Print(st, f)
		if err != nil {
			t.Fatal(err)
		}
		inputs[f.String()] = data
	}
	for name, data := range inputs {
		docs, slow := declined(t, data)
		if docs == 0 || slow != 0 {
			t.Errorf("%s: %d of %d documents declined", name, slow, docs)
		}
	}
}

// TestFastPathPlacesRepeats: a key repeated in an object of what kubectl
// prints is refused from the workers' reading, with no second reading of
// the document by the general path, and as the general path refuses it.
func TestFastPathPlacesRepeats(t *testing.T) {
	st := fleet.Served(fleet.State(fleet.Size{Goldens: 3, StorageClasses: 2, PVCs: 50, Namespaces: 3, DataVolumes: true}))
	repeat := map[fleet.Format]func(string) string{
		// The name of an object halfway through the file, again.
		fleet.YAMLList:      func(s string) string { return again(s, "\n    name: ", "\n    name: again") },
		fleet.YAMLDocuments: func(s string) string { return again(s, "\n  name: ", "\n  name: again") },
		fleet.JSONList:      func(s string) string { return again(s, `"name": `, `"name": "again", `) },
		fleet.JSONDocuments: func(s string) string { return again(s, `"name": `, `"name": "again", `) },
	}
	for f, edit := range repeat {
		t.Run(f.String(), func(t *testing.T) {
			data, err := fleet.Print(st, f)
			if err != nil {
				t.Fatal(err)
			}
			data = []byte(edit(string(data)))
			var found int
			for _, d := range split(t, data) {
				if repeatIn(d) != nil {
					found++
				}
			}
			if found != 1 {
				t.Errorf("the workers placed %d repeats, want 1", found)
			}
			_, err = Read("f.yaml", bytes.NewReader(data))
			if e, ok := err.(*Error); !ok || e.Problem != DuplicateKey {
				t.Errorf("want a DuplicateKey refusal, got %v", err)
			}
			sameAsGeneral(t, data)
		})
	}
}

// again inserts with before the occurrence of at halfway through s.
func again(s, at, with string) string {
	i := 0
	for range strings.Count(s, at) / 2 {
		i += strings.Index(s[i:], at) + len(at)
	}
	i += strings.Index(s[i:], at)
	return s[:i] + with + s[i:]
}

// TestCodecs: every kind the planner reads into an API type has its codec.
// Without one the general path reads it, correct and several times slower,
// which only a benchmark would show. The pools are held unstructured, as
// the general path decodes them: they have no API type to decode into.
func TestCodecs(t *testing.T) {
	for _, info := range kinds.All {
		if info.Kind == state.KubernetesNodes || info.Kind == state.HelmRelease {
			continue
		}
		if _, ok := codecs[info.Kind]; !ok {
			t.Errorf("%v has no codec: the general path reads it", info.Kind)
		}
	}
	for k := range codecs {
		if len(k.Each()) != 1 {
			t.Errorf("codec of %v: one kind at a time", k)
		}
	}
}
