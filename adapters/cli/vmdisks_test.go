package cli_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// imageGoldenDocs are the golden of image ubuntu, imported by the
// vm-default-images chart into cozy-public on replicated: its DataVolume,
// its PVC and the volume it is bound to.
const imageGoldenDocs = `apiVersion: cdi.kubevirt.io/v1beta1
kind: DataVolume
metadata:
  name: vm-default-images-ubuntu
  namespace: cozy-public
spec:
  source:
    http:
      url: https://cloud-images.example.com/ubuntu.img
  storage:
    storageClassName: replicated
    resources:
      requests:
        storage: 20Gi
status:
  phase: Succeeded
  progress: 100.0%
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: vm-default-images-ubuntu
  namespace: cozy-public
spec:
  accessModes: [ReadWriteMany]
  resources:
    requests:
      storage: 20Gi
  storageClassName: replicated
  volumeMode: Block
  volumeName: pvc-vm-default-images-ubuntu
status:
  accessModes: [ReadWriteMany]
  capacity:
    storage: 20Gi
  phase: Bound
---
apiVersion: v1
kind: PersistentVolume
metadata:
  name: pvc-vm-default-images-ubuntu
spec:
  accessModes: [ReadWriteMany]
  capacity:
    storage: 20Gi
  claimRef:
    kind: PersistentVolumeClaim
    name: vm-default-images-ubuntu
    namespace: cozy-public
  csi:
    driver: linstor.csi.linbit.com
    volumeHandle: pvc-vm-default-images-ubuntu
  storageClassName: replicated
  volumeMode: Block
status:
  phase: Bound
`

const imagesValues = `images:
  - name: ubuntu
    url: https://cloud-images.example.com/ubuntu.img
    storage: 20Gi
`

// imagesReleaseDoc is Cozystack's vm-default-images release with those
// values.
const imagesReleaseDoc = `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: vm-default-images
  namespace: cozy-system
spec:
  values:
    images:
      - name: ubuntu
        url: https://cloud-images.example.com/ubuntu.img
        storage: 20Gi
`

func vmDiskDoc(name, class string) string {
	doc := `apiVersion: apps.cozystack.io/v1alpha1
kind: VMDisk
metadata:
  name: ` + name + `
  namespace: tenant-demo
spec:
  source:
    image:
      name: ubuntu
  storage: 20Gi
`
	if class != "" {
		doc += "  storageClass: " + class + "\n"
	}
	return doc
}

type vmDiskOut struct {
	VMDisks []struct {
		Namespace, Name, Outcome, Clones string
		Refusals                         []finding
		Warnings                         []finding
	}
}

// A VMDisk cloned from an image into a class of the same LINSTOR driver
// but another than the image's is refused at spec.storageClass, naming the
// class to set: CDI would leave it unbound for ever. On the image's class
// it plans a clone.
func TestPlanVMDiskFile(t *testing.T) {
	st := write(t, "state.yaml", readExample(t, exampleState)+"\n---\n"+imageGoldenDocs)
	images := write(t, "images.yaml", imagesValues)

	local := exe(t, "", "plan", "-f", write(t, "local.yaml", vmDiskDoc("ubuntu-local", "local")), "--images", images, "--state", st)
	require.Equal(t, 3, local.code, "%s%s", local.stdout, local.stderr)
	assert.Contains(t, local.stdout, "tenant-demo/ubuntu-local: refused (1 refusal)")
	assert.Contains(t, local.stdout, "StorageClassMismatch at spec.storageClass")
	assert.Contains(t, local.stdout, "set spec.storageClass: replicated, the class the image lives on")
	assert.Contains(t, local.stdout, "1 VMDisk: 0 planned, 0 unverified, 1 refused")

	same := exe(t, "", "plan", "-f", write(t, "replicated.yaml", vmDiskDoc("ubuntu", "")), "--images", images, "--state", st, "-o", "json")
	require.Equal(t, 0, same.code, "%s%s", same.stdout, same.stderr)
	var out vmDiskOut
	require.NoError(t, json.Unmarshal([]byte(same.stdout), &out), same.stdout)
	require.Len(t, out.VMDisks, 1)
	d := out.VMDisks[0]
	assert.Equal(t, "planned", d.Outcome)
	assert.Equal(t, "cozy-public/vm-default-images-ubuntu", d.Clones)
	assert.Empty(t, d.Refusals)
}

// The VMDisks of a cluster, by name or by namespace, against the image
// catalog its vm-default-images release holds.
func TestPlanVMDisksFromCluster(t *testing.T) {
	api := newFakeAPI(t, readExample(t, exampleState)+"\n---\n"+imageGoldenDocs+"---\n"+imagesReleaseDoc+"---\n"+
		vmDiskDoc("ubuntu-local", "local")+"---\n"+vmDiskDoc("ubuntu", ""))
	kc := kubeconfig(t, "tenant-demo", [2]string{"api", api.URL})

	one := exe(t, "", "plan", "vmdisks/ubuntu-local", "--kubeconfig", kc)
	require.Equal(t, 3, one.code, "%s%s", one.stdout, one.stderr)
	assert.Contains(t, one.stdout, "StorageClassMismatch at spec.storageClass")
	assert.Contains(t, one.stderr, "images: the values of the HelmRelease cozy-system/vm-default-images")

	all := exe(t, "", "plan", "vmdisks", "-n", "tenant-demo", "--kubeconfig", kc, "-o", "json")
	require.Equal(t, 3, all.code, "%s%s", all.stdout, all.stderr)
	var out vmDiskOut
	require.NoError(t, json.Unmarshal([]byte(all.stdout), &out), all.stdout)
	outcomes := map[string]string{}
	for _, d := range out.VMDisks {
		outcomes[d.Name] = d.Outcome
	}
	assert.Equal(t, map[string]string{"ubuntu": "planned", "ubuntu-local": "refused"}, outcomes)

	planned := exe(t, "", "plan", "vmdisk/ubuntu", "--kubeconfig", kc)
	assert.Equal(t, 0, planned.code, "%s%s", planned.stdout, planned.stderr)
	assert.Contains(t, planned.stdout, `tenant-demo/ubuntu: planned, DataVolume vm-disk-ubuntu clones cozy-public/vm-default-images-ubuntu, on class "replicated"`)
	for _, p := range api.paths {
		assert.False(t, strings.HasSuffix(p, "/persistentvolumeclaims"), "a VMDisk's plan lists no PVCs: %s", p)
	}
}

// Pools and VMDisks are planned in runs of their own; what a VMDisk has
// not (chart text, bare values) is a usage error, exit 2.
func TestPlanVMDiskUsage(t *testing.T) {
	disk := write(t, "disk.yaml", vmDiskDoc("ubuntu", ""))
	mixed := write(t, "mixed.yaml", vmDiskDoc("ubuntu", "")+"---\n"+readExample(t, examplePools))
	for name, args := range map[string][]string{
		"pools and disks":    {"plan", "-f", mixed},
		"cluster and file":   {"plan", "vmdisks/ubuntu", "-f", disk},
		"chart output":       {"plan", "-f", disk, "-o", "chart"},
		"wide output":        {"plan", "-f", disk, "-o", "wide"},
		"a name and -A":      {"plan", "vmdisks/ubuntu", "-A"},
		"a pool beside them": {"plan", "vmdisks/ubuntu", "kubernetesnodes/demo-md0"},
	} {
		r := exe(t, "", args...)
		assert.Equal(t, 2, r.code, "%s: %s%s", name, r.stdout, r.stderr)
	}
	// The count names the kind as Kubernetes spells it, for one and many.
	r := exe(t, "", "plan", "-f", mixed)
	assert.Contains(t, r.stderr, "the files hold 2 KubernetesNodes and 1 VMDisk: plan pools and VMDisks in runs of their own")
	two := write(t, "two.yaml", vmDiskDoc("ubuntu", "")+"---\n"+vmDiskDoc("debian", "")+"---\n"+readExample(t, exampleRefused))
	r = exe(t, "", "plan", "-f", two)
	assert.Contains(t, r.stderr, "the files hold 1 KubernetesNodes and 2 VMDisks:")
	// Just clear of it: the disk's file alone plans (offline: no state, so
	// its clone is unverified and it is not refused).
	r = exe(t, "", "plan", "-f", disk, "--images", write(t, "images.yaml", imagesValues))
	assert.NotEqual(t, 2, r.code, "%s%s", r.stdout, r.stderr)
}
