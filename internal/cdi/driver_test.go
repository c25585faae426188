package cdi_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/internal/cdi"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

const (
	ns    = "cozy-public"
	claim = "golden"
	vol   = "pv-golden"
	other = "rbd.csi.ceph.com"
)

// TestClaimDriver states CDI's driver of a PVC (controller/clone/common.go
// GetDriverFromVolume, then GetStorageClassForClaim): its bound volume's
// spec.csi.driver; else its class's provisioner; else none. A volume whose
// claimRef names another PVC makes CDI's clone error and retry.
func TestClaimDriver(t *testing.T) {
	classed := fixtures.PVC(ns, claim).Class(class).VolumeName(vol).Bound()
	csi := fixtures.Volume(vol).CSI(other).ClaimRef(ns, claim)
	cases := map[string]struct {
		reason   string
		observed state.Kind
		// objects read by name (state.Objects), beside the observed kinds.
		byName []state.Ref
		pvc    *corev1.PersistentVolumeClaim
		objs   []client.Object
		want   cdi.Driver
		known  bool
	}{
		"CSI volume": {
			reason: "the volume's driver, over the class's provisioner",
			pvc:    classed.Obj(),
			objs:   []client.Object{csi.Obj()},
			want:   cdi.Driver{Name: other}, known: true,
		},
		"CSI volume read by name": {
			reason:   "a volume read by name is as good as one listed",
			observed: state.AllKinds &^ state.PersistentVolume,
			byName:   []state.Ref{{Kind: state.PersistentVolume, Name: vol}},
			pvc:      classed.Obj(),
			objs:     []client.Object{csi.Obj()},
			want:     cdi.Driver{Name: other}, known: true,
		},
		"host path volume": {
			reason: "a volume of no CSI driver: the class's provisioner",
			pvc:    classed.Obj(),
			objs:   []client.Object{fixtures.Volume(vol).HostPath("/x").ClaimRef(ns, claim).Obj()},
			want:   cdi.Driver{Name: prov}, known: true,
		},
		"volume without claimRef": {
			reason: "GetDriverFromVolume needs the claimRef: the class's provisioner",
			pvc:    classed.Obj(),
			objs:   []client.Object{fixtures.Volume(vol).CSI(other).Obj()},
			want:   cdi.Driver{Name: prov}, known: true,
		},
		"volume missing": {
			reason: "the volume named does not exist: the class's provisioner",
			pvc:    classed.Obj(),
			want:   cdi.Driver{Name: prov}, known: true,
		},
		"no volume name": {
			reason: "an unbound claim: the class's provisioner",
			pvc:    fixtures.PVC(ns, claim).Class(class).Obj(),
			want:   cdi.Driver{Name: prov}, known: true,
		},
		"claimRef names another claim": {
			reason: "\"pvc does not match volume claim ref\": CDI retries",
			pvc:    classed.Obj(),
			objs:   []client.Object{fixtures.Volume(vol).CSI(other).ClaimRef(ns, "someone-else").Obj()},
			want:   cdi.Driver{Waits: true},
		},
		"claimRef in another namespace": {
			reason: "the namespace must match too",
			pvc:    classed.Obj(),
			objs:   []client.Object{fixtures.Volume(vol).CSI(other).ClaimRef("tenant-demo", claim).Obj()},
			want:   cdi.Driver{Waits: true},
		},
		"volumes unknown": {
			reason:   "the volume was not read: unknown, not the class's",
			observed: state.AllKinds &^ state.PersistentVolume,
			pvc:      classed.Obj(),
			objs:     []client.Object{csi.Obj()},
			want:     cdi.Driver{Unobserved: state.PersistentVolume},
		},
		"no class, CSI volume": {
			reason: "a classless claim on a CSI volume has the volume's driver",
			pvc:    fixtures.PVC(ns, claim).VolumeName(vol).Bound().Obj(),
			objs:   []client.Object{csi.Obj()},
			want:   cdi.Driver{Name: other}, known: true,
		},
		"no class, host path volume": {
			reason: "no class, no CSI volume: no driver (GetStorageClassForClaim returns none)",
			pvc:    fixtures.PVC(ns, claim).VolumeName(vol).Bound().Obj(),
			objs:   []client.Object{fixtures.Volume(vol).HostPath("/x").ClaimRef(ns, claim).Obj()},
			want:   cdi.Driver{}, known: true,
		},
		"empty class": {
			reason: "storageClassName \"\" is no class",
			pvc: func() *corev1.PersistentVolumeClaim {
				p := fixtures.PVC(ns, claim).Obj()
				p.Spec.StorageClassName = new(string)
				return p
			}(),
			want: cdi.Driver{}, known: true,
		},
		"class deleted": {
			reason: "a class that does not exist has no provisioner",
			pvc:    fixtures.PVC(ns, claim).Class("gone").Obj(),
			want:   cdi.Driver{}, known: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			observed := tc.observed
			if observed == 0 {
				observed = state.AllKinds
			}
			objs := append([]client.Object{fixtures.StorageClass(class).Provisioner(prov).Obj()}, tc.objs...)
			st := fixtures.State(observed, objs...)
			st.Objects = tc.byName
			got := cdi.ClaimDriver(state.NewSnapshot(st), tc.pvc)
			assert.Equal(t, tc.want, got, tc.reason)
			assert.Equal(t, tc.known, got.Known(), "Known; %s", tc.reason)
		})
	}
}

// TestClassDriver: the driver of a PVC of a class is the class's
// provisioner; none for "" or a class that does not exist; unknown when
// the classes were not read.
func TestClassDriver(t *testing.T) {
	cases := map[string]struct {
		reason   string
		observed state.Kind
		class    string
		want     cdi.Driver
	}{
		"present":         {reason: "the provisioner", class: class, want: cdi.Driver{Name: prov}},
		"missing":         {reason: "no class, no driver", class: "gone", want: cdi.Driver{}},
		"empty":           {reason: "\"\" names no class, whatever was read", class: "", observed: state.AllKinds &^ state.StorageClass, want: cdi.Driver{}},
		"classes unknown": {reason: "not read: unknown", class: class, observed: state.AllKinds &^ state.StorageClass, want: cdi.Driver{Unobserved: state.StorageClass}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			observed := tc.observed
			if observed == 0 {
				observed = state.AllKinds
			}
			snap := state.NewSnapshot(fixtures.State(observed, fixtures.StorageClass(class).Provisioner(prov).Obj()))
			got := cdi.ClassDriver(snap, tc.class)
			assert.Equal(t, tc.want, got, tc.reason)
			assert.Equal(t, tc.want.Unobserved == 0, got.Known(), "Known; %s", tc.reason)
		})
	}
}
