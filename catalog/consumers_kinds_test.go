package catalog

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

const (
	poolMd0 = "kubernetes-demo-md0"
	poolMd1 = "kubernetes-demo-md1"
)

// withObjects is cluster (goldens A and B live, nothing cloning them) plus
// objs.
func withObjects(objs ...client.Object) *state.State {
	s := cluster([]cdiv1.DataVolume{liveDV(idA, urlA, "6Gi", "replicated"), liveDV(idB, naming.ImageURL(factory, idB, v1136), "6Gi", "replicated")}, nil)
	more := fixtures.State(state.AllKinds, objs...)
	s.KubevirtMachineTemplates = more.KubevirtMachineTemplates
	s.VirtualMachines = more.VirtualMachines
	s.DataSources = more.DataSources
	s.DataVolumes = append(s.DataVolumes, more.DataVolumes...)
	s.PersistentVolumeClaims = append(s.PersistentVolumeClaims, more.PersistentVolumeClaims...)
	return s
}

// TestConsumerKinds: each kind that clones golden A is
// its consumer; a neighbour that clones golden B is not.
func TestConsumerKinds(t *testing.T) {
	type consumers = []Consumer
	cases := map[string]struct {
		reason string
		objs   []client.Object
		want   consumers
	}{
		"template by source.pvc": {
			reason: "a scaled-to-zero pool's template clones its golden through dataVolumeTemplates, and names its pool by the chart's label",
			objs: []client.Object{fixtures.Template(tenantNS, "kubernetes-demo-md0-610acb").Pool(poolMd0).
				Entries(fixtures.Entry("disk-system").Clones(goldenA).Obj()).Obj()},
			want: consumers{{KindKubevirtMachineTemplate, tenantNS, "kubernetes-demo-md0-610acb", poolMd0}},
		},
		"template by annotation": {
			reason: "an entry's golden annotation alone, its pool from the entry's pool annotation when the template has no label",
			objs: []client.Object{fixtures.Template(tenantNS, "t").
				Entries(fixtures.Entry("disk-system").WorkerOf(poolMd1, goldenA).Obj()).Obj()},
			want: consumers{{KindKubevirtMachineTemplate, tenantNS, "t", poolMd1}},
		},
		"template, another golden": {
			reason: "neighbour: a template of another golden is not a consumer",
			objs:   []client.Object{fixtures.Template(tenantNS, "t").Pool(poolMd0).Entries(fixtures.CloneEntry(poolMd0, goldenB, "replicated", "20Gi")).Obj()},
			want:   consumers{},
		},
		"template over HTTP": {
			reason: "neighbour: the pre-feature template imports over HTTP",
			objs:   []client.Object{fixtures.Template(tenantNS, "t").Pool(poolMd0).Entries(fixtures.HTTPEntry(urlA, "replicated", "20Gi")).Obj()},
			want:   consumers{},
		},
		"template, a PVC elsewhere": {
			reason: "neighbour: a source.pvc of the golden's name in another namespace is not the golden",
			objs:   []client.Object{fixtures.Template(tenantNS, "t").Entries(fixtures.Entry("disk-system").ClonesPVC(tenantNS, goldenA).Obj()).Obj()},
			want:   consumers{},
		},
		"template, two entries": {
			reason: "a template that clones the golden twice is one consumer",
			objs: []client.Object{fixtures.Template(tenantNS, "t").Pool(poolMd0).
				Entries(fixtures.CloneEntry(poolMd0, goldenA, "replicated", "20Gi"), fixtures.Entry("disk-data").Clones(goldenA).Obj()).Obj()},
			want: consumers{{KindKubevirtMachineTemplate, tenantNS, "t", poolMd0}},
		},
		"virtual machine": {
			reason: "a VirtualMachine's dataVolumeTemplates clone it",
			objs: []client.Object{fixtures.VirtualMachine(tenantNS, "kubernetes-demo-md0-x2kqz").Pool(poolMd0).
				Entries(fixtures.CloneEntry(poolMd0, goldenA, "replicated", "20Gi")).Obj()},
			want: consumers{{KindVirtualMachine, tenantNS, "kubernetes-demo-md0-x2kqz", poolMd0}},
		},
		"virtual machine, another golden": {
			reason: "neighbour: a VirtualMachine of another golden",
			objs:   []client.Object{fixtures.VirtualMachine(tenantNS, "vm").Pool(poolMd0).Entries(fixtures.CloneEntry(poolMd0, goldenB, "replicated", "20Gi")).Obj()},
			want:   consumers{},
		},
		"data source": {
			reason: "a DataSource whose spec.source.pvc names the golden in cozy-public",
			objs:   []client.Object{fixtures.DataSource("tenant-b", "talos").Of(goldenA).Obj()},
			want:   consumers{{KindDataSource, "tenant-b", "talos", ""}},
		},
		"data source in cozy-public without a namespace": {
			reason: "a source PVC with no namespace is the DataSource's own namespace's (CDI's DataSource controller)",
			objs:   []client.Object{fixtures.DataSource(naming.GoldenNamespace, "talos").PVC("", goldenA).Obj()},
			want:   consumers{{KindDataSource, naming.GoldenNamespace, "talos", ""}},
		},
		"data source elsewhere without a namespace": {
			reason: "neighbour: a tenant's DataSource of a PVC of the golden's name, no namespace, names a PVC of its own namespace",
			objs:   []client.Object{fixtures.DataSource("tenant-b", "talos").PVC("", goldenA).Obj()},
			want:   consumers{},
		},
		"data source of another golden": {
			reason: "neighbour: a DataSource of another golden",
			objs:   []client.Object{fixtures.DataSource("tenant-b", "talos").Of(goldenB).Obj()},
			want:   consumers{},
		},
		"data volume in cozy-public, source.pvc without a namespace": {
			reason: "CDI reads a source.pvc with no namespace as the DataVolume's own (findSourcePvc): in cozy-public, the golden",
			objs:   []client.Object{fixtures.DataVolume(naming.GoldenNamespace, "scratch").ClonesPVC("", goldenA).Obj()},
			want:   consumers{{KindDataVolume, naming.GoldenNamespace, "scratch", ""}},
		},
		"data volume elsewhere, source.pvc without a namespace": {
			reason: "neighbour: in a tenant's namespace it clones the tenant's own PVC of the golden's name",
			objs:   []client.Object{fixtures.DataVolume(tenantNS, "scratch").ClonesPVC("", goldenA).Obj()},
			want:   consumers{},
		},
		"template in cozy-public, source.pvc without a namespace": {
			reason: "an entry is a DataVolume of the template's namespace: in cozy-public, the golden",
			objs: []client.Object{fixtures.Template(naming.GoldenNamespace, "t").Pool(poolMd0).
				Entries(fixtures.Entry("disk-system").ClonesPVC("", goldenA).Obj()).Obj()},
			want: consumers{{KindKubevirtMachineTemplate, naming.GoldenNamespace, "t", poolMd0}},
		},
		"template elsewhere, source.pvc without a namespace": {
			reason: "neighbour: a tenant's template entry with no namespace clones the tenant's own PVC",
			objs: []client.Object{fixtures.Template(tenantNS, "t").Pool(poolMd0).
				Entries(fixtures.Entry("disk-system").ClonesPVC("", goldenA).Obj()).Obj()},
			want: consumers{},
		},
		"virtual machine in cozy-public, source.pvc without a namespace": {
			reason: "a VirtualMachine's entry is a DataVolume of its namespace: in cozy-public, the golden",
			objs: []client.Object{fixtures.VirtualMachine(naming.GoldenNamespace, "vm").Pool(poolMd0).
				Entries(fixtures.Entry("disk-system").ClonesPVC("", goldenA).Obj()).Obj()},
			want: consumers{{KindVirtualMachine, naming.GoldenNamespace, "vm", poolMd0}},
		},
		"virtual machine elsewhere, source.pvc without a namespace": {
			reason: "neighbour: a tenant's VirtualMachine entry with no namespace clones the tenant's own PVC",
			objs: []client.Object{fixtures.VirtualMachine(tenantNS, "vm").Pool(poolMd0).
				Entries(fixtures.Entry("disk-system").ClonesPVC("", goldenA).Obj()).Obj()},
			want: consumers{},
		},
		"data volume by sourceRef": {
			reason: "a DataVolume whose sourceRef names a DataSource of the golden, in the DataVolume's namespace; the DataSource too",
			objs: []client.Object{
				fixtures.DataSource("tenant-b", "talos").Of(goldenA).Obj(),
				sourceRefDV("tenant-b", "root", "", "talos"),
			},
			want: consumers{{KindDataVolume, "tenant-b", "root", ""}, {KindDataSource, "tenant-b", "talos", ""}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Consumers(goldenA, state.NewSnapshot(withObjects(tc.objs...)), readPools)
			assert.Equal(t, tc.want, got.Consumers, tc.reason)
			assert.Empty(t, got.Warnings, "every kind observed")
		})
	}
}

// sourceRefDV is a DataVolume in ns whose sourceRef names the DataSource
// dsNS/ds ("" leaves it in the DataVolume's namespace).
func sourceRefDV(ns, name, dsNS, ds string) *cdiv1.DataVolume {
	dv := fixtures.DataVolume(ns, name).Obj()
	ref := &cdiv1.DataVolumeSourceRef{Kind: cdiv1.DataVolumeDataSource, Name: ds}
	if dsNS != "" {
		ref.Namespace = &dsNS
	}
	dv.Spec.SourceRef = ref
	return dv
}

// TestSourceRef: a sourceRef to a DataSource resolves as CDI v1.64.0
// resolves it (populateSourceIfSourceRef, ResolveDataSourceChain).
func TestSourceRef(t *testing.T) {
	cozyDS := fixtures.DataSource(naming.GoldenNamespace, "talos-default").Of(goldenA).Obj()
	cases := map[string]struct {
		reason string
		objs   []client.Object
		want   []string // consumers of goldenA, kind/namespace/name
	}{
		"another namespace": {
			reason: "a sourceRef with a namespace finds the DataSource there",
			objs:   []client.Object{cozyDS, sourceRefDV("tenant-b", "root", naming.GoldenNamespace, "talos-default")},
			want:   []string{"DataSource/cozy-public/talos-default", "DataVolume/tenant-b/root"},
		},
		"own namespace": {
			reason: "neighbour: without a namespace the DataSource is looked up in the DataVolume's own, where there is none",
			objs:   []client.Object{cozyDS, sourceRefDV("tenant-b", "root", "", "talos-default")},
			want:   []string{"DataSource/cozy-public/talos-default"},
		},
		"not a DataSource": {
			reason: "neighbour: CDI resolves only sourceRef kind DataSource",
			objs: []client.Object{cozyDS, func() *cdiv1.DataVolume {
				dv := sourceRefDV("tenant-b", "root", naming.GoldenNamespace, "talos-default")
				dv.Spec.SourceRef.Kind = "VolumeSnapshot"
				return dv
			}()},
			want: []string{"DataSource/cozy-public/talos-default"},
		},
		"missing DataSource": {
			reason: "neighbour: a sourceRef to a DataSource that is not there clones nothing",
			objs:   []client.Object{sourceRefDV("tenant-b", "root", naming.GoldenNamespace, "gone")},
			want:   nil,
		},
		"empty namespace, the DataVolume in cozy-public": {
			reason: "a source PVC with no namespace is the DataVolume's namespace's for CDI's clone controller: both readings count",
			objs: []client.Object{
				fixtures.DataSource("tenant-b", "loose").PVC("", goldenA).Obj(),
				sourceRefDV(naming.GoldenNamespace, "scratch", "tenant-b", "loose"),
			},
			want: []string{"DataVolume/cozy-public/scratch"},
		},
		"template by sourceRef": {
			reason: "a template entry's sourceRef resolves in the template's namespace",
			objs: []client.Object{
				fixtures.DataSource(tenantNS, "talos").Of(goldenA).Obj(),
				fixtures.Template(tenantNS, "t").Pool(poolMd0).Entries(fixtures.Entry("disk-system").SourceRef("", "talos").Obj()).Obj(),
			},
			want: []string{"DataSource/tenant-a/talos", "KubevirtMachineTemplate/tenant-a/t"},
		},
		"chained": {
			reason: "a DataSource chained to one of the golden points at it too, as does what references it",
			objs: []client.Object{
				fixtures.DataSource(tenantNS, "base").Of(goldenA).Obj(),
				fixtures.DataSource(tenantNS, "alias").Chain("", "base").Obj(),
				fixtures.VirtualMachine(tenantNS, "vm").Entries(fixtures.Entry("disk-system").SourceRef("", "alias").Obj()).Obj(),
			},
			want: []string{"DataSource/tenant-a/alias", "DataSource/tenant-a/base", "VirtualMachine/tenant-a/vm"},
		},
		"chained, resolved in status": {
			reason: "CDI clones what a chained DataSource's status resolved to, though its target moved on",
			objs: []client.Object{
				fixtures.DataSource(tenantNS, "base").Of(goldenB).Obj(),
				fixtures.DataSource(tenantNS, "alias").Chain("", "base").Resolved(naming.GoldenNamespace, goldenA).Obj(),
			},
			want: []string{"DataSource/tenant-a/alias"},
		},
		"chained across namespaces": {
			reason: "neighbour: CDI refuses a chain to another namespace (ErrDataSourceCrossNamespace)",
			objs: []client.Object{
				fixtures.DataSource("tenant-b", "base").Of(goldenA).Obj(),
				fixtures.DataSource(tenantNS, "alias").Chain("tenant-b", "base").Obj(),
			},
			want: []string{"DataSource/tenant-b/base"},
		},
		"chained twice": {
			reason: "neighbour: CDI resolves one level of chain only (ErrDataSourceMaxDepthReached)",
			objs: []client.Object{
				fixtures.DataSource(tenantNS, "base").Of(goldenA).Obj(),
				fixtures.DataSource(tenantNS, "alias").Chain("", "base").Obj(),
				fixtures.DataSource(tenantNS, "alias2").Chain("", "alias").Obj(),
			},
			want: []string{"DataSource/tenant-a/alias", "DataSource/tenant-a/base"},
		},
		"chained to itself": {
			reason: "neighbour: a DataSource chained to itself resolves nothing (ErrDataSourceSelfReference)",
			objs:   []client.Object{fixtures.DataSource(tenantNS, "loop").Chain("", "loop").PVC(naming.GoldenNamespace, goldenA).Obj()},
			want:   nil,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, c := range Consumers(goldenA, state.NewSnapshot(withObjects(tc.objs...)), readPools).Consumers {
				got = append(got, c.Kind+"/"+c.Namespace+"/"+c.Name)
			}
			assert.ElementsMatch(t, tc.want, got, tc.reason)
		})
	}
}

// TestPruneKeepsWhatEachKindClones: per consumer kind, a golden it
// references is kept; a neighbour that references another golden keeps
// nothing; the kind unknown makes nothing safe to delete, naming it.
func TestPruneKeepsWhatEachKindClones(t *testing.T) {
	none := Compile(values()) // enabled, no entry: both goldens unmanaged
	kinds := map[state.Kind]func(golden string) client.Object{
		state.KubevirtMachineTemplate: func(g string) client.Object {
			return fixtures.Template(tenantNS, "t").Pool(poolMd0).Entries(fixtures.CloneEntry(poolMd0, g, "replicated", "20Gi")).Obj()
		},
		state.VirtualMachine: func(g string) client.Object {
			return fixtures.VirtualMachine(tenantNS, "vm").Pool(poolMd0).Entries(fixtures.CloneEntry(poolMd0, g, "replicated", "20Gi")).Obj()
		},
		state.DataSource: func(g string) client.Object { return fixtures.DataSource(tenantNS, "ds").Of(g).Obj() },
		state.DataVolume: func(g string) client.Object {
			return sourceRefDV(tenantNS, "root", naming.GoldenNamespace, "ds-"+g)
		},
		state.PersistentVolumeClaim: func(g string) client.Object {
			return fixtures.PVC(tenantNS, "restored").DataSourceRef(naming.GoldenNamespace, g).Obj()
		},
	}
	// A DataVolume's sourceRef needs its DataSource, in cozy-public: those
	// DataSources are consumers too, so the DataVolume case holds both.
	dataSourceOf := func(g string) client.Object { return fixtures.DataSource(naming.GoldenNamespace, "ds-"+g).Of(g).Obj() }
	for k, of := range kinds {
		objs := func(g string) []client.Object {
			if k == state.DataVolume {
				return []client.Object{of(g), dataSourceOf(g)}
			}
			return []client.Object{of(g)}
		}
		t.Run(k.String(), func(t *testing.T) {
			rep := Prune(none, state.NewSnapshot(withObjects(objs(goldenA)...)), readPools)
			require.Empty(t, rep.Warnings)
			assert.Equal(t, []string{goldenB}, rep.SafeToDelete, "referenced: golden A is kept, B safe to delete")
			if assert.Len(t, rep.Kept, 1) {
				assert.Equal(t, goldenA, rep.Kept[0].Name)
			}

			rep = Prune(none, state.NewSnapshot(withObjects(objs(goldenB)...)), readPools)
			assert.Equal(t, []string{goldenA}, rep.SafeToDelete, "a neighbour referencing golden B keeps only B")

			s := withObjects(objs(goldenA)...)
			s.Observed &^= k
			rep = Prune(none, state.NewSnapshot(s), readPools)
			assert.Empty(t, rep.SafeToDelete, "the kind unknown: nothing is safe to delete")
			var named []string
			for _, w := range rep.Warnings {
				assert.Equal(t, guard.StateUnverified, w.Reason)
				named = append(named, w.Kind)
			}
			assert.Contains(t, named, k.String(), "the warning says which kind")
		})
	}
}

// TestPruneKeepsAnUnqualifiedClone: a source.pvc with no namespace, of a
// DataVolume, a template's or a VirtualMachine's entry in cozy-public,
// clones the golden, so prune keeps it; the same in a tenant's namespace
// clones the tenant's own PVC and keeps nothing.
func TestPruneKeepsAnUnqualifiedClone(t *testing.T) {
	none := Compile(values()) // enabled, no entry: both goldens unmanaged
	entry := fixtures.Entry("disk-system").ClonesPVC("", goldenA).Obj()
	kinds := map[string]func(ns string) client.Object{
		KindDataVolume: func(ns string) client.Object { return fixtures.DataVolume(ns, "scratch").ClonesPVC("", goldenA).Obj() },
		KindKubevirtMachineTemplate: func(ns string) client.Object {
			return fixtures.Template(ns, "t").Pool(poolMd0).Entries(entry).Obj()
		},
		KindVirtualMachine: func(ns string) client.Object {
			return fixtures.VirtualMachine(ns, "vm").Pool(poolMd0).Entries(entry).Obj()
		},
	}
	for kind, in := range kinds {
		t.Run(kind, func(t *testing.T) {
			rep := Prune(none, state.NewSnapshot(withObjects(in(naming.GoldenNamespace))), readPools)
			require.Empty(t, rep.Warnings)
			assert.Equal(t, []string{goldenB}, rep.SafeToDelete, "in cozy-public it clones golden A: A is kept")
			if assert.Len(t, rep.Kept, 1) {
				assert.Equal(t, goldenA, rep.Kept[0].Name)
			}

			rep = Prune(none, state.NewSnapshot(withObjects(in(tenantNS))), readPools)
			assert.ElementsMatch(t, []string{goldenA, goldenB}, rep.SafeToDelete, "in a tenant's namespace it clones the tenant's PVC: nothing kept")
		})
	}
}

func TestRadius(t *testing.T) {
	objs := []client.Object{
		fixtures.Template(tenantNS, "kubernetes-demo-md0-aaaaaa").Pool(poolMd0).Entries(fixtures.CloneEntry(poolMd0, goldenA, "replicated", "20Gi")).Obj(),
		fixtures.Template(tenantNS, "kubernetes-demo-md0-bbbbbb").Pool(poolMd0).Entries(fixtures.CloneEntry(poolMd0, goldenA, "replicated", "20Gi")).Obj(),
		fixtures.Template("tenant-b", "kubernetes-demo-md0-cccccc").Pool(poolMd0).Entries(fixtures.CloneEntry(poolMd0, goldenA, "replicated", "20Gi")).Obj(),
		fixtures.DataVolume(tenantNS, "kubernetes-demo-md1-x-disk-system").WorkerOf(poolMd1, goldenA).Obj(),
		fixtures.DataSource(tenantNS, "ds").Of(goldenA).Obj(),
		fixtures.Template(tenantNS, "kubernetes-demo-md2-dddddd").Pool("kubernetes-demo-md2").Entries(fixtures.CloneEntry("kubernetes-demo-md2", goldenB, "replicated", "20Gi")).Obj(),
	}
	idx := NewConsumerIndex(state.NewSnapshot(withObjects(objs...)), readPools)
	r := idx.Radius(goldenA)
	assert.Equal(t, Radius{Golden: goldenA, Pools: 3, Templates: 3}, r,
		"pools by namespace and name (md0 in two namespaces, md1 by its disk); every template; a DataSource names no pool")
	assert.Equal(t, "3 pools and 3 templates point at it", r.String())
	assert.Equal(t, "1 pool and 1 template point at it", idx.Radius(goldenB).String())
	assert.Equal(t, "no pool or template points at it", idx.Radius("talos-worker-none").String())

	s := withObjects(objs...)
	s.Observed &^= state.VirtualMachine | state.DataSource
	partial := NewConsumerIndex(state.NewSnapshot(s), readPools).Radius(goldenA)
	assert.Equal(t, []string{"VirtualMachine", "DataSource"}, partial.Unobserved)
	assert.False(t, partial.Known())
	assert.Equal(t, "at least 3 pools and 3 templates point at it; how many more is unknown: VirtualMachines and DataSources were not observed in every namespace", partial.String())
	assert.Equal(t, "at least 3 pools and 3 templates", partial.counts())
	unknown := NewConsumerIndex(nil, readPools).Radius(goldenA)
	assert.Equal(t, "no pool or template seen points at it; how many more is unknown: "+
		"PersistentVolumeClaims, DataVolumes, KubevirtMachineTemplates, VirtualMachines, DataSources, KubernetesNodes and HelmReleases "+
		"were not observed in every namespace", unknown.String())
	assert.Equal(t, "no pool or template seen", unknown.counts())
	assert.Equal(t, "no pool or template", idx.Radius("talos-worker-none").counts())
}
