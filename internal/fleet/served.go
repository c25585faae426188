package fleet

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// Workers is a large fleet's state: 20,000 worker disks, each a
// DataVolume cloned from its golden and the PVC CDI made for it, in 1,000
// tenant namespaces. Served and printed by kubectl get -o yaml it is about
// 55 MB (-o json, indented by four spaces, about 100 MB).
var Workers = Size{Goldens: 100, StorageClasses: 10, PVCs: 20000, Namespaces: 1000, DataVolumes: true}

// Times is s with n times the disks and namespaces: Workers.Times(10) is
// the 500 MB file.
func (s Size) Times(n int) Size {
	s.PVCs *= n
	s.Namespaces *= n
	return s
}

// Served returns a copy of st as an API server serves it after CDI has
// cloned the disks: every object with a uid, a resourceVersion and a
// creation time, PVCs with the finalizer, the owner reference, the labels
// and the annotations CDI and the PV controller write, DataVolumes with
// their status conditions. These are the fields a state file carries and
// the planner never reads, which a reader must get through cheaply.
func Served(st *state.State) *state.State {
	s := &server{t0: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	out := *st
	out.StorageClasses = clone(st.StorageClasses, s.object)
	out.CSIDrivers = clone(st.CSIDrivers, s.object)
	out.StorageProfiles = clone(st.StorageProfiles, s.object)
	out.CDIs = clone(st.CDIs, s.object)
	out.VolumeSnapshotClasses = clone(st.VolumeSnapshotClasses, s.object)
	out.CDIConfigs = clone(st.CDIConfigs, s.object)
	out.PersistentVolumes = clone(st.PersistentVolumes, s.object)
	out.KubevirtMachineTemplates = clone(st.KubevirtMachineTemplates, s.object)
	out.VirtualMachines = clone(st.VirtualMachines, s.object)
	out.DataSources = clone(st.DataSources, s.object)
	uids := map[stateindex.Key]types.UID{}
	out.DataVolumes = make([]cdiv1.DataVolume, len(st.DataVolumes))
	for i := range st.DataVolumes {
		dv := st.DataVolumes[i].DeepCopy()
		s.meta(&dv.ObjectMeta)
		dv.Generation = 1
		uids[stateindex.Key{Namespace: dv.Namespace, Name: dv.Name}] = dv.UID
		if dv.Namespace != naming.GoldenNamespace {
			dv.Labels = map[string]string{"kubevirt.io/created-by": string(s.uid())}
		}
		dv.Status.ClaimName = dv.Name
		dv.Status.Progress = "100.0%"
		at := metav1.NewTime(dv.CreationTimestamp.Add(time.Minute))
		dv.Status.Conditions = []cdiv1.DataVolumeCondition{
			{Type: cdiv1.DataVolumeBound, Status: corev1.ConditionTrue, LastHeartbeatTime: at, LastTransitionTime: at, Reason: "Bound"},
			{Type: cdiv1.DataVolumeRunning, Status: corev1.ConditionFalse, LastHeartbeatTime: at, LastTransitionTime: at, Reason: "Completed", Message: "Clone Complete"},
		}
		out.DataVolumes[i] = *dv
	}
	out.PersistentVolumeClaims = make([]corev1.PersistentVolumeClaim, len(st.PersistentVolumeClaims))
	for i := range st.PersistentVolumeClaims {
		p := st.PersistentVolumeClaims[i].DeepCopy()
		s.meta(&p.ObjectMeta)
		p.Finalizers = []string{"kubernetes.io/pvc-protection"}
		provisioner := "replicated.csi.example.com"
		ann := map[string]string{
			"pv.kubernetes.io/bind-completed":          "yes",
			"pv.kubernetes.io/bound-by-controller":     "yes",
			"volume.kubernetes.io/storage-provisioner": provisioner,
		}
		if dv, ok := uids[stateindex.Key{Namespace: p.Namespace, Name: p.Name}]; ok {
			for k, v := range map[string]string{
				"cdi.kubevirt.io/createdForDataVolume":      string(dv),
				"cdi.kubevirt.io/storage.condition.running": "false",
				"cdi.kubevirt.io/storage.pod.phase":         "Succeeded",
				"cdi.kubevirt.io/storage.usePopulator":      "true",
			} {
				ann[k] = v
			}
			p.Labels = map[string]string{"app": "containerized-data-importer", "app.kubernetes.io/managed-by": "cdi-controller"}
			p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "cdi.kubevirt.io/v1beta1", Kind: "DataVolume",
				Name: p.Name, UID: dv, Controller: ptr(true), BlockOwnerDeletion: ptr(true)}}
		}
		for k, v := range p.Annotations {
			ann[k] = v
		}
		p.Annotations = ann
		p.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}
		if p.Spec.VolumeName == "" {
			// A golden's volume is in the state by its name already.
			p.Spec.VolumeName = "pvc-" + string(s.uid())
		}
		p.Status.AccessModes = p.Spec.AccessModes
		out.PersistentVolumeClaims[i] = *p
	}
	return &out
}

// server hands out what an API server sets on the objects it stores.
type server struct {
	t0 time.Time
	n  int
}

func (s *server) uid() types.UID {
	s.n++
	return types.UID(fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", s.n*2654435761%(1<<32), s.n%0x10000, s.n%0x1000, (s.n/7)%0x1000, s.n*40503))
}

func (s *server) meta(m *metav1.ObjectMeta) { s.object(m) }

func (s *server) object(o metav1.Object) {
	o.SetUID(s.uid())
	o.SetResourceVersion(fmt.Sprint(1000 + s.n))
	if t := o.GetCreationTimestamp(); t.IsZero() {
		o.SetCreationTimestamp(metav1.NewTime(s.t0.Add(time.Duration(s.n) * time.Second)))
	}
}

// clone deep-copies objs and lets f set the server's fields on each.
func clone[T any, P interface {
	*T
	DeepCopyObject() runtime.Object
	metav1.Object
}](objs []T, f func(metav1.Object)) []T {
	out := make([]T, len(objs))
	for i := range objs {
		out[i] = *P(&objs[i]).DeepCopyObject().(P)
		f(P(&out[i]))
	}
	return out
}
