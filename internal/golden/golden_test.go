package golden

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

const (
	idA   = "aaa111"
	v1136 = "v1.13.6"
)

var (
	goldenA = naming.GoldenPrefix + idA + "-" + v1136
	urlA    = naming.ImageURL(fixtures.DefaultImageFactoryURL, idA, v1136)
)

// observed is a fully observed cluster holding objs.
func observed(objs ...client.Object) *state.Snapshot {
	return state.NewSnapshot(fixtures.State(state.AllKinds, objs...))
}

func TestObserveImport(t *testing.T) {
	importing := func(phase cdiv1.DataVolumePhase, restarts int32, reason string, running corev1.ConditionStatus) *cdiv1.DataVolume {
		dv := fixtures.GoldenVolume(idA, v1136).Obj()
		dv.Status = cdiv1.DataVolumeStatus{Phase: phase, RestartCount: restarts}
		if running != "" {
			dv.Status.Conditions = []cdiv1.DataVolumeCondition{{Type: cdiv1.DataVolumeRunning, Status: running, Reason: reason}}
		}
		return dv
	}
	pvcOnly := fixtures.GoldenClaim(idA, v1136).Obj()
	cases := map[string]struct {
		reason   string
		state    *state.State
		presence Presence
		imp      Import
	}{
		"Succeeded":          {"a succeeded DataVolume is populated", fixtures.State(state.AllKinds, importing(cdiv1.Succeeded, 0, "", "")), Present, Populated},
		"PhaseFailed":        {"phase Failed is failed", fixtures.State(state.AllKinds, importing(cdiv1.Failed, 0, "", "")), Present, Failed},
		"ThreeRestarts":      {"Running False with 3 restarts is still importing: CDI waits for Succeeded (controller/common/util.go IsPopulated)", fixtures.State(state.AllKinds, importing(cdiv1.ImportInProgress, 3, "", corev1.ConditionFalse)), Present, Stalled},
		"ManyRestarts":       {"however many restarts: stalled, never failed", fixtures.State(state.AllKinds, importing(cdiv1.ImportInProgress, 40, "Error", corev1.ConditionFalse)), Present, Stalled},
		"TwoRestarts":        {"neighbour: 2 restarts is stalled", fixtures.State(state.AllKinds, importing(cdiv1.ImportInProgress, 2, "", corev1.ConditionFalse)), Present, Stalled},
		"ReasonError":        {"Running False with reason Error is stalled", fixtures.State(state.AllKinds, importing(cdiv1.ImportInProgress, 0, "Error", corev1.ConditionFalse)), Present, Stalled},
		"RunningFalseAlone":  {"Running False before the importer starts is only pending", fixtures.State(state.AllKinds, importing(cdiv1.ImportScheduled, 0, "Pending", corev1.ConditionFalse)), Present, Importing},
		"RunningTrueRestart": {"restarts while running are not stalled", fixtures.State(state.AllKinds, importing(cdiv1.ImportInProgress, 5, "", corev1.ConditionTrue)), Present, Importing},
		"PVCOnly":            {"a PVC without its DataVolume is a populated golden", fixtures.State(state.AllKinds, pvcOnly), Present, Populated},
		"PVCOnlyDVUnknown": {
			reason:   "neighbour: with DataVolumes unobserved its import is unknown",
			state:    fixtures.State(state.AllKinds&^state.DataVolume, pvcOnly),
			presence: Present, imp: ImportUnknown,
		},
		"Absent": {"observed, neither object exists", fixtures.State(state.AllKinds), Absent, ImportUnknown},
		"Unobserved": {
			reason:   "not observed is neither absent nor present",
			state:    fixtures.State(state.AllKinds &^ state.PersistentVolumeClaim),
			presence: Unobserved, imp: ImportUnknown,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			g := Observe(goldenA, nil, state.NewSnapshot(tc.state))
			assert.Equal(t, tc.presence, g.Presence, tc.reason)
			assert.Equal(t, tc.imp, g.Import, tc.reason)
		})
	}
}

func TestObserveSizesAndClasses(t *testing.T) {
	e := &Expected{Class: "local", Request: resource.MustParse("5Gi"), URL: urlA}

	g := Observe(goldenA, e, observed())
	assert.Equal(t, "local", g.NamedClass, "before the golden exists, the entry's values stand")
	assert.Equal(t, 0, g.Request.Cmp(resource.MustParse("5Gi")))
	assert.Equal(t, e.URL, g.URL)

	p := fixtures.GoldenClaim(idA, v1136).Endpoint(urlA).Capacity("8Gi").Obj()
	g = Observe(goldenA, e, observed(fixtures.GoldenVolume(idA, v1136).Class("").Obj(), p))
	assert.Equal(t, "", g.NamedClass, "what exists beats what the values say")
	assert.Equal(t, fixtures.DefaultGoldenClass, g.ClaimClass)
	q := g.Size()
	assert.Equal(t, "8Gi", q.String(), "a golden's size is the larger of its request and its capacity")

	g = Observe(goldenA, e, observed(p))
	assert.Equal(t, urlA, g.URL, "a PVC-only golden's URL is CDI's import endpoint")
	assert.Equal(t, naming.GoldenNamespace, g.PVC.Namespace)

	g = Observe(goldenA, e, state.NewSnapshot(fixtures.State(state.AllKinds&^state.PersistentVolumeClaim, p)))
	assert.Equal(t, Unobserved, g.Presence, "a PVC of a kind that was not observed is not taken as present")
	assert.False(t, g.BoundKnown)
}
