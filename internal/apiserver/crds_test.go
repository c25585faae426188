package apiserver_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"

	"github.com/cozystack/kubernetes-worker-image/internal/apiserver"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
)

// deleted deletes objs when the test ends, so that the package's shared
// cluster is as the fixture made it.
func deleted(t *testing.T, e *apiserver.Env, objs ...client.Object) {
	t.Helper()
	t.Cleanup(func() {
		for _, o := range objs {
			require.NoError(t, client.IgnoreNotFound(e.Client.Delete(context.Background(), o)), "delete %s", o.GetName())
		}
	})
}

// The suite's CRDs keep what the adapters read: a VolumeSnapshotClass's
// driver, deletionPolicy and parameters at its top level (the CSI
// snapshotter's kind has no spec), and a CDIConfig's status, written
// through its subresource.
func TestCRDsKeepTheirFields(t *testing.T) {
	e := apiserver.Get(t)
	ctx := context.Background()

	vsc := fixtures.SnapshotClass("crd-check", fixtures.ReplicatedProvisioner, true)
	vsc.Parameters = map[string]string{"snap.linstor.csi.linbit.com/relocate-after-restore": "true"}
	config := fixtures.CDIConfig("0.08", fixtures.ReplicatedClass)
	config.Name = "crd-check"
	e.Create(t, vsc, config)
	deleted(t, e, vsc, config)

	var gotVSC snapshotv1.VolumeSnapshotClass
	require.NoError(t, e.Client.Get(ctx, client.ObjectKeyFromObject(vsc), &gotVSC))
	assert.Equal(t, fixtures.ReplicatedProvisioner, gotVSC.Driver)
	assert.Equal(t, snapshotv1.VolumeSnapshotContentDelete, gotVSC.DeletionPolicy)
	assert.Equal(t, vsc.Parameters, gotVSC.Parameters)
	assert.Equal(t, "true", gotVSC.Annotations["snapshot.storage.kubernetes.io/is-default-class"])
	raw := &unstructured.Unstructured{}
	raw.SetGroupVersionKind(snapshotv1.SchemeGroupVersion.WithKind("VolumeSnapshotClass"))
	require.NoError(t, e.Client.Get(ctx, client.ObjectKeyFromObject(vsc), raw))
	assert.Equal(t, fixtures.ReplicatedProvisioner, raw.Object["driver"], "driver is a top-level field, as the real CRD has it")

	var gotConfig cdiv1.CDIConfig
	require.NoError(t, e.Client.Get(ctx, client.ObjectKeyFromObject(config), &gotConfig))
	require.NotNil(t, gotConfig.Status.FilesystemOverhead, "the status survives the create, written through the subresource")
	assert.Equal(t, cdiv1.Percent("0.08"), gotConfig.Status.FilesystemOverhead.Global)
	assert.Equal(t, cdiv1.Percent("0.08"), gotConfig.Status.FilesystemOverhead.StorageClass[fixtures.ReplicatedClass])
}
