package catalog

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

func TestLiveImport(t *testing.T) {
	importing := func(phase cdiv1.DataVolumePhase, restarts int32, reason string, running corev1.ConditionStatus) cdiv1.DataVolume {
		dv := liveDV(idA, urlA, "6Gi", "replicated")
		dv.Status = cdiv1.DataVolumeStatus{Phase: phase, RestartCount: restarts}
		if running != "" {
			dv.Status.Conditions = []cdiv1.DataVolumeCondition{{Type: cdiv1.DataVolumeRunning, Status: running, Reason: reason}}
		}
		return dv
	}
	cases := map[string]struct {
		reason   string
		state    *state.State
		presence Presence
		imp      Import
	}{
		"Succeeded":          {"a succeeded DataVolume is populated", cluster([]cdiv1.DataVolume{importing(cdiv1.Succeeded, 0, "", "")}, nil), Present, Populated},
		"PhaseFailed":        {"phase Failed is failed", cluster([]cdiv1.DataVolume{importing(cdiv1.Failed, 0, "", "")}, nil), Present, Failed},
		"ThreeRestarts":      {"Running False with 3 restarts is failed", cluster([]cdiv1.DataVolume{importing(cdiv1.ImportInProgress, 3, "", corev1.ConditionFalse)}, nil), Present, Failed},
		"TwoRestarts":        {"neighbour: 2 restarts is stalled", cluster([]cdiv1.DataVolume{importing(cdiv1.ImportInProgress, 2, "", corev1.ConditionFalse)}, nil), Present, Stalled},
		"ReasonError":        {"Running False with reason Error is stalled", cluster([]cdiv1.DataVolume{importing(cdiv1.ImportInProgress, 0, "Error", corev1.ConditionFalse)}, nil), Present, Stalled},
		"RunningFalseAlone":  {"Running False before the importer starts is only pending", cluster([]cdiv1.DataVolume{importing(cdiv1.ImportScheduled, 0, "Pending", corev1.ConditionFalse)}, nil), Present, Importing},
		"RunningTrueRestart": {"restarts while running are not stalled", cluster([]cdiv1.DataVolume{importing(cdiv1.ImportInProgress, 5, "", corev1.ConditionTrue)}, nil), Present, Importing},
		"PVCOnly":            {"a PVC without its DataVolume is a populated golden", cluster(nil, []corev1.PersistentVolumeClaim{livePVC(idA, "replicated", "6Gi", "")}), Present, Populated},
		"PVCOnlyDVUnknown": {
			reason: "neighbour: with DataVolumes unobserved its import is unknown",
			state: func() *state.State {
				s := cluster(nil, []corev1.PersistentVolumeClaim{livePVC(idA, "replicated", "6Gi", "")})
				s.Observed &^= state.DataVolume
				return s
			}(),
			presence: Present, imp: ImportUnknown,
		},
		"Absent": {"observed, neither object exists", cluster(nil, nil), Absent, ImportUnknown},
		"Unobserved": {
			reason: "not observed is neither absent nor present",
			state: func() *state.State {
				s := cluster(nil, nil)
				s.Observed &^= state.PersistentVolumeClaim
				return s
			}(),
			presence: Unobserved, imp: ImportUnknown,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			g := Live(goldenA, nil, state.NewSnapshot(tc.state))
			assert.Equal(t, tc.presence, g.Presence, tc.reason)
			assert.Equal(t, tc.imp, g.Import, tc.reason)
		})
	}
}

func TestLiveSizesAndClasses(t *testing.T) {
	e := &Compile(values(Image{SchematicID: idA, Version: v1136, Storage: "5Gi", StorageClass: "local"})).Entries[0]

	g := Live(goldenA, e, state.NewSnapshot(cluster(nil, nil)))
	assert.Equal(t, "local", g.NamedClass, "before the golden exists, the entry's values stand")
	assert.Equal(t, 0, g.Request.Cmp(resource.MustParse("5Gi")))
	assert.Equal(t, e.URL, g.URL)

	p := livePVC(idA, "replicated", "6Gi", urlA)
	p.Status.Capacity[corev1.ResourceStorage] = resource.MustParse("8Gi")
	g = Live(goldenA, e, state.NewSnapshot(cluster([]cdiv1.DataVolume{liveDV(idA, urlA, "6Gi", "")}, []corev1.PersistentVolumeClaim{p})))
	assert.Equal(t, "", g.NamedClass, "what exists beats what the values say")
	assert.Equal(t, "replicated", g.BoundClass)
	q := g.Size()
	assert.Equal(t, "8Gi", q.String(), "a golden's size is the larger of its request and its capacity")

	g = Live(goldenA, e, state.NewSnapshot(cluster(nil, []corev1.PersistentVolumeClaim{p})))
	assert.Equal(t, urlA, g.URL, "a PVC-only golden's URL is CDI's import endpoint")
	assert.Equal(t, naming.GoldenNamespace, g.PVC.Namespace)

	s := cluster(nil, []corev1.PersistentVolumeClaim{p})
	s.Observed &^= state.PersistentVolumeClaim
	g = Live(goldenA, e, state.NewSnapshot(s))
	assert.Equal(t, Unobserved, g.Presence, "a PVC of a kind that was not observed is not taken as present")
	assert.False(t, g.BoundKnown)
}
