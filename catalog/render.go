package catalog

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/findings"
	"github.com/cozystack/kubernetes-worker-image/internal/golden"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// subject names the catalog in its refusals and warnings.
const subject = "catalog"

// The golden DataVolume's type.
var goldenType = metav1.TypeMeta{APIVersion: cdiv1.SchemeGroupVersion.String(), Kind: "DataVolume"}

// RenderResult is what a catalog renders against a cluster, in the JSON
// shape of `worker-image catalog render -o json`:
// {"goldens","unmanaged","warnings","refusals"}. When Refusals is not empty
// the catalog is refused and Goldens is empty: applying part of a refused
// catalog would hide the refusal until the next render.
type RenderResult struct {
	// Goldens are the golden DataVolumes, one per entry in images[] order;
	// none when the catalog is disabled.
	Goldens []cdiv1.DataVolume `json:"goldens"`
	// Unmanaged names, sorted, the goldens in cozy-public that no entry of
	// an enabled catalog manages (helm.sh/resource-policy: keep left them).
	Unmanaged []string       `json:"unmanaged"`
	Warnings  guard.Warnings `json:"warnings"`
	Refusals  guard.Refusals `json:"refusals"`
}

// MarshalJSON writes the lists as [] when empty, however the result was
// built: a tool reads "goldens": [] as none, never null.
func (r RenderResult) MarshalJSON() ([]byte, error) {
	type plain RenderResult
	if r.Goldens == nil {
		r.Goldens = []cdiv1.DataVolume{}
	}
	if r.Unmanaged == nil {
		r.Unmanaged = []string{}
	}
	return json.Marshal(plain(r))
}

// Render renders the golden DataVolume of every entry of an enabled catalog
// and guards the goldens that already exist against edits. It reports every
// refusal together: the catalog's own (Catalog.Err, reported even when the
// catalog is disabled) and one CatalogEntryImmutable per changed field of
// each existing golden.
//
// An entry's golden is NewGolden's object, except where the golden
// exists: when the entry's values, resolved, equal the live DataVolume's, the
// live spec is reproduced as it is (an empty class stays empty, a size stays
// as the live object writes it), so applying it patches nothing; for a golden
// known by its PVC alone the entry is rendered with the PVC's size and class.
// What was not observed is not compared, and the entry renders from its
// values: a StateUnverified warning names each kind.
//
// A nil catalog is an empty, disabled one; a nil snapshot knows nothing.
// Render does no I/O, does not modify its inputs and is safe for concurrent
// use.
func Render(cat *Catalog, snap *state.Snapshot) (RenderResult, error) {
	if cat == nil {
		cat = Compile(Values{})
	}
	if snap == nil {
		snap = state.NewSnapshot(nil)
	}
	r := renderer{snap: snap, def: stateindex.Of(snap).DefaultClass()}
	r.col.Subject = subject
	r.col.Add(cat.refusals)
	for _, w := range cat.warnings {
		r.col.AddWarning(w)
	}
	goldens := []cdiv1.DataVolume{}
	if cat.enabled {
		for i := range cat.entries {
			if dv, ok := r.entry(cat, &cat.entries[i]); ok {
				goldens = append(goldens, dv)
			}
		}
	}
	unmanaged, missing := unmanaged(cat, snap)
	r.unverified |= missing
	res := RenderResult{Goldens: []cdiv1.DataVolume{}, Unmanaged: unmanaged, Refusals: r.col.Refusals()}
	if !r.col.Refused() {
		res.Goldens = goldens
	}
	for _, k := range r.unverified.Each() {
		r.col.AddWarning(unverified(k, field.NewPath("images"), "%s", unverifiedDetail[k]))
	}
	res.Warnings = r.col.Warnings()
	return res, res.Refusals.Err()
}

// unverified is the StateUnverified warning that kind k was not observed.
func unverified(k state.Kind, fld *field.Path, format string, args ...any) guard.Warning {
	w := findings.NewWarning(guard.StateUnverified, fld, format, args...)
	w.Kind = k.String()
	w.Subject = subject
	return w
}

var unverifiedDetail = map[state.Kind]string{
	state.DataVolume: "DataVolumes in " + naming.GoldenNamespace + " were not observed, so goldens that may exist were not " +
		"compared with their entries (CatalogEntryImmutable) nor listed as unmanaged; render with the cluster's state to check",
	state.PersistentVolumeClaim: "PersistentVolumeClaims in " + naming.GoldenNamespace + " were not observed, so goldens known by " +
		"their PVC alone, and the classes goldens are bound on, were not compared with their entries; render with the cluster's state to check",
	state.StorageClass: "StorageClasses were not observed, so an empty class could not be resolved to the cluster default " +
		"and compared, nor checked to exist; render with the cluster's state to check",
	state.StorageProfile: "StorageProfiles were not observed, so whether CDI can render the goldens' PVCs was not checked; " +
		"render with the cluster's state to check",
	state.CDIConfig: "CDIConfigs were not observed, so whether CDI can render the goldens' PVCs was not checked; " +
		"render with the cluster's state to check",
}

type renderer struct {
	col        findings.Collector
	snap       *state.Snapshot
	def        stateindex.Default
	unverified state.Kind
}

// entry renders one entry's golden. It reports false for an entry that
// renders nothing: an invalid flavor names no golden, and a repeated flavor
// is its first entry's golden (both are refused by Compile).
func (r *renderer) entry(cat *Catalog, e *Entry) (cdiv1.DataVolume, bool) {
	if e.Golden == "" {
		return cdiv1.DataVolume{}, false
	}
	if first := cat.byKey[e.Flavor]; first != e.Index {
		return cdiv1.DataVolume{}, false
	}
	dv := NewGolden(*e)
	g := golden.Observe(e.Golden, e.expected(), r.snap)
	switch g.Presence {
	case golden.Unobserved:
		r.unverified |= r.missingKinds(e.Golden)
		r.checkRenders(e)
		return dv, true
	case golden.Absent:
		r.checkRenders(e)
		return dv, true
	}
	if !r.unchanged(e, &g) {
		return dv, true
	}
	if g.DataVolume != nil {
		dv.Spec = *g.DataVolume.Spec.DeepCopy()
		return dv, true
	}
	if !g.Request.IsZero() {
		dv.Spec.Storage.Resources.Requests[corev1.ResourceStorage] = g.Request.DeepCopy()
	}
	dv.Spec.Storage.StorageClassName = classPtr(g.NamedClass)
	return dv, true
}

func (r *renderer) missingKinds(name string) state.Kind {
	var k state.Kind
	if !stateindex.Of(r.snap).Covers(state.DataVolume, naming.GoldenNamespace, name) {
		k |= state.DataVolume
	}
	if !stateindex.Of(r.snap).Covers(state.PersistentVolumeClaim, naming.GoldenNamespace, name) {
		k |= state.PersistentVolumeClaim
	}
	return k
}

// NewGolden is the golden DataVolume of an entry, as the catalog chart
// renders it: the entry's URL, size and class (left out when empty). Render
// uses it for goldens that do not exist yet.
func NewGolden(e Entry) cdiv1.DataVolume {
	return cdiv1.DataVolume{
		TypeMeta: goldenType,
		ObjectMeta: metav1.ObjectMeta{
			Name:      e.Golden,
			Namespace: naming.GoldenNamespace,
			Annotations: map[string]string{
				naming.ResourcePolicyAnnotation: "keep",
				naming.BindImmediateAnnotation:  "true",
				naming.UsePopulatorAnnotation:   "true",
				naming.SchematicIDAnnotation:    e.SchematicID,
				naming.VersionAnnotation:        e.Version,
			},
			Labels: map[string]string{naming.ManagedByLabel: naming.ManagedBy},
		},
		Spec: cdiv1.DataVolumeSpec{
			ContentType: cdiv1.DataVolumeKubeVirt,
			Source:      &cdiv1.DataVolumeSource{HTTP: &cdiv1.DataVolumeSourceHTTP{URL: e.URL}},
			Storage: &cdiv1.StorageSpec{
				Resources: corev1.VolumeResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceStorage: e.Size.DeepCopy()},
				},
				StorageClassName: classPtr(e.StorageClass),
			},
		},
	}
}

func classPtr(class string) *string {
	if class == "" {
		return nil
	}
	return &class
}
