package apiserver_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/adapters/webhook"
	"github.com/cozystack/kubernetes-worker-image/internal/apiserver"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/naming"
)

// admissionDoc is the page whose first example is kubectl's answers.
const admissionDoc = "../../docs/admission.md"

// pendingPool is pending.yaml of the page's example: a pool that clones
// the catalog's flavor whose golden is still importing.
const pendingPool = `apiVersion: apps.cozystack.io/v1alpha1
kind: KubernetesNodes
metadata:
  name: demo-md1
  namespace: tenant-demo
spec:
  cluster: demo
  storageClass: replicated
  osImage:
    builtin:
      version: ` + pendingVersion + `
`

// localVMDisk is vmdisk.yaml of the page's example: a VMDisk cloned from
// the image alpine into linstor-local.
const localVMDisk = `apiVersion: apps.cozystack.io/v1alpha1
kind: VMDisk
metadata:
  name: alpine-local
  namespace: tenant-demo
spec:
  source:
    image:
      name: alpine
  storage: 20Gi
  storageClass: linstor-local
`

// TestAdmissionDocument runs the admission page's example on the real API
// server through kubectl, as a reader runs it: pool.yaml (the walkthrough's
// refused.yaml) is denied, pending.yaml admitted with its warning, and
// vmdisk.yaml denied, and kubectl prints exactly what the page shows.
func TestAdmissionDocument(t *testing.T) {
	e := apiserver.Get(t)
	e.Cluster(t)
	ctx := context.Background()
	s := serveWebhook(t, e, "worker-image-webhook-doc")
	pending := fixtures.GoldenDataVolume(mustGolden(t, pendingVersion), pendingVersion, fixtures.ReplicatedClass, "6Gi", cdiv1.ImportInProgress)
	e.Create(t, pending)
	removed(t, e, pending)
	cat := helmRelease(webhook.DefaultCatalogRelease().Namespace, webhook.DefaultCatalogRelease().Name, map[string]any{
		"chartRef": map[string]any{"kind": "ExternalArtifact", "name": "cozystack-kubernetes-worker-image-default-kubernetes-worker-image"},
		"values":   catalogValues(),
	})
	require.NoError(t, e.Client.Create(ctx, cat))
	removed(t, e, cat)
	apiserver.WaitCached(t, s.mgr.GetCache(), pending, cat)

	// The VM disks' part, as the VMDisk webhook's own test has it: the image
	// alpine on replicated, and linstor-local, a class of the image's
	// LINSTOR driver that binds WaitForFirstConsumer. (The suite's API server
	// never removes a deleted PVC, which keeps its protection finalizer, so
	// the image is another than that test's.)
	const local = "linstor-local"
	const golden = "vm-default-images-alpine"
	linstor := fixtures.ReplicatedProvisioner
	class := fixtures.StorageClass(local).Provisioner(linstor).Expansion(true).Binding(storagev1.VolumeBindingWaitForFirstConsumer).Obj()
	profile := fixtures.Profile(local, linstor, corev1.PersistentVolumeBlock, cdiv1.CloneStrategyCsiClone)
	dv := fixtures.DataVolume(naming.GoldenNamespace, golden).HTTP("https://cloud-images.example.com/alpine.img").
		Size("20Gi").Class(fixtures.ReplicatedClass).Phase(cdiv1.Succeeded).Obj()
	pvc := fixtures.PVC(naming.GoldenNamespace, golden).Class(fixtures.ReplicatedClass).Size("20Gi").
		VolumeMode(corev1.PersistentVolumeBlock).AccessModes(corev1.ReadWriteMany).Bound().Obj()
	pvc.Spec.VolumeName = "pv-" + golden
	objs := []client.Object{class, profile, dv, pvc, fixtures.VolumeOf(pvc, linstor)}
	e.Create(t, objs...)
	for _, o := range objs {
		removed(t, e, o)
	}
	images := helmRelease("cozy-system", "vm-default-images", map[string]any{"values": map[string]any{"images": []any{
		map[string]any{"name": "alpine", "url": "https://cloud-images.example.com/alpine.img", "storage": "20Gi"},
	}}})
	require.NoError(t, e.Client.Create(ctx, images))
	removed(t, e, images)
	apiserver.WaitCached(t, s.mgr.GetCache(), class, profile, dv, pvc)

	dir := t.TempDir()
	refused, err := os.ReadFile("../../examples/cli/refused.yaml")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "pool.yaml"), refused, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "pending.yaml"), []byte(pendingPool), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "vmdisk.yaml"), []byte(localVMDisk), 0o600))
	removed(t, e, kubernetesNodes(fixtures.TenantNamespace, "demo-md1", nil))

	page, err := os.ReadFile(admissionDoc)
	require.NoError(t, err)
	steps := kubectlSteps(string(page))
	require.Len(t, steps, 3, "the page's first example shows three kubectl runs")
	for _, st := range steps {
		out, err := e.KubectlIn(t, dir, strings.Fields(strings.TrimPrefix(st.command, "kubectl "))...)
		got := strings.TrimSuffix(string(out), "\n")
		if got != strings.Join(st.output, "\n") {
			t.Errorf("$ %s (error %v) prints\n%s\nand the page shows\n%s", st.command, err, got, strings.Join(st.output, "\n"))
		}
	}
}

// kubectlStep is a kubectl run the page shows, and what it prints.
type kubectlStep struct {
	command string
	output  []string
}

// kubectlSteps reads the page's first text block: its "$ kubectl …" lines
// and the lines shown after each.
func kubectlSteps(page string) []kubectlStep {
	var steps []kubectlStep
	in := false
	for line := range strings.SplitSeq(page, "\n") {
		switch {
		case !in && line == "```text":
			in = true
		case in && line == "```":
			return steps
		case !in:
		case strings.HasPrefix(line, "$ kubectl "):
			steps = append(steps, kubectlStep{command: strings.TrimPrefix(line, "$ ")})
		case len(steps) > 0:
			steps[len(steps)-1].output = append(steps[len(steps)-1].output, line)
		}
	}
	return steps
}
