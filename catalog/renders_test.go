package catalog

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

// The catalog's render refuses an entry whose golden, not created yet, CDI
// v1.64.0 could never render a PVC for, as the planner
// refuses such a disk: each case is a pair, images[0] just clear of the
// rule and images[1] caught by it, so that the refusal is the rule's and
// at the entry it is about.

// renderObjs are a cluster's objects besides the goldens: classes, profiles,
// CDI's config.
type renderObjs []client.Object

// healthy is the cluster of these tests: "replicated" (the default) and
// "local", each with a StorageProfile CDI renders from, and CDI's config.
func healthy() renderObjs {
	return renderObjs{scClass("replicated", true), scClass("local", false), renders("replicated"), renders("local"),
		cdiConfig("replicated", "local")}
}

// without is objs without the object of a kind named name.
func (objs renderObjs) without(kind, name string) renderObjs {
	var out renderObjs
	for _, o := range objs {
		if o.GetObjectKind().GroupVersionKind().Kind == kind && o.GetName() == name {
			continue
		}
		out = append(out, o)
	}
	return out
}

func (objs renderObjs) with(more ...client.Object) renderObjs {
	return append(append(renderObjs{}, objs...), more...)
}

// profileWithSets is a StorageProfile of class whose status holds sets.
func profileWithSets(class string, sets ...cdiv1.ClaimPropertySet) *cdiv1.StorageProfile {
	return fixtures.StorageProfile(class).Provisioner(provisioner).ClaimPropertySets(sets...).Obj()
}

var (
	rwxBlock  = cdiv1.ClaimPropertySet{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}, VolumeMode: ptrMode(corev1.PersistentVolumeBlock)}
	noAccess  = cdiv1.ClaimPropertySet{VolumeMode: ptrMode(corev1.PersistentVolumeBlock)}
	rwoNoMode = cdiv1.ClaimPropertySet{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}}
)

func ptrMode(m corev1.PersistentVolumeMode) *corev1.PersistentVolumeMode { return &m }

func TestRenderRefusesWhatCDINeverRenders(t *testing.T) {
	storageClassOf := func(i int) fixtures.Finding {
		return fixtures.Finding{Reason: guard.DiskUnrenderable, Field: fmt.Sprintf("images[%d].storageClass", i)}
	}
	cases := map[string]struct {
		reason  string
		objs    renderObjs
		global  string // the catalog's storageClass
		entries [2]Image
		want    []fixtures.Finding
	}{
		"class not found": {
			reason:  "a class that is not among the cluster's StorageClasses: CDI never renders the golden's PVC",
			objs:    healthy(),
			global:  "replicated",
			entries: [2]Image{{StorageClass: "local"}, {StorageClass: "ceph"}},
			want:    []fixtures.Finding{{Reason: guard.StorageClassNotFound, Field: "images[1].storageClass"}},
		},
		"class not found, from the catalog's class": {
			reason:  "an entry without a class takes the catalog's, which must exist too",
			objs:    healthy().with(scClass("ceph", false), renders("ceph")),
			global:  "ghost",
			entries: [2]Image{{StorageClass: "ceph"}, {}},
			want:    []fixtures.Finding{{Reason: guard.StorageClassNotFound, Field: "images[1].storageClass"}},
		},
		"no StorageProfile": {
			reason:  "CDI cannot get the class's StorageProfile (\"cannot get StorageProfile\")",
			objs:    healthy().without("StorageProfile", "local"),
			global:  "replicated",
			entries: [2]Image{{StorageClass: "replicated"}, {StorageClass: "local"}},
			want:    []fixtures.Finding{storageClassOf(1)},
		},
		"no claim property set": {
			reason:  "a StorageProfile of a provisioner CDI does not know has no sets in its status (\"no accessMode specified\")",
			objs:    healthy().without("StorageProfile", "local").with(profileWithSets("local")),
			global:  "replicated",
			entries: [2]Image{{StorageClass: "replicated"}, {StorageClass: "local"}},
			want:    []fixtures.Finding{storageClassOf(1)},
		},
		"first set without access modes": {
			reason:  "only status.claimPropertySets[0] is read: a later set with access modes does not help",
			objs:    healthy().without("StorageProfile", "local").with(profileWithSets("local", noAccess, rwxBlock)),
			global:  "replicated",
			entries: [2]Image{{StorageClass: "replicated"}, {StorageClass: "local"}},
			want:    []fixtures.Finding{storageClassOf(1)},
		},
		"sets in the spec only": {
			reason: "an admin's spec.claimPropertySets not yet copied into the status renders nothing",
			objs: healthy().without("StorageProfile", "local").with(func() client.Object {
				p := profileWithSets("local")
				p.Spec.ClaimPropertySets = []cdiv1.ClaimPropertySet{rwxBlock}
				return p
			}()),
			global:  "replicated",
			entries: [2]Image{{StorageClass: "replicated"}, {StorageClass: "local"}},
			want:    []fixtures.Finding{storageClassOf(1)},
		},
		"first set with access modes and no volume mode": {
			reason:  "neighbour: access modes are what [0] needs; a nil volume mode is Filesystem",
			objs:    healthy().without("StorageProfile", "local").with(profileWithSets("local", rwoNoMode, noAccess)),
			global:  "replicated",
			entries: [2]Image{{StorageClass: "replicated"}, {StorageClass: "local"}},
		},
		"no CDIConfig": {
			reason:  "without CDI's CDIConfig \"config\" CDI renders nothing, on any class (\"error getting CDIConfig\")",
			objs:    healthy().without("CDIConfig", "config"),
			global:  "replicated",
			entries: [2]Image{{StorageClass: "replicated"}, {StorageClass: "local"}},
			want:    []fixtures.Finding{storageClassOf(0), storageClassOf(1)},
		},
		"a CDIConfig of another name": {
			reason: "CDI reads only the one named config",
			objs: healthy().without("CDIConfig", "config").with(func() client.Object {
				c := cdiConfig("replicated")
				c.Name = "config-old"
				return c
			}()),
			global:  "replicated",
			entries: [2]Image{{StorageClass: "replicated"}, {StorageClass: "local"}},
			want:    []fixtures.Finding{storageClassOf(0), storageClassOf(1)},
		},
		"under 1MiB": {
			reason:  "CDI's webhook rejects a DataVolume under 1MiB: at the entry's storage; exactly 1MiB is admitted",
			objs:    healthy(),
			global:  "replicated",
			entries: [2]Image{{Storage: "1Mi"}, {Storage: "1048575"}},
			want:    []fixtures.Finding{{Reason: guard.DiskUnrenderable, Field: "images[1].storage"}},
		},
		"under 1MiB in decimal units": {
			reason:  "1M is 1000000 bytes, under 1MiB",
			objs:    healthy(),
			global:  "replicated",
			entries: [2]Image{{Storage: "1049k"}, {Storage: "1M"}},
			want:    []fixtures.Finding{{Reason: guard.DiskUnrenderable, Field: "images[1].storage"}},
		},
		"empty class, no default": {
			reason:  "an entry and a catalog naming no class on a cluster with no default: CDI renders no golden",
			objs:    healthy().without("StorageClass", "replicated").with(scClass("replicated", false)),
			global:  "",
			entries: [2]Image{{StorageClass: "local"}, {}},
			want:    []fixtures.Finding{{Reason: guard.DefaultStorageClassUnresolvable, Field: "images[1].storageClass"}},
		},
		"empty class, beta-only default": {
			reason: "CDI never reads the beta annotation: a cluster whose only default is beta-annotated has none",
			objs: healthy().without("StorageClass", "replicated").with(
				fixtures.StorageClass("replicated").Provisioner(provisioner).Created(t0).Annotation(storage.BetaDefaultAnnotation, "true").Obj()),
			global:  "",
			entries: [2]Image{{StorageClass: "local"}, {}},
			want:    []fixtures.Finding{{Reason: guard.DefaultStorageClassUnresolvable, Field: "images[1].storageClass"}},
		},
		"empty class, a default that is not exactly true": {
			reason: "the annotation must be exactly \"true\"",
			objs: healthy().without("StorageClass", "replicated").with(
				fixtures.StorageClass("replicated").Provisioner(provisioner).Created(t0).Annotation(storage.DefaultAnnotation, "True").Obj()),
			global:  "",
			entries: [2]Image{{StorageClass: "local"}, {}},
			want:    []fixtures.Finding{{Reason: guard.DefaultStorageClassUnresolvable, Field: "images[1].storageClass"}},
		},
		"empty class, a virt default": {
			reason: "neighbour: the virt tier is a default CDI reads",
			objs: healthy().without("StorageClass", "replicated").with(
				fixtures.StorageClass("replicated").Provisioner(provisioner).Created(t0).Annotation(storage.VirtDefaultAnnotation, "true").Obj()),
			global:  "",
			entries: [2]Image{{StorageClass: "local"}, {}},
		},
		"empty class, the default unrenderable": {
			reason:  "an empty class resolves to the default, which CDI must be able to render on",
			objs:    healthy().without("StorageProfile", "replicated"),
			global:  "",
			entries: [2]Image{{StorageClass: "local"}, {}},
			want:    []fixtures.Finding{storageClassOf(1)},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			v := values(tc.entries[0], tc.entries[1])
			v.StorageClass = tc.global
			v.Images[0].SchematicID, v.Images[0].Version = idA, v1136
			v.Images[1].SchematicID, v.Images[1].Version = idB, v1136
			res, err := Render(Compile(v), state.NewSnapshot(fixtures.State(state.AllKinds, tc.objs...)))
			assert.Equal(t, tc.want, fixtures.Refused(err), tc.reason)
			assert.Empty(t, res.Warnings, "a fully observed cluster warns nothing")
			if tc.want == nil {
				assert.Len(t, res.Goldens, 2, "both goldens render")
			} else {
				assert.Empty(t, res.Goldens, "a refused catalog renders no golden")
			}
		})
	}
}

// TestRenderChecksOnlyGoldensToCreate: a golden that exists (its DataVolume,
// its PVC, or both) has been rendered by CDI already; the catalog does not
// judge its class again, whatever became of the class, its profile or
// CDI's config. A golden that was not observed is taken to be its entry
// (invariants gap 1), and is checked.
func TestRenderChecksOnlyGoldensToCreate(t *testing.T) {
	broken := healthy().without("StorageProfile", "replicated").without("CDIConfig", "config")
	dv := liveDV(idA, urlA, "6Gi", "replicated")
	pvc := livePVC(idA, "replicated", "6Gi", urlA)
	cases := map[string]struct {
		reason   string
		observed state.Kind
		dvs      []cdiv1.DataVolume
		pvcs     []corev1.PersistentVolumeClaim
		want     []fixtures.Finding
	}{
		"DataVolume and PVC": {"the golden exists: not checked", state.AllKinds, []cdiv1.DataVolume{dv}, []corev1.PersistentVolumeClaim{pvc}, nil},
		"DataVolume only":    {"the golden exists by its DataVolume: not checked", state.AllKinds, []cdiv1.DataVolume{dv}, nil, nil},
		"PVC only":           {"the golden exists by its PVC: not checked", state.AllKinds, nil, []corev1.PersistentVolumeClaim{pvc}, nil},
		"absent": {"neighbour: the golden is to be created, and CDI could not render it", state.AllKinds, nil, nil,
			[]fixtures.Finding{{Reason: guard.DiskUnrenderable, Field: "images[0].storageClass"}}},
		"not observed": {"a golden not observed is taken to be its entry, and checked", state.AllKinds &^ (state.DataVolume | state.PersistentVolumeClaim), nil, nil,
			[]fixtures.Finding{{Reason: guard.DiskUnrenderable, Field: "images[0].storageClass"}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			st := fixtures.State(tc.observed, broken...)
			st.DataVolumes, st.PersistentVolumeClaims = tc.dvs, tc.pvcs
			_, err := Render(Compile(values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}})), state.NewSnapshot(st))
			assert.Equal(t, tc.want, fixtures.Refused(err), tc.reason)
		})
	}
	t.Run("class gone", func(t *testing.T) {
		st := fixtures.State(state.AllKinds, healthy().without("StorageClass", "replicated")...)
		st.DataVolumes = []cdiv1.DataVolume{dv}
		_, err := Render(Compile(values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}})), state.NewSnapshot(st))
		assert.NoError(t, err, "a golden whose class was deleted since is not refused StorageClassNotFound")
	})
}

// TestRenderUnobservedRenderKinds: what says whether CDI renders a golden
// (the StorageClasses, the StorageProfiles, CDI's config) refuses nothing
// while unknown, and is StateUnverified by kind; only for a golden to
// create, since an existing one is not checked. The cluster lacks what is
// unknown, so that a check reading it would refuse.
func TestRenderUnobservedRenderKinds(t *testing.T) {
	cases := map[string]struct {
		reason  string
		unknown state.Kind
		golden  bool
		want    []string
	}{
		"StorageProfile": {"whether the class's profile renders is unknown", state.StorageProfile, false, []string{"StorageProfile"}},
		"CDIConfig":      {"whether CDI has its config is unknown", state.CDIConfig, false, []string{"CDIConfig"}},
		"both":           {"one warning per kind", state.StorageProfile | state.CDIConfig, false, []string{"StorageProfile", "CDIConfig"}},
		"StorageClass":   {"whether the class exists is unknown", state.StorageClass, false, []string{"StorageClass"}},
		"existing golden": {"neighbour: an existing golden is not checked, so nothing was left unverified",
			state.StorageProfile | state.CDIConfig, true, nil},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			objs := healthy()
			if tc.unknown.Has(state.StorageProfile) {
				objs = objs.without("StorageProfile", "replicated")
			}
			if tc.unknown.Has(state.CDIConfig) {
				objs = objs.without("CDIConfig", "config")
			}
			if tc.unknown.Has(state.StorageClass) {
				objs = objs.without("StorageClass", "replicated")
			}
			st := fixtures.State(state.AllKinds&^tc.unknown, objs...)
			if tc.golden {
				st.DataVolumes = []cdiv1.DataVolume{liveDV(idA, urlA, "6Gi", "replicated")}
			}
			res, err := Render(Compile(values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}})), state.NewSnapshot(st))
			assert.NoError(t, err, "what is unknown refuses nothing: "+tc.reason)
			var kinds []string
			for _, w := range res.Warnings {
				if assert.Equal(t, guard.StateUnverified, w.Reason) {
					assert.Equal(t, "images", w.Field)
					kinds = append(kinds, w.Kind)
				}
			}
			assert.Equal(t, tc.want, kinds, tc.reason)
		})
	}
}

// TestRenderNeedsWhatRendersReads: RenderNeeds asks for every kind the
// render checks read, so that an adapter reading exactly it leaves nothing
// unverified.
func TestRenderNeedsWhatRendersReads(t *testing.T) {
	var listed state.Kind
	for _, l := range RenderNeeds().Lists {
		listed |= l.Kind
	}
	for _, k := range []state.Kind{state.StorageClass, state.StorageProfile, state.CDIConfig} {
		assert.True(t, listed.Has(k), "RenderNeeds lists %s", k)
	}
	st := fixtures.State(listed, healthy()...)
	res, err := Render(Compile(values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}})), state.NewSnapshot(st))
	assert.NoError(t, err)
	assert.Empty(t, res.Warnings, "read as RenderNeeds asks, nothing is unverified")
}
