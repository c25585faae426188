package vmdisk

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

// cloneGuards is this package's one door to the clone guards: what CDI
// v1.64.0 will do with a DataVolume whose source is a PVC, judged against
// the cluster. Its findings are at the DataVolume's fields (dvSource,
// dvClass, dvSize), which Plan moves to the VMDisk's. The guards are the
// library's clone planner for any DataVolume; until this build has it,
// interimCloneGuards stands in, and switching is this one assignment.
var cloneGuards func(cloneRequest) cloneVerdict = interimCloneGuards

// cloneRequest is a clone to judge.
type cloneRequest struct {
	// dv is the DataVolume as the chart renders it; its source.pvc names
	// the PVC it clones, with its namespace.
	dv *cdiv1.DataVolume
	// expected is the source's DataVolume as its catalog renders it, nil
	// when no catalog has it: what the source is taken to be before it
	// exists.
	expected *cdiv1.DataVolume
	snap     *state.Snapshot
}

// cloneVerdict is what the guards found.
type cloneVerdict struct {
	// class is the class the disk binds on, as the guards resolved it
	// (Name "" when it could not be resolved); sourceClass the source's.
	class, sourceClass storage.Resolution
	refusals           guard.Refusals
	warnings           guard.Warnings
}

// The DataVolume's fields the clone guards speak of.
var (
	dvSource = field.NewPath("spec", "source", "pvc")
	dvClass  = field.NewPath("spec", "storage", "storageClassName")
	dvSize   = field.NewPath("spec", "storage", "resources", "requests", "storage")
)
