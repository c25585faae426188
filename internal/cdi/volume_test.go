package cdi_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/internal/cdi"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// TestAvailableVolume states which volume CDI renders a disk of a class no
// StorageClass has from (controller/datavolume/util.go
// renderPvcSpecFromAvailablePv, CheckVolumeSatisfyClaim): Available, of
// the class, not being deleted, at least the disk's size, Filesystem; the
// first that satisfies is taken, and without access modes renders nothing.
func TestAvailableVolume(t *testing.T) {
	pv := func(name string, edit func(*corev1.PersistentVolume)) *corev1.PersistentVolume {
		v := fixtures.Volume(name).Class("static").Size("40Gi").HostPath("/mnt").
			AccessModes(corev1.ReadWriteOnce).Available().Obj()
		if edit != nil {
			edit(v)
		}
		return v
	}
	cases := map[string]struct {
		reason    string
		observed  state.Kind
		size      string
		class     string
		volumes   []client.Object
		want      string
		wantKnown bool
	}{
		"serves":           {reason: "Available, of the class, large enough, no mode (Filesystem)", size: "7Gi", volumes: []client.Object{pv("a", nil)}, want: "a", wantKnown: true},
		"exactly the size": {reason: "capacity equal to the size satisfies", size: "40Gi", volumes: []client.Object{pv("a", nil)}, want: "a", wantKnown: true},
		"one byte short":   {reason: "neighbour: \"requested PV is too small\"", size: "42949672961", volumes: []client.Object{pv("a", nil)}, wantKnown: true},
		"bound":            {reason: "only Available volumes are indexed", size: "7Gi", volumes: []client.Object{pv("a", func(v *corev1.PersistentVolume) { v.Status.Phase = corev1.VolumeBound })}, wantKnown: true},
		"other class":      {reason: "the index is the volume's class", size: "7Gi", volumes: []client.Object{pv("a", func(v *corev1.PersistentVolume) { v.Spec.StorageClassName = "x" })}, wantKnown: true},
		"Block":            {reason: "\"incompatible volumeMode\": the disk asks for none, Filesystem", size: "7Gi", volumes: []client.Object{pv("a", func(v *corev1.PersistentVolume) { v.Spec.VolumeMode = ptr.To(corev1.PersistentVolumeBlock) })}, wantKnown: true},
		"Filesystem":       {reason: "neighbour: an explicit Filesystem serves", size: "7Gi", volumes: []client.Object{pv("a", func(v *corev1.PersistentVolume) { v.Spec.VolumeMode = ptr.To(corev1.PersistentVolumeFilesystem) })}, want: "a", wantKnown: true},
		"being deleted": {reason: "\"the volume is marked for deletion\"", size: "7Gi", volumes: []client.Object{pv("a", func(v *corev1.PersistentVolume) {
			v.DeletionTimestamp, v.Finalizers = &metav1.Time{}, []string{"kubernetes.io/pv-protection"}
		})}, wantKnown: true},
		"first without access modes": {reason: "CDI takes the first that satisfies: without access modes nothing renders, whatever follows", size: "7Gi",
			volumes: []client.Object{pv("a", func(v *corev1.PersistentVolume) { v.Spec.AccessModes = nil }), pv("b", nil)}, wantKnown: true},
		"skips to the second": {reason: "a volume too small is passed over", size: "7Gi",
			volumes: []client.Object{pv("a", func(v *corev1.PersistentVolume) { v.Spec.Capacity[corev1.ResourceStorage] = resource.MustParse("1Gi") }), pv("b", nil)}, want: "b", wantKnown: true},
		"volumes read by name": {reason: "not listed: unknown", observed: state.AllKinds &^ state.PersistentVolume, size: "7Gi", volumes: []client.Object{pv("a", nil)}},
		"no class":             {reason: "a disk naming no class renders from no volume", class: "-", size: "7Gi", volumes: []client.Object{pv("a", nil)}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			observed := tc.observed
			if observed == 0 {
				observed = state.AllKinds
			}
			class := "static"
			if tc.class == "-" {
				class = ""
			}
			got, known := cdi.AvailableVolume(state.NewSnapshot(fixtures.State(observed, tc.volumes...)), class, resource.MustParse(tc.size))
			assert.Equal(t, tc.want, got, tc.reason)
			assert.Equal(t, tc.wantKnown, known, "known; %s", tc.reason)
		})
	}
}
