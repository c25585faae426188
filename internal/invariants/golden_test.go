package invariants_test

import (
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// goldenSide is a golden's class and size as the planner resolves
// them, read again from the raw state so that the properties do not trust
// the planner's own reading. Known is false when the answer rests on
// something that was not observed.
type goldenSide struct {
	Class       string
	FromDefault bool
	ClassKnown  bool
	// Classless: the golden exists on no class at all (a PVC naming none,
	// and no DataVolume naming one): there is no class to compare, only
	// its volume's CSI driver, which CDI compares.
	Classless bool
	Size      resource.Quantity
	SizeKnown bool
	// HasPVC: the golden's PVC exists (a clone made proves its class only
	// then: once it is gone, CDI re-creates it on the default).
	HasPVC bool
	// Exists: the golden's DataVolume or PVC exists.
	Exists bool
}

// resolveGolden reads a golden: its class is the class on the live golden's
// spec (before it exists, its entry's), else its bound PVC's, else the
// cluster default; its size is its request (the live DataVolume's, a
// PVC-only golden's PVC's, before it exists its entry's), or its bound
// PVC's capacity when larger. What exists beats what the values say.
func resolveGolden(st *state.State, name string, e *catalog.Entry) goldenSide {
	snap := state.NewSnapshot(st)
	ns := naming.GoldenNamespace
	dvSeen := stateindex.Of(snap).Covers(state.DataVolume, ns, name)
	pvcSeen := stateindex.Of(snap).Covers(state.PersistentVolumeClaim, ns, name)
	var dv *cdiv1.DataVolume
	var pvc *corev1.PersistentVolumeClaim
	for i := range st.DataVolumes {
		if d := &st.DataVolumes[i]; dvSeen && d.Namespace == ns && d.Name == name {
			dv = d
		}
	}
	for i := range st.PersistentVolumeClaims {
		if p := &st.PersistentVolumeClaims[i]; pvcSeen && p.Namespace == ns && p.Name == name {
			pvc = p
		}
	}
	var g goldenSide
	var named string
	switch {
	case dv != nil:
		if dv.Spec.Storage != nil {
			named = deref(dv.Spec.Storage.StorageClassName)
			g.Size = dv.Spec.Storage.Resources.Requests[corev1.ResourceStorage]
		} else if dv.Spec.PVC != nil {
			named = deref(dv.Spec.PVC.StorageClassName)
			g.Size = dv.Spec.PVC.Resources.Requests[corev1.ResourceStorage]
		}
	case pvc != nil:
		named = deref(pvc.Spec.StorageClassName)
		g.Size = pvc.Spec.Resources.Requests[corev1.ResourceStorage]
	case e != nil:
		named, g.Size = e.StorageClass, e.Size
	}
	exists := dv != nil || pvc != nil
	g.Classless = pvc != nil && named == "" && deref(pvc.Spec.StorageClassName) == ""
	known := exists || dvSeen && pvcSeen
	g.SizeKnown = known && (pvc != nil || pvcSeen)
	g.HasPVC, g.Exists = pvc != nil, exists
	// A PVC names its class from its creation on, bound or not.
	bound := ""
	if pvc != nil {
		bound = deref(pvc.Spec.StorageClassName)
	}
	if pvc != nil && pvc.Status.Phase == corev1.ClaimBound {
		if c := pvc.Status.Capacity[corev1.ResourceStorage]; c.Cmp(g.Size) > 0 {
			g.Size = c
		}
	}
	switch {
	case named != "":
		g.Class, g.ClassKnown = named, known
	case bound != "":
		g.Class, g.ClassKnown = bound, true
	default:
		g.Class, g.FromDefault = clusterDefault(st), true
		g.ClassKnown = known && (pvc != nil || pvcSeen) && st.Observed.Has(state.StorageClass) && g.Class != ""
	}
	return g
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// clusterDefault is the class CDI gives a DataVolume that names none: the
// newest class annotated is-default-virt-class "true", else
// is-default-class; ties go to the first name. CDI never reads the beta
// annotation. "" when none is.
func clusterDefault(st *state.State) string {
	if !st.Observed.Has(state.StorageClass) {
		return ""
	}
	for _, a := range []string{"storageclass.kubevirt.io/is-default-virt-class", "storageclass.kubernetes.io/is-default-class"} {
		type candidate struct {
			name    string
			created time.Time
		}
		var cs []candidate
		for _, sc := range st.StorageClasses {
			if sc.Annotations[a] == "true" {
				cs = append(cs, candidate{sc.Name, sc.CreationTimestamp.Time})
			}
		}
		if len(cs) == 0 {
			continue
		}
		sort.Slice(cs, func(i, j int) bool {
			if !cs[i].created.Equal(cs[j].created) {
				return cs[i].created.After(cs[j].created)
			}
			return cs[i].name < cs[j].name
		})
		return cs[0].name
	}
	return ""
}

// describeGolden says what the state holds of a golden, for failure
// messages.
func describeGolden(st *state.State, name string) string {
	s := fmt.Sprintf("observed %v, namespaces %v;", st.Observed, st.Namespaces)
	for _, d := range st.DataVolumes {
		if d.Namespace == naming.GoldenNamespace && d.Name == name {
			s += fmt.Sprintf(" DataVolume class %q phase %q;", stateindex.DataVolumeClass(&d), d.Status.Phase)
		}
	}
	for _, p := range st.PersistentVolumeClaims {
		if p.Namespace == naming.GoldenNamespace && p.Name == name {
			s += fmt.Sprintf(" PVC class %q phase %q;", deref(p.Spec.StorageClassName), p.Status.Phase)
		}
	}
	return s + fmt.Sprintf(" default %q", clusterDefault(st))
}
