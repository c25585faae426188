package catalog_test

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// A catalog's values, as a values file holds them: absent keys take the
// chart's defaults.
const catalogValues = `
enabled: true
images:
- schematicID: ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515
  version: v1.13.6
`

func ExampleRender() {
	var v catalog.Values
	if err := yaml.Unmarshal([]byte(catalogValues), &v); err != nil {
		panic(err)
	}
	// An observed cluster with no golden yet, on which CDI can render one.
	snap := state.NewSnapshot(renderingCluster(true))
	res, err := catalog.Render(catalog.Compile(v), snap)
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _ := yaml.Marshal(res.Goldens[0])
	fmt.Print(string(out))
	// Output:
	// apiVersion: cdi.kubevirt.io/v1beta1
	// kind: DataVolume
	// metadata:
	//   annotations:
	//     cdi.kubevirt.io/storage.bind.immediate.requested: "true"
	//     cdi.kubevirt.io/storage.usePopulator: "true"
	//     helm.sh/resource-policy: keep
	//     kubernetes-worker-image.cozystack.io/schematic-id: ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515
	//     kubernetes-worker-image.cozystack.io/talos-version: v1.13.6
	//   labels:
	//     app.kubernetes.io/managed-by: cozystack
	//   name: talos-worker-ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515-v1.13.6
	//   namespace: cozy-public
	// spec:
	//   contentType: kubevirt
	//   source:
	//     http:
	//       url: https://factory.talos.dev/image/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515/v1.13.6/openstack-amd64.raw.xz
	//   storage:
	//     resources:
	//       requests:
	//         storage: 6Gi
	//     storageClassName: replicated
	// status: {}
}

// renderingCluster is an observed cluster with the class "replicated" (the
// default), CDI's StorageProfile of it and CDI's config. knownProvisioner
// says whether CDI knows the class's provisioner: only then does its
// profile carry the claim property set (access modes and volume mode) CDI
// renders a PVC from.
func renderingCluster(knownProvisioner bool) *state.State {
	profile := cdiv1.StorageProfile{ObjectMeta: metav1.ObjectMeta{Name: "replicated"}}
	if knownProvisioner {
		block := corev1.PersistentVolumeBlock
		profile.Status.ClaimPropertySets = []cdiv1.ClaimPropertySet{{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}, VolumeMode: &block}}
	}
	return &state.State{
		Observed: state.AllKinds,
		StorageClasses: []storagev1.StorageClass{{ObjectMeta: metav1.ObjectMeta{Name: "replicated",
			Annotations: map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}}, Provisioner: "linstor.csi.linbit.com"}},
		StorageProfiles: []cdiv1.StorageProfile{profile},
		CDIConfigs:      []cdiv1.CDIConfig{{ObjectMeta: metav1.ObjectMeta{Name: "config"}}},
	}
}

// A golden CDI could never render a PVC for (here the class's StorageProfile
// knows no access modes) is refused before anything is applied, at the
// entry's field.
func ExampleRender_unrenderable() {
	v := catalog.Default()
	v.Enabled = true
	_, err := catalog.Render(catalog.Compile(v), state.NewSnapshot(renderingCluster(false)))
	var r *guard.Refusal
	if errors.As(err, &r) {
		fmt.Println(r.Reason, r.Field, r.BadValue)
	}
	// Output:
	// DiskUnrenderable images[0].storageClass replicated
}

// Growing an existing golden is an edit CDI would refuse: the catalog says so
// before anything is applied, with the entry's field and the way out.
func ExampleRender_refusedEdit() {
	v := catalog.Default()
	v.Enabled = true
	v.Images[0].Storage = "8Gi"
	cat := catalog.Compile(v)

	// The golden exists at 6Gi.
	img := catalog.Default().Images[0] // the default flavor
	shipped, _ := catalog.Compile(catalog.Default()).Lookup(img.Flavor)
	live := catalog.NewGolden(shipped)
	live.Status.Phase = cdiv1.Succeeded
	snap := state.NewSnapshot(&state.State{Observed: state.AllKinds, DataVolumes: []cdiv1.DataVolume{live}})

	_, err := catalog.Render(cat, snap)
	var r *guard.Refusal
	if errors.As(err, &r) {
		fmt.Println(r.Reason, r.Field, r.BadValue)
	}
	fmt.Println(errors.Is(err, guard.CatalogEntryImmutable))
	// Output:
	// CatalogEntryImmutable images[0].storage 8Gi
	// true
}

// Before deleting a golden by hand, ask what still clones it.
func ExampleConsumers() {
	img := catalog.Default().Images[0] // the default flavor
	golden := naming.GoldenPrefix + img.SchematicID + "-" + img.Version
	disk := func(ns, name, pool string) corev1.PersistentVolumeClaim {
		return corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: map[string]string{
			naming.GoldenAnnotation: golden, naming.PoolAnnotation: pool,
		}}}
	}
	snap := state.NewSnapshot(&state.State{Observed: state.AllKinds, PersistentVolumeClaims: []corev1.PersistentVolumeClaim{
		disk("tenant-b", "demo-md0-x7k2p", "kubernetes-demo-md0"),
		disk("tenant-a", "prod-md1-q9z4m", "kubernetes-prod-md1"),
	}})
	for _, c := range catalog.Consumers(golden, snap, plan.PoolGolden).Consumers {
		fmt.Println(c.Kind, c.Namespace, c.Name, c.Pool)
	}
	// Output:
	// PersistentVolumeClaim tenant-a prod-md1-q9z4m kubernetes-prod-md1
	// PersistentVolumeClaim tenant-b demo-md0-x7k2p kubernetes-demo-md0
}
