package golden

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

// The tests of this file pin rules that mutation testing (gremlins, see
// internal/invariants/README.md) found no test noticing when broken. They
// were catalog's while this package was part of it.

// TestGoldenOfTheOlderPVCForm: a golden DataVolume written with spec.pvc
// (CDI's older form) has its size there; a golden whose spec names no class
// is on the class its bound PVC is on.
func TestGoldenOfTheOlderPVCForm(t *testing.T) {
	dv := fixtures.GoldenVolume(idA, v1136).Class("").Size("8Gi").PVCAPI().Obj()
	pvc := fixtures.PVC(naming.GoldenNamespace, goldenA).Class("local").Bound().Obj()
	g := Observe(goldenA, nil, observed(dv, pvc))
	assert.Zero(t, g.Request.Cmp(dv.Spec.PVC.Resources.Requests[corev1.ResourceStorage]), "request %s", g.Request.String())
	assert.Equal(t, "8Gi", g.Request.String())
	res, err := g.ResolveClass(stateindex.Default{Known: true, Name: "replicated"})
	require.NoError(t, err)
	assert.Equal(t, storage.Resolution{Name: "local", From: storage.Frozen}, res)
}

// TestOneRestartIsStalled: an import that is not running after one
// importer restart is stalled, whatever the condition's reason; before any
// restart, and without Error or ImagePullFailed, it is only pending.
func TestOneRestartIsStalled(t *testing.T) {
	dv := func(restarts int32, reason string) *cdiv1.DataVolume {
		d := fixtures.GoldenVolume(idA, v1136).Phase(cdiv1.ImportInProgress).Obj()
		d.Status.RestartCount = restarts
		d.Status.Conditions = []cdiv1.DataVolumeCondition{{Type: cdiv1.DataVolumeRunning, Status: corev1.ConditionFalse, Reason: reason}}
		return d
	}
	cases := map[string]struct {
		reason string
		dv     *cdiv1.DataVolume
		want   Import
	}{
		"one restart":    {"at least one restart is stalled", dv(1, ""), Stalled},
		"no restart":     {"neighbour: CDI reports Running False before every importer starts", dv(0, "Pending"), Importing},
		"three restarts": {"restarts never make a failure: CDI waits for Succeeded", dv(3, ""), Stalled},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.want, Observe(goldenA, nil, observed(tc.dv)).Import, tc.reason)
		})
	}
}
