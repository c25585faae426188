package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/catalogrelease"
	"github.com/cozystack/kubernetes-worker-image/catalog/vmimages"
	"github.com/cozystack/kubernetes-worker-image/internal/poolrelease"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/plan/vmdisk"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

// vmDiskGVK is the kind cozystack-api serves VMDisks as.
var vmDiskGVK = schema.GroupVersionKind{Group: "apps.cozystack.io", Version: "v1alpha1", Kind: "VMDisk"}

// vmDiskReleasePrefix starts the name of every vm-disk release.
const vmDiskReleasePrefix = "vm-disk-"

// isVMDiskRelease reports whether a HelmRelease is one cozystack-api made
// for a VMDisk, as the webhook recognises one: named vm-disk-<name>,
// labelled with the VMDisk kind and group.
func isVMDiskRelease(o *unstructured.Unstructured) bool {
	l := o.GetLabels()
	return strings.HasPrefix(o.GetName(), vmDiskReleasePrefix) &&
		l[poolrelease.KindLabel] == vmDiskGVK.Kind && l[poolrelease.GroupLabel] == vmDiskGVK.Group
}

// planDisk plans a VMDisk, or a vm-disk HelmRelease, as the webhook does
// (vmdisk.Plan against the image catalog and the cache), and records an
// Event on it when its verdict changes.
func (r *reconciler) planDisk(ctx context.Context, req ref) (ctrl.Result, error) {
	gvk := vmDiskGVK
	if req.Kind == vmDiskRelease {
		gvk = helmReleaseGVK
	}
	obj, err := r.fetch(ctx, req, gvk)
	if obj == nil || err != nil {
		return ctrl.Result{}, err
	}
	if req.Kind == vmDiskRelease && !isVMDiskRelease(obj) {
		r.forget(req)
		return ctrl.Result{}, nil
	}
	d, err := vmdisk.Decode(obj.Object)
	if err != nil {
		r.forget(req)
		return ctrl.Result{}, nil // not a VM disk: nothing to watch
	}
	need := vmdisk.Needs(d)
	images, err := r.imageCatalog(ctx)
	if u := (*ungranted)(nil); errors.As(err, &u) {
		if !clonesImage(need) {
			images, err = nil, nil // the catalog is not what it is planned against
		} else {
			// Told on the disk; still requeued (with backoff) until granted.
			r.unverifiedBy(req, obj, u, deps{disk: true, namespace: d.Namespace, image: true}, "its DataVolume is planned")
		}
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	st, err := r.reader.Read(ctx, need)
	if err != nil {
		r.metrics.planFailures.Inc()
		return ctrl.Result{}, err
	}
	snap := state.NewSnapshot(st)
	res, _ := vmdisk.Plan(d, images, snap)
	e := judge(res.Outcome, res.Refusals, res.Warnings)
	e.deps = diskDeps(d, need, res, snap)
	if changed, first := r.record(req, e); changed {
		r.events(obj, res.Refusals, res.Warnings, diskSummary(res), !first || !r.preexisting(obj))
	}
	return ctrl.Result{}, nil
}

// clonesImage reports whether a VM disk's plan reads a golden of the
// image catalog: only then does the catalog matter to it.
func clonesImage(need state.Request) bool {
	return slices.ContainsFunc(need.Gets, func(g state.Ref) bool { return g.Namespace == naming.GoldenNamespace })
}

// diskDeps is what a VM disk's plan rested on: its own DataVolume (once it
// exists the chart keeps it, and nothing else matters) and, for a clone,
// its source's DataVolume and PVC, the disk's class and the source's,
// their drivers, the cluster default when the class is left to it, and
// CDI.
func diskDeps(d vmdisk.VMDisk, need state.Request, res vmdisk.Result, snap *state.Snapshot) deps {
	dp := deps{disk: true, namespace: d.Namespace}
	for _, g := range need.Gets {
		if g.Kind == state.DataVolume || g.Kind == state.PersistentVolumeClaim {
			if k := g.Namespace + "/" + g.Name; !slices.Contains(dp.objects, k) {
				dp.objects = append(dp.objects, k)
			}
			dp.image = dp.image || g.Namespace == naming.GoldenNamespace
		}
	}
	if res.Exists || len(need.Lists) == 0 {
		return dp // no clone is planned: no class, profile or driver moves it
	}
	dp.cluster = true
	add := func(class string) {
		if class == "" || slices.Contains(dp.classes, class) {
			return
		}
		dp.classes = append(dp.classes, class)
		if sc := stateindex.Of(snap).StorageClass(class); sc != nil && !slices.Contains(dp.drivers, sc.Provisioner) {
			dp.drivers = append(dp.drivers, sc.Provisioner)
		}
	}
	add(res.StorageClass.Name)
	own := vmDiskReleasePrefix + d.Name
	for _, g := range need.Gets {
		if g.Kind == state.PersistentVolumeClaim && (g.Namespace != d.Namespace || g.Name != own) {
			add(stateindex.Of(snap).Disk(g.Namespace, g.Name).Class())
		}
	}
	dp.defaultUsed = res.StorageClass.From != storage.Explicit
	dp.any = res.StorageClass.Name == ""
	return dp
}

// diskSummary says what a VM disk's plan is, in a sentence.
func diskSummary(res vmdisk.Result) string {
	name := vmDiskReleasePrefix + res.Name
	switch {
	case res.Exists:
		return fmt.Sprintf("DataVolume %s exists: the vm-disk chart keeps its spec as it is", name)
	case res.Clones != "":
		return fmt.Sprintf("DataVolume %s clones %s on StorageClass %s", name, res.Clones, res.StorageClass.Name)
	}
	return fmt.Sprintf("DataVolume %s needs no clone: its source is %s", name, res.Source)
}

// memo keeps what was made of one state of a catalog release: the
// release's uid and resourceVersion, and the epoch, which a change to an
// object its spec.valuesFrom names moves. Without it, every plan would
// read those objects from the API server again.
type memo[T any] struct {
	epoch atomic.Uint64
	mu    sync.Mutex
	key   string
	val   T
}

// changed says an object the release's values come from changed.
func (m *memo[T]) changed() { m.epoch.Add(1) }

// get is what build makes of the release key names (release is nil when
// it does not exist), made again only when the release or the epoch
// moved.
func (m *memo[T]) get(ctx context.Context, c client.Reader, key types.NamespacedName,
	build func(release *unstructured.Unstructured) (T, error)) (T, error) {
	epoch := m.epoch.Load()
	var zero T
	hr := &unstructured.Unstructured{}
	hr.SetGroupVersionKind(helmReleaseGVK)
	err := c.Get(ctx, key, hr)
	version := string(hr.GetUID()) + "/" + hr.GetResourceVersion()
	switch {
	case apierrors.IsNotFound(err), meta.IsNoMatchError(err):
		hr, version = nil, "absent"
	case err != nil:
		return zero, err
	}
	version += "/" + strconv.FormatUint(epoch, 10)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.key == version {
		return m.val, nil
	}
	v, err := build(hr)
	if err != nil {
		return zero, err
	}
	m.key, m.val = version, v
	return v, nil
}

// imageCatalog is the image catalog, read from its release (the HelmRelease
// vm-default-images, its spec.valuesFrom included); nil (no catalog: an
// image clones whatever golden the cluster holds, as the webhook and the
// CLI plan it) when the release does not exist.
func (r *reconciler) imageCatalog(ctx context.Context) (*vmimages.Catalog, error) {
	cat, err := r.images.get(ctx, r.client, catalogrelease.Images, func(hr *unstructured.Unstructured) (*vmimages.Catalog, error) {
		if hr == nil {
			return nil, nil
		}
		rel, err := catalogrelease.Values(ctx, hr.Object, r.values)
		if err != nil {
			return nil, r.ungrantedOf(ctx, hr, "imageCatalog", err)
		}
		return vmimages.Decode(rel.Values), nil
	})
	if err != nil {
		return nil, fmt.Errorf("the image catalog's HelmRelease %s: %w", catalogrelease.Images, err)
	}
	return cat, nil
}
