package catalog

import (
	"errors"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// The objects of these tests are internal/fixtures'; the functions here
// only fix the arguments the catalog's tests vary.

const (
	idA      = "aaa111"
	idB      = "bbb222"
	v1136    = "v1.13.6"
	factory  = "https://factory.talos.dev"
	tenantNS = "tenant-a"
)

var (
	t0      = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	goldenA = naming.GoldenPrefix + idA + "-" + v1136
	goldenB = naming.GoldenPrefix + idB + "-" + v1136
	urlA    = naming.ImageURL(factory, idA, v1136)
)

// values is an enabled catalog on class "replicated", 6Gi, of the images.
func values(images ...Image) Values {
	return Values{Enabled: true, ImageFactoryURL: factory, StorageClass: "replicated", Storage: "6Gi", Images: images}
}

// entryAt is the catalog's i-th entry.
func entryAt(c *Catalog, i int) Entry { return slices.Collect(c.Entries())[i] }

// scClass is a StorageClass created at t0, the cluster default when
// isDefault.
func scClass(name string, isDefault bool) *storagev1.StorageClass {
	b := fixtures.StorageClass(name).Provisioner(provisioner).Created(t0)
	if isDefault {
		b.Default()
	}
	return b.Obj()
}

// liveDV is a populated golden DataVolume of idA's kind at v1.13.6; class
// "" leaves it classless.
func liveDV(id, url, size, class string) cdiv1.DataVolume {
	return *fixtures.GoldenVolume(id, v1136).HTTP(url).Size(size).Class(class).Obj()
}

// livePVC is a golden's PVC bound on class; endpoint "" leaves out CDI's
// import-endpoint annotation.
func livePVC(id, class, size, endpoint string) corev1.PersistentVolumeClaim {
	return *fixtures.GoldenClaim(id, v1136).Class(class).Size(size).Endpoint(endpoint).Obj()
}

// provisioner is the CSI driver of the classes these tests create.
const provisioner = "csi.example.com"

// renders are the objects by which CDI renders a golden's PVC on class:
// its StorageProfile, whose first claim property set is ReadWriteMany
// Block (CDI's CDIConfig is cdiConfig).
func renders(class string) *cdiv1.StorageProfile {
	return fixtures.StorageProfile(class).Provisioner(provisioner).VolumeMode(corev1.PersistentVolumeBlock).Obj()
}

// cdiConfig is CDI's CDIConfig, with the default overhead for classes.
func cdiConfig(classes ...string) *cdiv1.CDIConfig {
	return fixtures.CDIConfig(fixtures.DefaultOverhead, classes...)
}

// cluster is a fully observed cluster whose default class is "replicated",
// on which CDI renders a golden on "replicated" and "local": both classes
// have their StorageProfile, and CDI its CDIConfig.
func cluster(dvs []cdiv1.DataVolume, pvcs []corev1.PersistentVolumeClaim) *state.State {
	s := fixtures.State(state.AllKinds, scClass("replicated", true), scClass("local", false),
		renders("replicated"), renders("local"), cdiConfig("replicated", "local"))
	s.DataVolumes, s.PersistentVolumeClaims = dvs, pvcs
	return s
}

// workerDV is a worker disk in ns that clones golden by annotation.
func workerDV(ns, name, golden, pool string) cdiv1.DataVolume {
	return *fixtures.DataVolume(ns, name).WorkerOf(pool, golden).Obj()
}

// sourceDV is a DataVolume in ns that clones golden by source.pvc only.
func sourceDV(ns, name, golden string) cdiv1.DataVolume {
	return *fixtures.DataVolume(ns, name).Clones(golden).Obj()
}

// readPools is the catalog's tests' PoolReader: a test pool names its pool
// and its golden in spec.pool and spec.golden; spec.unreadable makes its
// golden one that cannot be told. The planner's own reading is
// plan.PoolGolden, tested beside the planner.
func readPools(_ state.Kind, o *unstructured.Unstructured) (string, string, error) {
	if why, _, _ := unstructured.NestedString(o.Object, "spec", "unreadable"); why != "" {
		pool, _, _ := unstructured.NestedString(o.Object, "spec", "pool")
		return pool, "", errors.New(why)
	}
	pool, _, _ := unstructured.NestedString(o.Object, "spec", "pool")
	golden, _, _ := unstructured.NestedString(o.Object, "spec", "golden")
	return pool, golden, nil
}
