package helm

import (
	"encoding/json"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/chartvalues"
	"github.com/cozystack/kubernetes-worker-image/internal/findings"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// TemplateKind is the kind whose disk-system entry Verify checks.
const TemplateKind = "KubevirtMachineTemplate"

// pathTemplates is where a KubevirtMachineTemplate holds its disks.
var pathTemplates = field.NewPath("spec", "template", "spec", "virtualMachineTemplate", "spec", "dataVolumeTemplates")

// CheckedDisk is a disk-system entry found in a rendered
// KubevirtMachineTemplate, and its plan.
type CheckedDisk struct {
	// Template is the KubevirtMachineTemplate, "<namespace>/<name>".
	Template string
	// Plan is the pool's plan on the clone path. On the HTTP path the
	// pre-feature render gains no guard: the plan is planned, with only its
	// namespace, name and source set.
	Plan plan.Result
}

// VerifyResult is what Verify found and decided.
type VerifyResult struct {
	Disks []CheckedDisk
	// Catalog is the render of the catalog the manifests hold, nil when they
	// hold no golden DataVolume.
	Catalog *catalog.RenderResult
	// Refusals are every refusal (the pools' and the catalog's), nil when
	// there are none; Refusals.Err() is the error Verify returned.
	Refusals guard.Refusals
}

// Warnings lists the pools' and the catalog's warnings, in order.
func (r *VerifyResult) Warnings() guard.Warnings {
	var out guard.Warnings
	for _, d := range r.Disks {
		out = append(out, d.Plan.Warnings...)
	}
	if r.Catalog != nil {
		out = append(out, r.Catalog.Warnings...)
	}
	return out
}

// Verify runs the planner's guards on rendered manifests (decoded objects,
// as sigs.k8s.io/yaml decodes a document), so that a chart gets the guards
// without changing its templates:
//   - every golden DataVolume among them (in cozy-public, labelled and
//     annotated as the catalog chart renders it) is an entry of the catalog that will
//     exist once they are applied, merged with cat (nil: none): a rendered
//     golden replaces cat's entry of its flavor, and cat's other entries
//     stay. That catalog is guarded against the goldens of the cluster
//     (catalog.Render);
//   - every KubevirtMachineTemplate's disk-system entry that clones
//     anything (source.pvc, source.snapshot, sourceRef) is guarded: one that
//     clones a golden of cozy-public is planned as the builtin pool it was
//     rendered for (its namespace, the pool its pool annotation names, the
//     golden's flavor, its size and its class as rendered); any other clone
//     source is refused guard.NotAGolden, since nothing says what it boots.
//     An entry that imports over HTTP is the pre-feature render and gains no
//     guard.
//
// A value of the wrong type in an entry is refused guard.InvalidValue at its
// path. Verify does no I/O and does not modify its inputs.
func Verify(objects []map[string]any, cat *catalog.Catalog, snap *state.Snapshot) (VerifyResult, error) {
	var res VerifyResult
	goldens, errs := renderedGoldens(objects)
	res.Refusals = append(res.Refusals, errs...)
	if len(goldens) > 0 {
		values, _ := catalog.ReadBack(state.NewSnapshot(&state.State{
			Observed:    state.DataVolume | state.PersistentVolumeClaim,
			DataVolumes: goldens,
		}))
		cat = catalog.Compile(merge(values, cat))
		r, _ := catalog.Render(cat, snap)
		res.Catalog = &r
		res.Refusals = append(res.Refusals, r.Refusals...)
	}
	for _, obj := range objects {
		if kindOf(obj) != TemplateKind {
			continue
		}
		disks, errs := templateDisks(obj)
		res.Refusals = append(res.Refusals, errs...)
		for _, d := range disks {
			d.Plan = checkDisk(d.Plan, cat, snap)
			res.Refusals = append(res.Refusals, d.Plan.Refusals...)
			res.Disks = append(res.Disks, d)
		}
	}
	return res, res.Refusals.Err()
}

// merge is the catalog rendered goldens make up together with base: the
// rendered entries (read back, each with its own class, size and factory),
// then base's entries of other flavors, each with base's values folded in,
// so that no entry depends on whose global values it is read under. A
// disabled base rendered no golden: it adds none.
func merge(rendered catalog.Values, base *catalog.Catalog) catalog.Values {
	out := rendered
	out.Images = append([]catalog.Image(nil), rendered.Images...)
	if base == nil || !base.Enabled() {
		return out
	}
	have := map[string]bool{}
	for _, img := range rendered.Images {
		have[naming.GoldenPrefix+img.SchematicID+"-"+img.Version] = true
	}
	for e := range base.Entries() {
		if e.Golden == "" || have[e.Golden] {
			continue
		}
		have[e.Golden] = true
		out.Images = append(out.Images, catalog.Image{
			Flavor:          e.Flavor,
			ImageFactoryURL: e.ImageFactoryURL, Storage: e.Storage, StorageClass: e.StorageClass,
		})
	}
	return out
}

// checkDisk plans a rendered disk. r carries the pool's identity, its
// source and its disk as rendered; a clone of something that is not a
// golden comes refused already.
func checkDisk(r plan.Result, cat *catalog.Catalog, snap *state.Snapshot) plan.Result {
	if r.Outcome == plan.Refused {
		return r
	}
	src := r.Disk.Spec.Source
	if r.Source != plan.Clone {
		return plan.Result{Namespace: r.Namespace, Name: r.Name, Outcome: plan.Planned, Source: plan.HTTP}
	}
	id, version, _ := naming.ParseGoldenName(src.PVC.Name)
	spec := plan.DefaultPoolSpec(clusterOf(r.Name))
	spec.OSImage = &plan.OSImage{Builtin: &catalog.Flavor{SchematicID: id, Version: version}}
	spec.DiskSize = r.DiskSize
	spec.StorageClass = ""
	if st := r.Disk.Spec.Storage; st != nil && st.StorageClassName != nil {
		spec.StorageClass = *st.StorageClassName
	}
	out, _ := plan.Plan(plan.Pool{Namespace: r.Namespace, Name: r.Name, Spec: spec}, cat, snap)
	return out
}

// clusterOf is a cluster name the KubernetesNodes name starts with; the
// planner only needs the pool's name to be "<cluster>-<pool>".
func clusterOf(name string) string {
	if i := strings.LastIndex(name, "-"); i > 0 {
		return name[:i]
	}
	return name
}

// templateDisks finds a KubevirtMachineTemplate's disk-system entries. Each
// comes back as a Result holding the pool's namespace and name, the source
// (Clone only for a clone of a golden in cozy-public), the disk and its size
// as rendered.
func templateDisks(obj map[string]any) ([]CheckedDisk, guard.Refusals) {
	ns, name := metaOf(obj)
	c := findings.Collector{Subject: TemplateKind + " " + ns + "/" + name}
	raw := dig(obj, "spec", "template", "spec", "virtualMachineTemplate", "spec", "dataVolumeTemplates")
	list, ok := chartvalues.List(raw)
	if raw != nil && !ok {
		c.Refuse(guard.InvalidValue, pathTemplates, nil, "dataVolumeTemplates is %s where a list belongs", chartvalues.Describe(raw))
	}
	var out []CheckedDisk
	for i, item := range list {
		m, ok := chartvalues.Map(item)
		if !ok {
			continue
		}
		if dig(m, "metadata", "name") != plan.DiskName {
			continue
		}
		var d plan.Disk
		data, err := json.Marshal(m)
		if err == nil {
			err = json.Unmarshal(data, &d)
		}
		if err != nil {
			c.Refuse(guard.InvalidValue, pathTemplates.Index(i), nil, "the disk-system entry does not decode as a DataVolume template: %v", err)
			continue
		}
		out = append(out, CheckedDisk{Template: ns + "/" + name, Plan: renderedPlan(ns, name, d, pathTemplates.Index(i))})
	}
	return out, c.Refusals()
}

// renderedPlan is what a rendered disk says of its pool: the pool
// annotation names it ("kubernetes-<cluster>-<pool>"); without one, the
// template's name stands in. A disk that clones anything but a golden of
// cozy-public comes back refused NotAGolden, at the source's path under at.
func renderedPlan(ns, template string, d plan.Disk, at *field.Path) plan.Result {
	r := plan.Result{Namespace: ns, Name: template, Source: plan.HTTP, Disk: d}
	if pool, ok := strings.CutPrefix(d.Annotations[naming.PoolAnnotation], naming.PoolCAPIName("")); ok && pool != "" {
		r.Name = pool
	}
	if st := d.Spec.Storage; st != nil {
		if q, ok := st.Resources.Requests["storage"]; ok {
			r.DiskSize = q.String()
		}
	}
	spec := at.Child("spec")
	var bad *guard.Refusal
	src := d.Spec.Source
	switch {
	case d.Spec.SourceRef != nil:
		ref := d.Spec.SourceRef
		bad = findings.NewRefusal(guard.NotAGolden, spec.Child("sourceRef"), ref.Name,
			"disk-system clones the %s %s, not a golden of the catalog: only a pvc source in %s naming a golden (talos-worker-<schematicID>-<version>) is guarded; clone the golden directly",
			ref.Kind, qualified(ptr.Deref(ref.Namespace, ""), ref.Name), naming.GoldenNamespace)
	case src != nil && src.Snapshot != nil:
		bad = findings.NewRefusal(guard.NotAGolden, spec.Child("source", "snapshot"), src.Snapshot.Name,
			"disk-system clones the VolumeSnapshot %s, not a golden of the catalog: only a pvc source in %s naming a golden is guarded; clone the golden",
			qualified(src.Snapshot.Namespace, src.Snapshot.Name), naming.GoldenNamespace)
	case src != nil && src.PVC != nil:
		pvc := src.PVC
		_, _, golden := naming.ParseGoldenName(pvc.Name)
		switch {
		case pvc.Namespace == naming.GoldenNamespace && golden:
			r.Source = plan.Clone
		case !golden:
			bad = findings.NewRefusal(guard.NotAGolden, spec.Child("source", "pvc", "name"), pvc.Name,
				"disk-system clones the PVC %s, whose name is no golden's (talos-worker-<schematicID>-<version>, lowercase schematic ID, release version): nothing says what it boots; clone a golden of the catalog",
				qualified(pvc.Namespace, pvc.Name))
		default:
			bad = findings.NewRefusal(guard.NotAGolden, spec.Child("source", "pvc", "namespace"), pvc.Namespace,
				"disk-system clones the PVC %s: a golden's name, but goldens live in %s, so it is none of the catalog's; clone %s/%s",
				qualified(pvc.Namespace, pvc.Name), naming.GoldenNamespace, naming.GoldenNamespace, pvc.Name)
		}
	}
	if bad != nil {
		bad.Subject = "pool " + r.Namespace + "/" + r.Name
		return plan.Result{Namespace: r.Namespace, Name: r.Name, Outcome: plan.Refused, Refusals: guard.Refusals{bad}}
	}
	return r
}

// qualified reads "<namespace>/<name>", or the name alone when the source
// names no namespace (the disk's own).
func qualified(namespace, name string) string {
	if namespace == "" {
		return name + " (in the disk's namespace)"
	}
	return namespace + "/" + name
}

// renderedGoldens decodes the golden DataVolumes among the objects (in
// cozy-public, labelled managed-by cozystack). One that does not decode is
// refused InvalidValue.
func renderedGoldens(objects []map[string]any) ([]cdiv1.DataVolume, guard.Refusals) {
	var out []cdiv1.DataVolume
	var errs guard.Refusals
	for _, obj := range objects {
		if kindOf(obj) != "DataVolume" || dig(obj, "metadata", "namespace") != naming.GoldenNamespace ||
			dig(obj, "metadata", "labels", naming.ManagedByLabel) != naming.ManagedBy {
			continue
		}
		var dv cdiv1.DataVolume
		data, err := json.Marshal(obj)
		if err == nil {
			err = json.Unmarshal(data, &dv)
		}
		if err != nil {
			ns, name := metaOf(obj)
			r := findings.NewRefusal(guard.InvalidValue, field.NewPath("spec"), nil, "the DataVolume does not decode: %v", err)
			r.Subject = "DataVolume " + ns + "/" + name
			errs = append(errs, r)
			continue
		}
		out = append(out, dv)
	}
	return out, errs
}

func kindOf(obj map[string]any) string {
	k, _ := obj["kind"].(string)
	return k
}

func metaOf(obj map[string]any) (namespace, name string) {
	namespace, _ = dig(obj, "metadata", "namespace").(string)
	name, _ = dig(obj, "metadata", "name").(string)
	return namespace, name
}

// dig follows keys through nested maps, nil where one is missing.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := chartvalues.Map(v)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}
