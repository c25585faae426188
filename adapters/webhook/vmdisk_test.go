package webhook_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/naming"
)

var vmDiskKind = metav1.GroupVersionKind{Group: "apps.cozystack.io", Version: "v1alpha1", Kind: "VMDisk"}

// linstorCluster is Cozystack on LINSTOR: the default class replicated
// and the node-local local (WaitForFirstConsumer), one driver, and the
// golden of image ubuntu imported on replicated; with the
// vm-default-images release when images is set.
func linstorCluster(images bool) []client.Object {
	const linstor = fixtures.ReplicatedProvisioner
	const golden = "vm-default-images-ubuntu"
	dv := fixtures.DataVolume(naming.GoldenNamespace, golden).HTTP("https://cloud-images.example.com/ubuntu.img").
		Size("20Gi").Class("replicated").Phase(cdiv1.Succeeded).Obj()
	pvc := fixtures.PVC(naming.GoldenNamespace, golden).Class("replicated").Size("20Gi").VolumeMode(corev1.PersistentVolumeBlock).
		AccessModes(corev1.ReadWriteMany).Bound().Obj()
	objs := []client.Object{
		fixtures.StorageClass("replicated").Provisioner(linstor).Default().Expansion(true).Binding(storagev1.VolumeBindingImmediate).Obj(),
		fixtures.StorageClass("local").Provisioner(linstor).Expansion(true).Binding(storagev1.VolumeBindingWaitForFirstConsumer).Obj(),
		fixtures.Profile("replicated", linstor, corev1.PersistentVolumeBlock, cdiv1.CloneStrategyCsiClone),
		fixtures.Profile("local", linstor, corev1.PersistentVolumeBlock, cdiv1.CloneStrategyCsiClone),
		fixtures.Driver(linstor), fixtures.CDI(nil),
		fixtures.CDIConfig(fixtures.DefaultOverhead, "replicated", "local"),
		dv, pvc, fixtures.VolumeOf(pvc, linstor),
	}
	if images {
		objs = append(objs, release("cozy-system", "vm-default-images", map[string]any{"values": map[string]any{"images": []any{
			map[string]any{"name": "ubuntu", "url": "https://cloud-images.example.com/ubuntu.img", "storage": "20Gi"},
		}}}))
	}
	return objs
}

func vmDisk(name string, spec map[string]any) map[string]any {
	return map[string]any{"apiVersion": "apps.cozystack.io/v1alpha1", "kind": "VMDisk",
		"metadata": map[string]any{"namespace": fixtures.TenantNamespace, "name": name}, "spec": spec}
}

func imageSpec(class string) map[string]any {
	spec := map[string]any{"source": map[string]any{"image": map[string]any{"name": "ubuntu"}}, "storage": "20Gi"}
	if class != "" {
		spec["storageClass"] = class
	}
	return spec
}

// A VMDisk cloned from an image into a class of the image's driver other
// than the image's is refused at kubectl apply, at spec.storageClass,
// with the class to set: CDI would leave its DataVolume unbound for ever,
// and nothing would say why. On the image's class it is admitted.
func TestVMDisks(t *testing.T) {
	v := validator(linstorCluster(true)...)
	hook := v.VMDisks()

	r := hook.Handle(context.Background(), request(t, admissionv1.Create, vmDiskKind, vmDisk("ubuntu-local", imageSpec("local")), nil))
	require.False(t, r.Allowed)
	assert.Equal(t, []cause{{"StorageClassMismatch", "spec.storageClass"}}, causes(r))
	assert.Contains(t, r.Result.Message, "VMDisk tenant-demo/ubuntu-local is refused")
	assert.Contains(t, r.Result.Message, "set spec.storageClass: replicated, the class the image lives on")

	r = hook.Handle(context.Background(), request(t, admissionv1.Create, vmDiskKind, vmDisk("ubuntu", imageSpec("")), nil))
	assert.True(t, r.Allowed, "%+v", r.Result)

	// An image the catalog has not: refused, with the way out.
	r = hook.Handle(context.Background(), request(t, admissionv1.Create, vmDiskKind, vmDisk("arch", map[string]any{
		"source": map[string]any{"image": map[string]any{"name": "arch"}}}), nil))
	require.False(t, r.Allowed)
	assert.Equal(t, "spec.source.image.name", causes(r)[0].Field)

	// A disk that clones nothing needs no guard.
	r = hook.Handle(context.Background(), request(t, admissionv1.Create, vmDiskKind, vmDisk("blank", map[string]any{}), nil))
	assert.True(t, r.Allowed, "%+v", r.Result)

	// Another kind at this webhook is a bad request.
	r = hook.Handle(context.Background(), request(t, admissionv1.Create, poolKind, pool(fixtures.TenantNamespace, "p", builtin(nil)), nil))
	require.False(t, r.Allowed)
	assert.Equal(t, int32(400), r.Result.Code)
}

// The vm-disk HelmRelease cozystack-api makes for a VMDisk is judged as
// its VMDisk, at spec.values; another release of that name, without the
// VMDisk's labels, is not one.
func TestVMDiskReleases(t *testing.T) {
	v := validator(linstorCluster(true)...)
	rel := release(fixtures.TenantNamespace, "vm-disk-ubuntu-local", map[string]any{"values": imageSpec("local")})
	rel.SetLabels(map[string]string{"apps.cozystack.io/application.kind": "VMDisk", "apps.cozystack.io/application.group": "apps.cozystack.io"})
	r := v.Releases().Handle(context.Background(), request(t, admissionv1.Create, releaseKind, rel, nil))
	require.False(t, r.Allowed)
	assert.Equal(t, []cause{{"StorageClassMismatch", "spec.values.storageClass"}}, causes(r))

	unlabelled := release(fixtures.TenantNamespace, "vm-disk-ubuntu-local", map[string]any{"values": imageSpec("local")})
	r = v.Releases().Handle(context.Background(), request(t, admissionv1.Create, releaseKind, unlabelled, nil))
	assert.True(t, r.Allowed, "not a VMDisk's release: %+v", r.Result)
}

// Without the vm-default-images release there is no image catalog: the
// golden in the cluster is what an image clones, and the answer says so.
func TestVMDiskWithoutImageCatalog(t *testing.T) {
	v := validator(linstorCluster(false)...)
	r := v.VMDisks().Handle(context.Background(), request(t, admissionv1.Create, vmDiskKind, vmDisk("ubuntu", imageSpec("")), nil))
	require.True(t, r.Allowed, "%+v", r.Result)
	assert.True(t, strings.Contains(strings.Join(r.Warnings, "\n"), "vm-default-images does not exist"), "%q", r.Warnings)
}

// The image catalog's values come through the Secret its release's
// valuesFrom names, as the CLI and the controller read them: an image
// only that Secret lists is the catalog's, and a VMDisk of it, whose
// golden is not imported yet, is admitted, pending; without the Secret's
// values no catalog makes its golden, and it is refused.
func TestVMDiskImagesFromValuesFrom(t *testing.T) {
	images := release("cozy-system", "vm-default-images", map[string]any{"valuesFrom": []any{
		map[string]any{"kind": "Secret", "name": "cozystack-values"},
		map[string]any{"kind": "Secret", "name": "images-values"},
	}})
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "cozy-system", Name: "images-values"},
		Data: map[string][]byte{"values.yaml": []byte("images: [{name: debian, url: 'https://cloud-images.example.com/debian.img', storage: 20Gi}]\n")}}
	debian := map[string]any{"source": map[string]any{"image": map[string]any{"name": "debian"}}, "storage": "20Gi", "storageClass": "replicated"}

	hook := validator(append(linstorCluster(false), images, secret)...).VMDisks()
	r := hook.Handle(context.Background(), request(t, admissionv1.Create, vmDiskKind, vmDisk("debian", debian), nil))
	assert.True(t, r.Allowed, "%+v", r.Result)
	assert.Contains(t, strings.Join(r.Warnings, "\n"), "GoldenPending")

	secret.Data = map[string][]byte{"values.yaml": []byte("images: []\n")}
	hook = validator(append(linstorCluster(false), images, secret)...).VMDisks()
	r = hook.Handle(context.Background(), request(t, admissionv1.Create, vmDiskKind, vmDisk("debian", debian), nil))
	require.False(t, r.Allowed)
	assert.Equal(t, []cause{{"GoldenNotInCatalog", "spec.source.image.name"}}, causes(r))
}
