package manifests

import (
	"bytes"
	"testing"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/kinds"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// declined counts the documents of data the fast path gives up to the
// general path.
func declined(t *testing.T, data []byte) (docs, slow int) {
	t.Helper()
	st := &state.State{}
	p := newPool(st)
	sp := splitter{src: newSource(bytes.NewReader(data), int64(len(data))), send: p.send, newBatch: p.newBatch}
	err := sp.run()
	p.wait()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range sp.docs {
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

// TestCodecs: every kind the planner reads has its codec. Without one the
// general path reads it, correct and several times slower, which only a
// benchmark would show.
func TestCodecs(t *testing.T) {
	for _, info := range kinds.All {
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
