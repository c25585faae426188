package cloneguard_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/cloneguard"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/internal/golden"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

const linstor = fixtures.ReplicatedProvisioner

func cluster(objs ...client.Object) *state.Snapshot {
	base := []client.Object{
		fixtures.StorageClass("replicated").Provisioner(linstor).Default().Expansion(true).Obj(),
		fixtures.Profile("replicated", linstor, corev1.PersistentVolumeBlock, cdiv1.CloneStrategyCsiClone),
		fixtures.Driver(linstor), fixtures.CDI(nil), fixtures.CDIConfig(fixtures.DefaultOverhead),
	}
	return state.NewSnapshot(fixtures.State(state.AllKinds, append(base, objs...)...))
}

func request(ns, name string) *cloneguard.Request {
	return &cloneguard.Request{Namespace: "tenant", Class: "replicated", Size: resource.MustParse("5Gi"), SizeOK: true,
		Source: stateindex.Key{Namespace: ns, Name: name},
		Paths:  cloneguard.Paths{Source: field.NewPath("src"), Class: field.NewPath("class"), Size: field.NewPath("size")},
		Words:  cloneguard.Words{Disks: "the disk", Disk: "the disk", Owner: "the disk", ClassField: "class", SizeField: "size", SizeText: "5Gi"}}
}

// TestSourceNamed: a source in cozy-public is "golden <name>" in the
// messages, any other "source <namespace>/<name>", and what waits says so
// in the caller's words.
func TestSourceNamed(t *testing.T) {
	for ns, want := range map[string]string{"cozy-public": "golden base", "tenant": "source tenant/base"} {
		dv := fixtures.DataVolume(ns, "base").HTTP("https://x.example/y.img").Size("20Gi").Class("replicated").Phase(cdiv1.ImportInProgress).Obj()
		v := cloneguard.Judge(request(ns, "base"), cluster(dv))
		require.Len(t, v.Findings.Warnings(), 1, ns)
		w := v.Findings.Warnings()[0]
		assert.Equal(t, guard.GoldenPending, w.Reason)
		assert.Equal(t, "src", w.Field)
		assert.Contains(t, w.Detail, want+" is still importing")
		assert.Contains(t, w.Detail, "CDI holds the disk until it succeeds")
		assert.True(t, v.Waits)
	}
}

// TestExpectedOnlyWhenAbsent: what a catalog says of a source counts
// while it does not exist; once it does, the cluster's object decides.
func TestExpectedOnlyWhenAbsent(t *testing.T) {
	req := request("cozy-public", "base")
	req.Catalogued, req.Managed, req.Expects = true, true, true
	req.Expected = golden.Expected{Class: "replicated", Request: resource.MustParse("20Gi")}
	v := cloneguard.Judge(req, cluster())
	assert.Equal(t, []fixtures.Finding{{Reason: guard.DiskSmallerThanGolden, Field: "size"}}, fixtures.Of(v.Findings.Refusals()),
		"the entry's 20Gi, predicted, against the disk's 5Gi")
	assert.True(t, v.Predicted)

	dv := fixtures.DataVolume("cozy-public", "base").HTTP("https://x.example/y.img").Size("4Gi").Class("replicated").Phase(cdiv1.Succeeded).Obj()
	pvc := fixtures.PVC("cozy-public", "base").Class("replicated").Size("4Gi").VolumeMode(corev1.PersistentVolumeBlock).AccessModes(corev1.ReadWriteMany).Bound().Obj()
	v = cloneguard.Judge(req, cluster(dv, pvc, fixtures.VolumeOf(pvc, linstor)))
	assert.Empty(t, v.Findings.Refusals(), "neighbour: the golden that exists is 4Gi")
	assert.True(t, v.Judged)
	assert.Empty(t, v.Causes)
}
