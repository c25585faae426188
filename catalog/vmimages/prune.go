package vmimages

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/chartvalues"
	"github.com/cozystack/kubernetes-worker-image/internal/findings"
	"github.com/cozystack/kubernetes-worker-image/internal/poolrelease"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// consumerKinds are the kinds that may clone an image's golden: disks
// (PVCs and the DataVolumes of VMDisks), VirtualMachines by their
// dataVolumeTemplates, DataSources that point at it, and the vm-disk
// HelmReleases cozystack-api serves every VMDisk from. A worker pool
// (KubernetesNodes) and its KubevirtMachineTemplate clone a talos-worker
// golden, never an image's, so an unread one hides no consumer of it.
const consumerKinds = state.PersistentVolumeClaim | state.DataVolume | state.VirtualMachine | state.DataSource | state.HelmRelease

// ConsumersNeeds is what Consumers reads: every kind that may clone an
// image's golden, in every namespace, one list each.
func ConsumersNeeds() state.Request {
	var r state.Request
	for _, k := range consumerKinds.Each() {
		r.Lists = append(r.Lists, state.Ref{Kind: k})
	}
	return r.Merge(state.Request{})
}

// PruneNeeds is what Prune reads: the goldens and everything that may
// clone one, in every namespace.
func PruneNeeds() state.Request { return catalog.RenderNeeds().Merge(ConsumersNeeds()) }

// noPools is the catalog.PoolReader of the image catalog: a worker pool
// clones a talos-worker golden, never an image's, so no pool is its
// consumer.
func noPools(state.Kind, *unstructured.Unstructured) (pool, golden string, err error) {
	return "", "", nil
}

// diskRelease reads a HelmRelease of the vm-disk chart for the image it
// clones: cozystack-api serves every VMDisk from one, named vm-disk-<name>
// (and labelled with the VMDisk kind, when labelled at all), and its
// values' source.image.name clones the golden vm-default-images-<image>
// once the chart renders it, before the DataVolume exists. ok is false for
// any other release; golden is "" for a disk that clones no image. A
// release whose spec.valuesFrom names an object other than the platform's
// Secret is an error: those values, which are not read, may name an image.
func diskRelease(obj *unstructured.Unstructured) (golden string, ok bool, err error) {
	if !isDiskRelease(obj) {
		return "", false, nil
	}
	if unread := poolrelease.Unread(obj.Object); len(unread) > 0 {
		return "", true, fmt.Errorf("its spec.valuesFrom takes values from %s, which were not read and may name an image", unread[0])
	}
	values, _ := chartvalues.Map(poolrelease.Values(obj.Object))
	source, _ := chartvalues.Map(values["source"])
	image, _ := chartvalues.Map(source["image"])
	if name, _ := image["name"].(string); name != "" {
		return GoldenPrefix + name, true, nil
	}
	return "", true, nil
}

// The vm-disk chart's releases, as cozystack-api names and labels them.
const (
	diskReleasePrefix = "vm-disk-"
	diskKind          = "VMDisk"
)

// isDiskRelease reports whether a HelmRelease is a vm-disk release: named
// vm-disk-<name>, and, when it carries cozystack-api's kind label, of kind
// VMDisk.
func isDiskRelease(obj *unstructured.Unstructured) bool {
	name, ok := strings.CutPrefix(obj.GetName(), diskReleasePrefix)
	if !ok || name == "" {
		return false
	}
	kind, labelled := obj.GetLabels()[poolrelease.KindLabel]
	return !labelled || kind == diskKind
}

// index is what clones an image's golden: the library's consumers
// (catalog.ConsumerIndex: disks, VirtualMachines, DataSources) and the
// vm-disk releases, each a consumer of no pool.
type index struct {
	*catalog.ConsumerIndex
	releases map[string][]catalog.Consumer
	// undecided are the vm-disk releases whose image could not be told.
	undecided []undecided
}

type undecided struct{ namespace, name, why string }

// helmReleaseKind is a vm-disk release's Consumer.Kind.
var helmReleaseKind = state.HelmRelease.String()

func newIndex(snap *state.Snapshot) *index {
	x := &index{ConsumerIndex: catalog.NewConsumerIndex(snap, noPools), releases: map[string][]catalog.Consumer{}}
	for hr := range stateindex.Of(snap).HelmReleases() {
		golden, ok, err := diskRelease(hr)
		switch {
		case err != nil:
			x.undecided = append(x.undecided, undecided{hr.GetNamespace(), hr.GetName(), err.Error()})
		case ok && golden != "":
			x.releases[golden] = append(x.releases[golden], catalog.Consumer{Kind: helmReleaseKind, Namespace: hr.GetNamespace(), Name: hr.GetName()})
		}
	}
	return x
}

// Of lists the consumers of a golden by namespace, name and kind.
func (x *index) Of(golden string) []catalog.Consumer {
	rs := x.releases[golden]
	if len(rs) == 0 {
		return x.ConsumerIndex.Of(golden)
	}
	out := append(append([]catalog.Consumer{}, x.ConsumerIndex.Of(golden)...), rs...)
	slices.SortFunc(out, func(a, b catalog.Consumer) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Kind, b.Kind))
	})
	return out
}

// Unobserved is the kinds that may clone an image's golden and were not
// observed in every namespace: what may hide a consumer.
func (x *index) Unobserved() state.Kind { return x.ConsumerIndex.Unobserved() & consumerKinds }

// Complete reports whether no consumer can be missing: noPools tells every
// pool, so only the kinds unread and the vm-disk releases undecided leave
// one out.
func (x *index) Complete() bool { return x.Unobserved() == 0 && len(x.undecided) == 0 }

// Radius is the golden's blast radius, uncertain only by the kinds that
// may clone an image's golden.
func (x *index) Radius(golden string) catalog.Radius {
	r := x.ConsumerIndex.Radius(golden)
	r.Unobserved = nil
	for _, k := range x.Unobserved().Each() {
		r.Unobserved = append(r.Unobserved, k.String())
	}
	return r
}

// Result is the consumers of a golden with a StateUnverified warning per
// kind that may clone it and was not observed in every namespace.
func (x *index) Result(golden string) catalog.ConsumersResult {
	res := catalog.ConsumersResult{Golden: golden, Consumers: append([]catalog.Consumer{}, x.Of(golden)...), BlastRadius: x.Radius(golden)}
	for _, k := range x.Unobserved().Each() {
		w := findings.NewWarning(guard.StateUnverified, field.NewPath("consumers"),
			"%s were not observed in every namespace, so consumers of golden %s may be missing; read them before deleting it", k.Plural(), golden)
		w.Kind, w.Subject = k.String(), subject
		res.Warnings = append(res.Warnings, w)
	}
	return res
}

// undecidedWarnings are a StateUnverified per vm-disk release whose image
// could not be told.
func (x *index) undecidedWarnings(fld *field.Path, consequence string) guard.Warnings {
	var out guard.Warnings
	for _, u := range x.undecided {
		w := findings.NewWarning(guard.StateUnverified, fld,
			"HelmRelease %s/%s is a VM disk whose image could not be told: %s; %s", u.namespace, u.name, u.why, consequence)
		w.Kind, w.Subject = state.HelmRelease.String(), subject
		out = append(out, w)
	}
	return out
}

// Consumers lists every object, in any namespace, that clones an image's
// golden (catalog.NewConsumerIndex): a vm-disk is the DataVolume
// vm-disk-<name> in its tenant's namespace whose source.pvc is the golden,
// and, before that DataVolume exists too, its HelmRelease vm-disk-<name>
// whose source.image.name names the image (a consumer of no pool);
// VirtualMachines, DataSources and other disks that clone it are listed
// beside them. Each consumer kind that was not observed in every
// namespace, and each vm-disk release whose image cannot be told, is a
// StateUnverified warning: the list may then be incomplete.
func Consumers(image string, snap *state.Snapshot) catalog.ConsumersResult {
	golden := GoldenPrefix + image
	x := newIndex(snap)
	res := x.Result(golden)
	res.Warnings = append(res.Warnings, x.undecidedWarnings(field.NewPath("consumers"), "golden "+golden+" may be among what it clones")...)
	return res
}

// Prune reports, for the goldens in cozy-public that no entry of the
// catalog names, which ones nothing clones (safe to delete by hand) and
// which are still cloned, with their consumers (Consumers: a VMDisk's
// release counts while its DataVolume does not exist yet). It fails
// closed: when a kind that may clone an image's golden (Consumers) or the goldens
// themselves were not observed in every namespace, a vm-disk release's
// image cannot be told, or the catalog is unknown, nothing is safe to
// delete, and a StateUnverified warning says why. It is a report: the
// library never deletes.
func Prune(cat *Catalog, snap *state.Snapshot) catalog.PruneReport {
	if snap == nil {
		snap = state.NewSnapshot(nil)
	}
	rep := catalog.PruneReport{SafeToDelete: []string{}, Kept: []catalog.Kept{}}
	fld := field.NewPath("safeToDelete")
	if !cat.Known() {
		w := findings.NewWarning(guard.StateUnverified, fld,
			"the values do not list images, so which goldens an entry manages is unknown and nothing is reported safe to delete; pass the values with their images")
		w.Subject = subject
		rep.Warnings = append(rep.Warnings, w)
		return rep
	}
	idx := newIndex(snap)
	names, missing := unmanaged(cat, snap)
	var unsure []string
	for _, n := range names {
		switch cs := idx.Of(n); {
		case len(cs) > 0:
			rep.Kept = append(rep.Kept, catalog.Kept{Name: n, Consumers: append([]catalog.Consumer{}, cs...), BlastRadius: idx.Radius(n)})
		case idx.Complete() && missing == 0:
			rep.SafeToDelete = append(rep.SafeToDelete, n)
		default:
			unsure = append(unsure, n)
		}
	}
	for _, k := range (missing | idx.Unobserved()).Each() {
		detail := k.Plural() + " were not observed in every namespace, so nothing is reported safe to delete"
		if len(unsure) > 0 {
			detail += " (unmanaged goldens with no consumer seen: " + strings.Join(unsure, ", ") + ")"
		}
		w := findings.NewWarning(guard.StateUnverified, fld, "%s; read them before deleting any golden", detail)
		w.Kind, w.Subject = k.String(), subject
		rep.Warnings = append(rep.Warnings, w)
	}
	rep.Warnings = append(rep.Warnings, idx.undecidedWarnings(fld, "nothing is reported safe to delete; read those values before deleting any golden")...)
	return rep
}
