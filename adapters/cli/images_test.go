package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// vmDiskDataVolume is the DataVolume the vm-disk chart made for VMDisk
// ubuntu: it clones the image's golden.
const vmDiskDataVolume = `apiVersion: cdi.kubevirt.io/v1beta1
kind: DataVolume
metadata:
  name: vm-disk-ubuntu
  namespace: tenant-demo
spec:
  source:
    pvc:
      name: vm-default-images-ubuntu
      namespace: cozy-public
  storage:
    storageClassName: replicated
    resources:
      requests:
        storage: 20Gi
status:
  phase: Succeeded
`

// retiredImage is the golden of an image the catalog dropped.
const retiredImage = `apiVersion: cdi.kubevirt.io/v1beta1
kind: DataVolume
metadata:
  name: vm-default-images-centos
  namespace: cozy-public
spec:
  source:
    http:
      url: https://cloud-images.example.com/centos.img
  storage:
    storageClassName: replicated
    resources:
      requests:
        storage: 20Gi
status:
  phase: Succeeded
`

// The image catalog: its goldens render as the chart does, an edit of a
// live one is refused, what clones an image is listed, and prune keeps a
// retired golden only while something clones it.
func TestCatalogImages(t *testing.T) {
	st := write(t, "state.yaml", readExample(t, exampleState)+"\n---\n"+imageGoldenDocs+"---\n"+vmDiskDataVolume+"---\n"+retiredImage)
	images := write(t, "images.yaml", imagesValues)

	render := exe(t, "", "catalog", "images", "render", "--images", images, "--state", st)
	require.Equal(t, 0, render.code, "%s%s", render.stdout, render.stderr)
	assert.Contains(t, render.stdout, "name: vm-default-images-ubuntu")
	assert.Contains(t, render.stderr, "vm-default-images-centos", "the retired golden is named unmanaged")

	edited := write(t, "edited.yaml", `images:
  - name: ubuntu
    url: https://cloud-images.example.com/ubuntu-24.04.img
    storage: 20Gi
`)
	refused := exe(t, "", "catalog", "images", "render", "--images", edited, "--state", st)
	assert.Equal(t, 3, refused.code, "%s%s", refused.stdout, refused.stderr)
	assert.Contains(t, refused.stderr, "CatalogEntryImmutable")

	consumers := exe(t, "", "catalog", "images", "consumers", "ubuntu", "--state", st, "--observed", "all", "-o", "json")
	require.Equal(t, 0, consumers.code, "%s%s", consumers.stdout, consumers.stderr)
	var got struct {
		Golden    string
		Consumers []struct{ Kind, Namespace, Name string }
	}
	require.NoError(t, json.Unmarshal([]byte(consumers.stdout), &got), consumers.stdout)
	assert.Equal(t, "vm-default-images-ubuntu", got.Golden)
	assert.Contains(t, got.Consumers, struct{ Kind, Namespace, Name string }{"DataVolume", "tenant-demo", "vm-disk-ubuntu"})

	prune := exe(t, "", "catalog", "images", "prune", "--images", images, "--state", st, "--observed", "all", "-o", "json")
	require.Equal(t, 0, prune.code, "%s%s", prune.stdout, prune.stderr)
	var rep struct{ SafeToDelete []string }
	require.NoError(t, json.Unmarshal([]byte(prune.stdout), &rep), prune.stdout)
	assert.Equal(t, []string{"vm-default-images-centos"}, rep.SafeToDelete)

	// Just clear of it: without --observed the state file's consumers
	// count only where it holds them, and nothing is safe to delete.
	unsure := exe(t, "", "catalog", "images", "prune", "--images", images, "--state", st, "-o", "json")
	require.NoError(t, json.Unmarshal([]byte(unsure.stdout), &rep), unsure.stdout)
	assert.Empty(t, rep.SafeToDelete)
	assert.Equal(t, 4, unsure.code, "unverified, as catalog prune is: %s", unsure.stderr)
	assert.Contains(t, unsure.stdout, `"outcome": "unverified"`)
	text := exe(t, "", "catalog", "images", "prune", "--images", images, "--state", st)
	assert.Equal(t, 4, text.code)
	assert.NotContains(t, text.stdout, "safe to delete (", "an unread kind never reads as a count of goldens safe to delete")
	floor := exe(t, "", "catalog", "images", "consumers", "ubuntu", "--state", st)
	assert.Equal(t, 4, floor.code, "consumers of a dump of some namespaces are a floor: %s", floor.stderr)
	assert.Contains(t, floor.stdout, "unverified, at least 1 consumer")

	// Dropping an image a disk clones: render names its consumers' golden
	// unmanaged, prune keeps it.
	none := write(t, "none.yaml", "images: []\n")
	kept := exe(t, "", "catalog", "images", "prune", "--images", none, "--state", st, "--observed", "all")
	assert.Contains(t, kept.stdout, "vm-default-images-ubuntu: 1 consumer")
	assert.Contains(t, kept.stdout, "DataVolume tenant-demo/vm-disk-ubuntu")

	// Without a catalog, render and prune say what they need.
	missing := exe(t, "", "catalog", "images", "prune", "--state", st)
	assert.Equal(t, 2, missing.code, "%s%s", missing.stdout, missing.stderr)
	assert.Contains(t, missing.stderr, "--images IMAGES.yaml is required")
}

// vmDiskRelease is the HelmRelease cozystack-api made for VMDisk fresh,
// whose DataVolume does not exist yet: it clones the retired image.
const vmDiskRelease = `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: vm-disk-fresh
  namespace: tenant-demo
  labels:
    apps.cozystack.io/application.kind: VMDisk
    apps.cozystack.io/application.group: apps.cozystack.io
spec:
  valuesFrom:
  - kind: Secret
    name: cozystack-values
  values:
    source:
      image:
        name: centos
    storage: 20Gi
`

// A VMDisk clones its image before its DataVolume exists: its release is
// a consumer, and prune keeps the golden it names.
func TestCatalogImagesCountsVMDiskReleases(t *testing.T) {
	st := write(t, "state.yaml", readExample(t, exampleState)+"\n---\n"+imageGoldenDocs+"---\n"+retiredImage+"---\n"+vmDiskRelease)
	images := write(t, "images.yaml", imagesValues)

	consumers := exe(t, "", "catalog", "images", "consumers", "centos", "--state", st, "--observed", "all", "-o", "json")
	require.Equal(t, 0, consumers.code, "%s%s", consumers.stdout, consumers.stderr)
	var got struct {
		Consumers []struct{ Kind, Namespace, Name string }
	}
	require.NoError(t, json.Unmarshal([]byte(consumers.stdout), &got), consumers.stdout)
	assert.Equal(t, []struct{ Kind, Namespace, Name string }{{"HelmRelease", "tenant-demo", "vm-disk-fresh"}}, got.Consumers)

	prune := exe(t, "", "catalog", "images", "prune", "--images", images, "--state", st, "--observed", "all", "-o", "json")
	require.Equal(t, 0, prune.code, "%s%s", prune.stdout, prune.stderr)
	var rep struct {
		SafeToDelete []string
		Kept         []struct{ Name string }
	}
	require.NoError(t, json.Unmarshal([]byte(prune.stdout), &rep), prune.stdout)
	assert.Empty(t, rep.SafeToDelete, "the golden a VMDisk will clone is not safe to delete")
	assert.Equal(t, []struct{ Name string }{{"vm-default-images-centos"}}, rep.Kept)
	text := exe(t, "", "catalog", "images", "prune", "--images", images, "--state", st, "--observed", "all")
	assert.Contains(t, text.stdout, "HelmRelease tenant-demo/vm-disk-fresh")
}

// The walkthrough's files, as docs/vmdisks.md passes them.
var (
	exampleImages  = filepath.Join("..", "..", "examples", "cli", "images.yaml")
	exampleVMState = filepath.Join("..", "..", "examples", "cli", "vmstate.yaml")
)

// imageConsumerKinds are the kinds that may clone an image's golden; a
// worker pool and its KubevirtMachineTemplate never do.
var imageConsumerKinds = []string{"PersistentVolumeClaim", "DataVolume", "VirtualMachine", "DataSource", "HelmRelease"}

// An image's golden is safe to delete once every kind that may clone one
// was read, and only then: a KubevirtMachineTemplate or a KubernetesNodes
// unread hides none.
func TestCatalogImagesNeedWhatClonesAnImage(t *testing.T) {
	observed := strings.Join(imageConsumerKinds, ",")
	prune := exe(t, "", "catalog", "images", "prune", "--images", exampleImages, "--state", exampleVMState, "--observed", observed)
	require.Equal(t, 0, prune.code, "%s%s", prune.stdout, prune.stderr)
	assert.Contains(t, prune.stdout, "safe to delete (unmanaged, nothing clones them): 1\n  vm-default-images-fedora-40\n")
	assert.Empty(t, prune.stderr)
	consumers := exe(t, "", "catalog", "images", "consumers", "debian-12", "--state", exampleVMState, "--observed", observed)
	assert.Equal(t, 0, consumers.code, "%s%s", consumers.stdout, consumers.stderr)
	assert.Empty(t, consumers.stderr)

	// Fail-closed: any one of them unread, nothing is safe to delete, and
	// the warning names it.
	for i, k := range imageConsumerKinds {
		fewer := strings.Join(append(append([]string{}, imageConsumerKinds[:i]...), imageConsumerKinds[i+1:]...), ",")
		if k == "PersistentVolumeClaim" || k == "DataVolume" {
			fewer += ",KubevirtMachineTemplate,KubernetesNodes" // the file holds them: named or not, they are read
		}
		r := exe(t, "", "catalog", "images", "prune", "--images", exampleImages, "--state", exampleVMState, "--observed", fewer, "-o", "json")
		assert.Equal(t, 4, r.code, "%s unread: %s", k, r.stderr)
		assert.Contains(t, r.stdout, `"safeToDelete": []`, "%s unread", k)
		assert.Contains(t, r.stderr, "StateUnverified at safeToDelete: "+k, "%s unread", k)
	}

	// From the file alone, the note names exactly those kinds, each
	// in its plural.
	unsure := exe(t, "", "catalog", "images", "prune", "--images", exampleImages, "--state", exampleVMState)
	assert.Equal(t, 4, unsure.code)
	assert.Contains(t, unsure.stderr, "(or --observed "+observed+")")
	for _, never := range []string{"KubevirtMachineTemplate", "KubernetesNodes"} {
		assert.NotContains(t, unsure.stderr, never)
	}
}

// The image catalog's goldens print as the chart renders them, with no
// status; a retired golden's warning counts its clones in words.
func TestCatalogImagesRenderText(t *testing.T) {
	r := exe(t, "", "catalog", "images", "render", "--images", exampleImages, "--state", exampleVMState)
	require.Equal(t, 0, r.code, "%s%s", r.stdout, r.stderr)
	assert.True(t, strings.HasPrefix(r.stdout, "---\napiVersion: cdi.kubevirt.io/v1beta1\nkind: DataVolume\n"), r.stdout)
	assert.True(t, strings.HasSuffix(r.stdout, "    storageClassName: replicated\n"), "the golden ends with its spec, as catalog render's do:\n%s", r.stdout)
	assert.NotContains(t, r.stdout, "status:")
	assert.Contains(t, r.stderr, "golden vm-default-images-debian-12 is in no entry, and 1 object clones it (DataVolume tenant-demo/vm-disk-build)")

	// As the worker catalog's render prints its goldens.
	worker := exe(t, "", "catalog", "render", "--example")
	assert.NotContains(t, worker.stdout, "status:")
}
