package catalog

import (
	"cmp"
	"iter"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kubevirtv1 "kubevirt.io/api/core/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/plan/state/capk"
)

// Kinds of a consumer: every kind that clones a golden, or will.
const (
	kindDataVolume              = "DataVolume"
	kindPersistentVolumeClaim   = "PersistentVolumeClaim"
	kindKubevirtMachineTemplate = "KubevirtMachineTemplate"
	kindVirtualMachine          = "VirtualMachine"
	kindDataSource              = "DataSource"
	kindKubernetesNodes         = "KubernetesNodes"
	kindHelmRelease             = "HelmRelease"
)

// Consumer is an object that clones a golden, or will when it is next
// used: a disk; a KubevirtMachineTemplate or VirtualMachine whose
// dataVolumeTemplates clone it (a pool scaled to zero has no disk, but its
// template still points at the golden, and its next worker needs it); a
// DataSource that names it; a pool whose next render clones it (its
// KubernetesNodes, its kubernetes-nodes HelmRelease), though no disk or
// template of it exists yet.
type Consumer struct {
	// Kind is the consumer's Kubernetes kind, as state.Kind names it
	// (state.DataVolume.String()): DataVolume, or PersistentVolumeClaim
	// for a PVC whose same-named DataVolume does not clone the golden (or
	// is gone), KubevirtMachineTemplate, VirtualMachine, DataSource,
	// KubernetesNodes, HelmRelease.
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Pool is the pool's CAPI name ("kubernetes-demo-md0"): a disk's pool
	// annotation, a template's or VirtualMachine's pool
	// (capk.KubevirtMachineTemplate.Pool: its instance template's
	// cluster.x-k8s.io/deployment-name label, else its disk's pool
	// annotation), a DataSource's pool annotation, a pool's own (what its
	// PoolReader says); "" when it names none.
	Pool string `json:"pool"`
}

// A PoolReader reads a pool the snapshot holds, a KubernetesNodes or a
// HelmRelease (kind says which), for the golden its next render clones. It
// returns the pool's CAPI name ("kubernetes-demo-md0") and the golden's
// name: pool "" when the object is no pool (a HelmRelease of another
// chart), golden "" when the pool clones none (it imports over HTTP); an
// error when what it clones cannot be told from the object. The golden
// must be the one a plan of the pool clones, so that no golden a plan
// clones is ever safe to delete: plan.PoolGolden is that reader.
type PoolReader func(kind state.Kind, obj *unstructured.Unstructured) (pool, golden string, err error)

// ConsumersResult answers "does anything still clone this golden?", in the
// shape of `worker-image catalog consumers -o json`.
type ConsumersResult struct {
	Golden    string     `json:"golden"`
	Consumers []Consumer `json:"consumers"`
	// BlastRadius counts the pools and templates among the consumers.
	BlastRadius Radius `json:"blastRadius"`
	// Warnings say StateUnverified for each consumer kind that was not
	// observed in every namespace, so the list may be incomplete: a script
	// must never read "no consumers" from a plan that could not see.
	Warnings guard.Warnings `json:"warnings"`
}

// ConsumerIndex finds the consumers of every golden in one pass over a
// snapshot's consumer kinds (state.ConsumerKinds): build it once, then
// each query is a map hit. It is read-only and safe to share between
// goroutines.
type ConsumerIndex struct {
	byGolden   map[string][]Consumer
	unobserved state.Kind
	// undecided are the pools whose golden could not be told, each with
	// why: any golden may be theirs.
	undecided []undecided
}

type undecided struct {
	Consumer
	why string
}

// NewConsumerIndex indexes the objects the snapshot holds, in every
// namespace, that clone a golden:
//   - a DataVolume by the disk annotation naming.GoldenAnnotation, by its
//     source.pvc in cozy-public (its own namespace when it names none), or
//     by a sourceRef to a DataSource that points at the golden;
//   - a PVC by the same annotation, or by a dataSource or dataSourceRef of
//     kind PersistentVolumeClaim in cozy-public; a disk known by both its
//     DataVolume and its PVC is one consumer, listed by its DataVolume;
//   - a KubevirtMachineTemplate or a VirtualMachine by any of its
//     dataVolumeTemplates, read as a DataVolume is;
//   - a DataSource that points at the golden (dataSourceGoldens);
//   - a KubernetesNodes or a HelmRelease by what pools says it clones; with
//     pools nil, no pool is read, and both kinds count as not observed.
//
// An object that clones a golden in several ways is one consumer of it.
func NewConsumerIndex(snap *state.Snapshot, pools PoolReader) *ConsumerIndex {
	if snap == nil {
		snap = state.NewSnapshot(nil)
	}
	x := &indexer{ConsumerIndex: &ConsumerIndex{byGolden: map[string][]Consumer{}}, snap: snap}
	for _, k := range state.ConsumerKinds.Each() {
		if !stateindex.Of(snap).Observed(k) {
			x.unobserved |= k
		}
	}
	if pools == nil {
		x.unobserved |= state.KubernetesNodes | state.HelmRelease
	} else {
		x.pools(pools)
	}
	x.disks()
	for t := range stateindex.Of(snap).KubevirtMachineTemplates() {
		x.entries(kindKubevirtMachineTemplate, t.Namespace, t.Name, t.Pool(), t.Spec.Template.Spec.VirtualMachineTemplate.Spec.DataVolumeTemplates)
	}
	for vm := range stateindex.Of(snap).VirtualMachines() {
		x.entries(kindVirtualMachine, vm.Namespace, vm.Name, capk.VirtualMachinePool(vm), vm.Spec.DataVolumeTemplates)
	}
	for ds := range stateindex.Of(snap).DataSources() {
		x.found = x.found[:0]
		x.dataSourceGoldens(ds, ds.Namespace)
		x.add(kindDataSource, ds.Namespace, ds.Name, ds.Annotations[naming.PoolAnnotation])
	}
	for _, cs := range x.byGolden {
		slices.SortFunc(cs, func(a, b Consumer) int {
			return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Kind, b.Kind))
		})
	}
	return x.ConsumerIndex
}

// indexer builds a ConsumerIndex; found is the goldens the object at hand
// clones, each once (spare a second buffer, so that indexing allocates
// nothing per object that clones nothing).
type indexer struct {
	*ConsumerIndex
	snap         *state.Snapshot
	found, spare []string
}

// clone records that the object at hand clones golden.
func (x *indexer) clone(golden string) {
	if golden != "" && !slices.Contains(x.found, golden) {
		x.found = append(x.found, golden)
	}
}

// add lists the object at hand as a consumer of each golden it clones.
func (x *indexer) add(kind, namespace, name, pool string) {
	for _, g := range x.found {
		x.byGolden[g] = append(x.byGolden[g], Consumer{kind, namespace, name, pool})
	}
}

// pools lists each pool by the golden read says its next render clones.
func (x *indexer) pools(read PoolReader) {
	each := func(k state.Kind, kind string, objs iter.Seq[*unstructured.Unstructured]) {
		for o := range objs {
			pool, golden, err := read(k, o)
			c := Consumer{kind, o.GetNamespace(), o.GetName(), pool}
			switch {
			case err != nil:
				x.undecided = append(x.undecided, undecided{c, err.Error()})
			case pool != "" && golden != "":
				x.byGolden[golden] = append(x.byGolden[golden], c)
			}
		}
	}
	each(state.KubernetesNodes, kindKubernetesNodes, stateindex.Of(x.snap).KubernetesNodes())
	each(state.HelmRelease, kindHelmRelease, stateindex.Of(x.snap).HelmReleases())
}

func (x *indexer) disks() {
	snap := stateindex.Of(x.snap)
	for dv := range snap.DataVolumes() {
		x.found = x.found[:0]
		x.dataVolumeGoldens(dv.Namespace, dv.Annotations, &dv.Spec)
		x.found = slices.DeleteFunc(x.found, func(g string) bool { return isGolden(dv.Namespace, dv.Name, g) })
		if len(x.found) == 0 {
			continue
		}
		pool := dv.Annotations[naming.PoolAnnotation]
		if p := snap.PVC(dv.Namespace, dv.Name); pool == "" && p != nil {
			pool = p.Annotations[naming.PoolAnnotation]
		}
		x.add(kindDataVolume, dv.Namespace, dv.Name, pool)
	}
	for p := range snap.PersistentVolumeClaims() {
		x.found = x.found[:0]
		pvcGoldens(p, x.clone)
		if len(x.found) == 0 {
			continue
		}
		dv := snap.DataVolume(p.Namespace, p.Name)
		claims, viaDV := x.found, x.spare[:0]
		if dv != nil {
			// The goldens its DataVolume clones, in the spare buffer: the
			// disk is listed by its DataVolume for those.
			x.found = viaDV
			x.dataVolumeGoldens(dv.Namespace, dv.Annotations, &dv.Spec)
			viaDV = x.found
		}
		x.spare = viaDV
		x.found = slices.DeleteFunc(claims, func(g string) bool {
			return isGolden(p.Namespace, p.Name, g) || slices.Contains(viaDV, g)
		})
		pool := p.Annotations[naming.PoolAnnotation]
		if pool == "" && dv != nil {
			pool = dv.Annotations[naming.PoolAnnotation]
		}
		x.add(kindPersistentVolumeClaim, p.Namespace, p.Name, pool)
	}
}

// entries lists a template or VirtualMachine once per golden any of its
// dataVolumeTemplates clones; each entry is read as a DataVolume of the
// object's namespace, which is where KubeVirt creates it.
func (x *indexer) entries(kind, namespace, name, pool string, dvts []kubevirtv1.DataVolumeTemplateSpec) {
	x.found = x.found[:0]
	for i := range dvts {
		x.dataVolumeGoldens(namespace, dvts[i].Annotations, &dvts[i].Spec)
	}
	x.add(kind, namespace, name, pool)
}

// dataVolumeGoldens names the goldens a DataVolume (or a
// dataVolumeTemplates entry) in namespace clones: by its disk annotation,
// by its source.pvc (clonePVC), by its sourceRef.
func (x *indexer) dataVolumeGoldens(namespace string, annotations map[string]string, spec *cdiv1.DataVolumeSpec) {
	x.clone(annotations[naming.GoldenAnnotation])
	if s := spec.Source; s != nil {
		x.clonePVC(s.PVC, namespace)
	}
	x.sourceRefGoldens(spec.SourceRef, namespace)
}

// clonePVC records the golden a clone's source PVC is, if it is one: a PVC
// of cozy-public, or one with no namespace when a namespace CDI v1.64.0
// may default it to (defaults) is cozy-public. For a DataVolume's own
// source.pvc that is the DataVolume's namespace
// (pkg/controller/datavolume/pvc-clone-controller.go findSourcePvc: an
// empty sourcePvcNs is dataVolume.Namespace): a DataVolume in cozy-public
// with source.pvc {name: GOLDEN} clones the golden, one in a tenant's
// namespace that tenant's own PVC. For a DataSource's, see
// dataSourceGoldens.
func (x *indexer) clonePVC(p *cdiv1.DataVolumeSourcePVC, defaults ...string) {
	if p != nil && (p.Namespace == naming.GoldenNamespace ||
		(p.Namespace == "" && slices.Contains(defaults, naming.GoldenNamespace))) {
		x.clone(p.Name)
	}
}

// sourceRefGoldens names the goldens a DataVolume in namespace clones
// through its sourceRef, as CDI v1.64.0 resolves one
// (pkg/controller/datavolume/clone-controller-base.go
// populateSourceIfSourceRef): only kind DataSource; the DataSource in
// sourceRef.namespace, else the DataVolume's own namespace. A DataSource
// that was not found clones nothing: CDI's mutating webhook refuses the
// DataVolume (pkg/apiserver/webhooks/datavolume-mutate.go Admit, through
// AuthorizeUser to authorize_utils.go newCloneSourceHandler, which cannot
// get it; one marked pre-populated is admitted and clones nothing either),
// and its controller leaves it be.
func (x *indexer) sourceRefGoldens(ref *cdiv1.DataVolumeSourceRef, namespace string) {
	if ref == nil || ref.Kind != cdiv1.DataVolumeDataSource {
		return
	}
	ns := namespace
	if ref.Namespace != nil && *ref.Namespace != "" {
		ns = *ref.Namespace
	}
	if ds := stateindex.Of(x.snap).DataSource(ns, ref.Name); ds != nil {
		x.dataSourceGoldens(ds, namespace)
	}
}

// dataSourceGoldens names the goldens a DataSource points at, for a
// DataVolume in referrer (the DataSource's own namespace when it is the
// consumer itself). Its source is spec.source.pvc; for a DataSource that
// chains to another (spec.source.dataSource), CDI clones what its status
// says the chain resolved to (populateSourceIfSourceRef), which its
// controller copies from the other DataSource's spec.source, one level
// deep, in the same namespace (pkg/controller/common/util.go
// ResolveDataSourceChain: a DataSource chained to itself is chained twice;
// pkg/controller/datasource-controller.go update): both count, so that a
// status not yet reconciled hides nothing. A source PVC in cozy-public is
// a golden; one with no namespace is where CDI's two controllers disagree
// (the DataSource controller takes the DataSource's namespace, handlePvcSource;
// the clone controller the DataVolume's, pvc-clone-controller.go
// findSourcePvc), so it is a golden when either is cozy-public: of "does
// anything still clone it?", the answer that keeps it is the safe one.
func (x *indexer) dataSourceGoldens(ds *cdiv1.DataSource, referrer string) {
	src := ds.Spec.Source
	var pvcs [2]*cdiv1.DataVolumeSourcePVC
	if ref := src.DataSource; ref != nil {
		pvcs[0] = ds.Status.Source.PVC
		ns := ref.Namespace
		if ns == "" {
			ns = ds.Namespace
		}
		if next := stateindex.Of(x.snap).DataSource(ns, ref.Name); next != nil && ns == ds.Namespace && next.Spec.Source.DataSource == nil {
			pvcs[1] = next.Spec.Source.PVC
		}
	} else {
		pvcs[0] = src.PVC
	}
	for _, p := range pvcs {
		x.clonePVC(p, ds.Namespace, referrer)
	}
}

// Of lists the consumers of a golden by namespace and name. The slice is
// shared: do not modify it.
func (x *ConsumerIndex) Of(golden string) []Consumer { return x.byGolden[golden] }

// complete reports whether every consumer kind (state.ConsumerKinds) was
// observed in every namespace, and every pool's golden told, so that no
// consumer can be missing.
func (x *ConsumerIndex) complete() bool { return x.unobserved == 0 && len(x.undecided) == 0 }

// Unobserved is the consumer kinds that were not observed in every
// namespace: what may hide a consumer.
func (x *ConsumerIndex) Unobserved() state.Kind { return x.unobserved }

// result is the consumers of a golden with a StateUnverified warning per
// consumer kind that was not observed in every namespace.
func (x *ConsumerIndex) result(golden string) ConsumersResult {
	res := ConsumersResult{Golden: golden, Consumers: append([]Consumer{}, x.Of(golden)...), BlastRadius: x.Radius(golden)}
	for _, k := range x.unobserved.Each() {
		res.Warnings = append(res.Warnings, unverified(k, field.NewPath("consumers"),
			"%s were not observed in every namespace, so consumers of golden %s may be missing; read them before deleting it", k.Plural(), golden))
	}
	res.Warnings = append(res.Warnings, x.undecidedWarnings(field.NewPath("consumers"), "golden "+golden+" may be among them")...)
	return res
}

// undecidedWarnings are a StateUnverified per pool whose golden could not
// be told.
func (x *ConsumerIndex) undecidedWarnings(fld *field.Path, consequence string) guard.Warnings {
	var out guard.Warnings
	for _, u := range x.undecided {
		k, _ := state.KindByName(u.Kind)
		out = append(out, unverified(k, fld, "%s %s/%s (pool %s) clones a golden that could not be told: %s; %s",
			u.Kind, u.Namespace, u.Name, orUnnamed(u.Pool), u.why, consequence))
	}
	return out
}

func orUnnamed(pool string) string {
	if pool == "" {
		return "unnamed"
	}
	return pool
}

// Consumers lists every object, in any namespace, that clones a golden,
// reading pools with pools (see NewConsumerIndex). To ask about many
// goldens, build a ConsumerIndex once and ask it (Of, Radius).
func Consumers(golden string, snap *state.Snapshot, pools PoolReader) ConsumersResult {
	return NewConsumerIndex(snap, pools).result(golden)
}

// isGolden reports whether the disk is the golden itself.
func isGolden(namespace, name, golden string) bool {
	return namespace == naming.GoldenNamespace && name == golden
}

// pvcGoldens names the goldens a PVC clones: by its annotation, its
// dataSource (same namespace only) and its dataSourceRef (which may name
// another namespace).
func pvcGoldens(p *corev1.PersistentVolumeClaim, clone func(string)) {
	clone(p.Annotations[naming.GoldenAnnotation])
	if s := p.Spec.DataSource; s != nil && isPVCRef(s.APIGroup, s.Kind) && p.Namespace == naming.GoldenNamespace {
		clone(s.Name)
	}
	if s := p.Spec.DataSourceRef; s != nil && isPVCRef(s.APIGroup, s.Kind) {
		ns := p.Namespace
		if s.Namespace != nil && *s.Namespace != "" {
			ns = *s.Namespace
		}
		if ns == naming.GoldenNamespace {
			clone(s.Name)
		}
	}
}

func isPVCRef(group *string, kind string) bool {
	return kind == kindPersistentVolumeClaim && (group == nil || *group == "")
}
