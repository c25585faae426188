package webhook

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/catalogrelease"
	"github.com/cozystack/kubernetes-worker-image/catalog/vmimages"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/plan/vmdisk"
)

// VMDisksPath validates VMDisks.
const VMDisksPath = "/validate-vmdisks"

// subjectVMDisk is the metrics' subject of a VMDisk, or of its vm-disk
// release.
const subjectVMDisk = "vmdisk"

// vmDiskGK is the kind cozystack-api serves VMDisks as.
var vmDiskGK = schema.GroupKind{Group: "apps.cozystack.io", Kind: "VMDisk"}

// The vm-disk chart's releases, as cozystack-api names and labels them.
const vmDiskReleasePrefix = "vm-disk-"

// imagesRelease is the image catalog's HelmRelease.
var imagesRelease = catalogrelease.Images

// vmDisks is the webhook of VMDisks (apps.cozystack.io/v1alpha1), served
// at VMDisksPath: each create or update is planned as the vm-disk chart
// renders it, and refused where CDI would never finish its DataVolume or
// would copy it over the pod network.
func (v *Validator) vmDisks() *admission.Webhook {
	return &admission.Webhook{Handler: handler{resource: "vmdisks", kind: vmDiskGK, timeout: readTimeout, decide: v.vmDisk}}
}

// vmDisk decides a VMDisk create or update.
func (v *Validator) vmDisk(ctx context.Context, req admission.Request) decision {
	obj, err := decodeObject(req.Object.Raw)
	if err != nil {
		return badRequest(subjectNone, "the request's object: %v", err)
	}
	typed(obj, req)
	fillMeta(obj, req)
	d, err := vmdisk.Decode(obj)
	if err != nil {
		return badRequest(subjectNone, "this webhook validates VMDisks: %v", err)
	}
	return v.admitVMDisk(ctx, target{gk: vmDiskGK, namespace: d.Namespace, name: d.Name, values: "spec"}, d)
}

// isVMDiskRelease reports whether a HelmRelease is one cozystack-api made
// for a VMDisk: named vm-disk-<name>, labelled with the VMDisk kind.
func isVMDiskRelease(obj map[string]any) bool {
	meta, _ := obj["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	labels, _ := meta["labels"].(map[string]any)
	return strings.HasPrefix(name, vmDiskReleasePrefix) && labels[applicationKindLabel] == vmDiskGK.Kind && labels[applicationGroupLabel] == vmDiskGK.Group
}

// admitVMDiskRelease plans the VMDisk of a vm-disk release.
func (v *Validator) admitVMDiskRelease(ctx context.Context, obj map[string]any) decision {
	d, err := vmdisk.Decode(obj)
	if err != nil {
		return badRequest(subjectVMDisk, "%v", err)
	}
	return v.admitVMDisk(ctx, releaseTarget(obj), d)
}

// admitVMDisk plans a VMDisk against the image catalog and the cluster's
// state: planned, it is admitted with its warnings; refused, it is
// denied. Only a create is planned: once its DataVolume exists the chart
// keeps it, and the plan says so.
func (v *Validator) admitVMDisk(ctx context.Context, t target, disk vmdisk.VMDisk) decision {
	if err := v.denied(); err != nil {
		return readFailure(subjectVMDisk, err, "the cluster")
	}
	images, note, err := v.images(ctx)
	if err != nil {
		return readFailure(subjectVMDisk, err, "the image catalog")
	}
	st, err := v.state.Read(ctx, vmdisk.Needs(disk))
	if err != nil {
		return readFailure(subjectVMDisk, err, "the cluster's state")
	}
	res, _ := vmdisk.Plan(disk, images, state.NewSnapshot(st))
	d := decision{subject: subjectVMDisk, outcome: outcomeAdmitted}
	for _, w := range res.Warnings {
		d.warn(t, w)
	}
	if note != "" && res.Clones != "" {
		d.note("%s", note)
	}
	if len(res.Refusals) > 0 {
		d.refuse(t, res.Refusals)
	}
	return d
}

// images reads the image catalog: the values of the vm-default-images
// release, its spec.valuesFrom included (as the CLI and the controller
// read them), read from the API server (not the cache: VMDisks are few,
// and the release one object a Role grants by name). A release that does not
// exist is no catalog, which note says: an image then clones whatever
// golden the cluster holds.
func (v *Validator) images(ctx context.Context) (*vmimages.Catalog, string, error) {
	hr := &unstructured.Unstructured{}
	hr.SetGroupVersionKind(helmReleaseGVK)
	err := v.api.Get(ctx, imagesRelease, hr)
	switch {
	case apierrors.IsNotFound(err), meta.IsNoMatchError(err):
		return nil, fmt.Sprintf("the image catalog's HelmRelease %s does not exist: an image is cloned from whatever golden the cluster holds", imagesRelease), nil
	case apierrors.IsForbidden(err):
		return nil, "", fmt.Errorf("forbidden: grant get on helmreleases.%s in namespace %s (resourceNames: %s)", helmReleaseGVK.Group, imagesRelease.Namespace, imagesRelease.Name)
	case err != nil:
		return nil, "", err
	}
	rel, err := catalogrelease.Values(ctx, hr.Object, v.values)
	if err != nil {
		return nil, "", fmt.Errorf("the image catalog's HelmRelease %s: %w", imagesRelease, err)
	}
	return vmimages.Decode(rel.Values), "", nil
}

// fillMeta gives an object the request's namespace and name where its
// metadata leaves them out.
func fillMeta(obj map[string]any, req admission.Request) {
	meta, _ := obj["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		obj["metadata"] = meta
	}
	if ns, _ := meta["namespace"].(string); ns == "" && req.Namespace != "" {
		meta["namespace"] = req.Namespace
	}
	if n, _ := meta["name"].(string); n == "" && req.Name != "" {
		meta["name"] = req.Name
	}
}
