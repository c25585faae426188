package catalog

import (
	"cmp"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// Kinds of a consumer.
const (
	KindDataVolume            = "DataVolume"
	KindPersistentVolumeClaim = "PersistentVolumeClaim"
)

// Consumer is a disk that clones a golden.
type Consumer struct {
	// Kind is DataVolume, or PersistentVolumeClaim for a PVC whose
	// same-named DataVolume does not clone the golden (or is gone).
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Pool is the disk's pool annotation, the pool's CAPI name
	// ("kubernetes-demo-md0"); "" when the disk carries none.
	Pool string `json:"pool"`
}

// ConsumersResult answers "does anything still clone this golden?", in the
// shape of `worker-image catalog consumers -o json`.
type ConsumersResult struct {
	Golden    string     `json:"golden"`
	Consumers []Consumer `json:"consumers"`
	// Warnings say StateUnverified when DataVolumes or PVCs were not
	// observed in every namespace, so the list may be incomplete: a script
	// must never read "no consumers" from a plan that could not see.
	Warnings guard.Warnings `json:"warnings"`
}

// ConsumerIndex finds the consumers of every golden in one pass over a
// snapshot's DataVolumes and PVCs: build it once, then each query is a map
// hit. It is read-only and safe to share between goroutines.
type ConsumerIndex struct {
	byGolden   map[string][]Consumer
	unobserved state.Kind
}

// NewConsumerIndex indexes the disks the snapshot holds, in every namespace,
// that clone a golden:
// a DataVolume by the disk annotation naming.GoldenAnnotation or by its
// source.pvc in cozy-public; a PVC by the same annotation or by a
// dataSource or dataSourceRef of kind PersistentVolumeClaim in cozy-public.
// A disk known by both its DataVolume and its PVC is one consumer, listed
// by its DataVolume.
func NewConsumerIndex(snap *state.Snapshot) *ConsumerIndex {
	if snap == nil {
		snap = state.NewSnapshot(nil)
	}
	x := &ConsumerIndex{byGolden: map[string][]Consumer{}}
	for _, k := range []state.Kind{state.DataVolume, state.PersistentVolumeClaim} {
		if !snap.Observed(k) {
			x.unobserved |= k
		}
	}
	for dv := range snap.DataVolumes() {
		refs := dataVolumeClones(dv)
		if refs == [3]string{} {
			continue
		}
		for _, g := range refs {
			if g == "" || isGolden(dv.Namespace, dv.Name, g) {
				continue
			}
			pool := dv.Annotations[naming.PoolAnnotation]
			if p := snap.PVC(dv.Namespace, dv.Name); pool == "" && p != nil {
				pool = p.Annotations[naming.PoolAnnotation]
			}
			x.byGolden[g] = append(x.byGolden[g], Consumer{KindDataVolume, dv.Namespace, dv.Name, pool})
		}
	}
	for p := range snap.PersistentVolumeClaims() {
		refs := pvcClones(p)
		if refs == [3]string{} {
			continue
		}
		dv := snap.DataVolume(p.Namespace, p.Name)
		for _, g := range refs {
			if g == "" || isGolden(p.Namespace, p.Name, g) || (dv != nil && clones(dataVolumeClones(dv), g)) {
				continue
			}
			pool := p.Annotations[naming.PoolAnnotation]
			if pool == "" && dv != nil {
				pool = dv.Annotations[naming.PoolAnnotation]
			}
			x.byGolden[g] = append(x.byGolden[g], Consumer{KindPersistentVolumeClaim, p.Namespace, p.Name, pool})
		}
	}
	for _, cs := range x.byGolden {
		slices.SortFunc(cs, func(a, b Consumer) int {
			return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Kind, b.Kind))
		})
	}
	return x
}

// Of lists the consumers of a golden by namespace and name. The slice is
// shared: do not modify it.
func (x *ConsumerIndex) Of(golden string) []Consumer { return x.byGolden[golden] }

// Complete reports whether DataVolumes and PVCs were observed in every
// namespace, so that no consumer can be missing.
func (x *ConsumerIndex) Complete() bool { return x.unobserved == 0 }

// Result is the consumers of a golden with a StateUnverified warning per
// kind that was not observed in every namespace.
func (x *ConsumerIndex) Result(golden string) ConsumersResult {
	res := ConsumersResult{Golden: golden, Consumers: append([]Consumer{}, x.Of(golden)...)}
	for _, k := range x.unobserved.Each() {
		res.Warnings = append(res.Warnings, unverified(k, field.NewPath("consumers"),
			"%ss were not observed in every namespace, so disks cloning golden %s may be missing; read them before deleting it", k, golden))
	}
	return res
}

// Consumers lists every disk, in any namespace, that clones a golden. To ask
// about many goldens, build a ConsumerIndex once.
func Consumers(golden string, snap *state.Snapshot) ConsumersResult {
	return NewConsumerIndex(snap).Result(golden)
}

// isGolden reports whether the disk is the golden itself.
func isGolden(namespace, name, golden string) bool {
	return namespace == naming.GoldenNamespace && name == golden
}

func clones(goldens [3]string, golden string) bool {
	for _, g := range goldens {
		if g == golden {
			return true
		}
	}
	return false
}

// dataVolumeClones names the goldens a DataVolume clones, by its annotation
// and its source, each once ("" for none).
func dataVolumeClones(dv *cdiv1.DataVolume) [3]string {
	var out [3]string
	out[0] = dv.Annotations[naming.GoldenAnnotation]
	if s := dv.Spec.Source; s != nil && s.PVC != nil && s.PVC.Namespace == naming.GoldenNamespace && s.PVC.Name != out[0] {
		out[1] = s.PVC.Name
	}
	return out
}

// pvcClones names the goldens a PVC clones, by its annotation, its
// dataSource (same namespace only) and its dataSourceRef (which may name
// another namespace), each once ("" for none).
func pvcClones(p *corev1.PersistentVolumeClaim) [3]string {
	var out [3]string
	out[0] = p.Annotations[naming.GoldenAnnotation]
	if s := p.Spec.DataSource; s != nil && isPVCRef(s.APIGroup, s.Kind) && p.Namespace == naming.GoldenNamespace {
		out[1] = s.Name
	}
	if s := p.Spec.DataSourceRef; s != nil && isPVCRef(s.APIGroup, s.Kind) {
		ns := p.Namespace
		if s.Namespace != nil && *s.Namespace != "" {
			ns = *s.Namespace
		}
		if ns == naming.GoldenNamespace {
			out[2] = s.Name
		}
	}
	if out[1] == out[0] {
		out[1] = ""
	}
	if out[2] == out[0] || out[2] == out[1] {
		out[2] = ""
	}
	return out
}

func isPVCRef(group *string, kind string) bool {
	return kind == KindPersistentVolumeClaim && (group == nil || *group == "")
}
