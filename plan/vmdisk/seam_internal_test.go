package vmdisk

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

// TestSeamMovesFindingsToTheVMDisk: whatever stands behind cloneGuards,
// its findings at the DataVolume's fields come back at the VMDisk's (under
// spec, or spec.values for a HelmRelease), each refusal with the VMDisk's
// one edit out, and the request it gets is the rendered DataVolume with
// the catalog's golden.
func TestSeamMovesFindingsToTheVMDisk(t *testing.T) {
	var got cloneRequest
	saved := cloneGuards
	t.Cleanup(func() { cloneGuards = saved })
	cloneGuards = func(req cloneRequest) cloneVerdict {
		got = req
		return cloneVerdict{
			class:       storage.Resolution{Name: "local", From: storage.Explicit},
			sourceClass: storage.Resolution{Name: "replicated", From: storage.Explicit},
			refusals: guard.Refusals{
				guard.NewRefusal(guard.StorageClassMismatch, dvClass, "local", "mismatch"),
				guard.NewRefusal(guard.DiskSmallerThanGolden, dvSize, "5Gi", "smaller"),
				guard.NewRefusal(guard.GoldenImportFailed, dvSource, "x", "failed"),
			},
			warnings: guard.Warnings{guard.NewWarning(guard.GoldenPending, dvSource, "pending")},
		}
	}
	for root, obj := range map[string]map[string]any{
		"spec": {"apiVersion": "apps.cozystack.io/v1alpha1", "kind": "VMDisk",
			"metadata": map[string]any{"namespace": "tenant-demo", "name": "data"},
			"spec":     map[string]any{"source": map[string]any{"disk": map[string]any{"name": "base"}}}},
		"spec.values": {"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
			"metadata": map[string]any{"namespace": "tenant-demo", "name": "vm-disk-data"},
			"spec":     map[string]any{"values": map[string]any{"source": map[string]any{"disk": map[string]any{"name": "base"}}}}},
	} {
		d, err := Decode(obj)
		require.NoError(t, err)
		res, err := Plan(d, nil, state.NewSnapshot(&state.State{Observed: state.AllKinds}))
		require.Error(t, err)
		var fields []string
		for _, r := range res.Refusals {
			fields = append(fields, r.Field)
		}
		assert.Equal(t, []string{root + ".storageClass", root + ".storage", root + ".source.disk.name"}, fields)
		assert.Equal(t, root+".source.disk.name", res.Warnings[0].Field)
		assert.Contains(t, res.Refusals[0].Detail, "set "+root+".storageClass: replicated")
		assert.Equal(t, "vm-disk-base", got.dv.Spec.Source.PVC.Name)
		assert.Equal(t, "tenant-demo", got.dv.Spec.Source.PVC.Namespace)
		assert.Nil(t, got.expected, "a disk source has no catalog entry")
	}
}
