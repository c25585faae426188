package catalog

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

func TestCatalogEntryImmutable(t *testing.T) {
	const mirror = "https://mirror.example"
	entry := func(mod func(*Image)) Values {
		img := Image{Flavor: Flavor{SchematicID: idA, Version: v1136}}
		if mod != nil {
			mod(&img)
		}
		return values(img)
	}
	dvs := func(dv ...cdiv1.DataVolume) []cdiv1.DataVolume { return dv }
	pvcs := func(p ...corev1.PersistentVolumeClaim) []corev1.PersistentVolumeClaim { return p }
	withDefault := func(s *state.State, class string) *state.State {
		s.StorageClasses = []storagev1.StorageClass{*scClass("replicated", class == "replicated"), *scClass("local", class == "local")}
		return s
	}
	immutable := func(fields ...string) []fixtures.Finding {
		var out []fixtures.Finding
		for _, f := range fields {
			out = append(out, fixtures.Finding{Reason: guard.CatalogEntryImmutable, Field: f})
		}
		return out
	}
	unverified := []fixtures.Finding{{Reason: guard.StateUnverified, Field: "images"}}

	cases := map[string]struct {
		reason   string
		values   Values
		state    *state.State
		want     []fixtures.Finding
		warnings []fixtures.Finding
	}{
		"Unchanged": {
			reason: "an entry equal to its golden is no edit",
			values: entry(nil),
			state:  cluster(dvs(liveDV(idA, urlA, "6Gi", "replicated")), pvcs(livePVC(idA, "replicated", "6Gi", ""))),
		},
		"NotCreatedYet": {
			reason: "an entry whose golden does not exist yet edits nothing",
			values: entry(func(i *Image) { i.Storage = "9Gi" }),
			state:  cluster(nil, nil),
		},
		"URLChanged": {
			reason: "a golden's source URL cannot change",
			values: entry(func(i *Image) { i.ImageFactoryURL = mirror }),
			state:  cluster(dvs(liveDV(idA, urlA, "6Gi", "replicated")), nil),
			want:   immutable("images[0].imageFactoryURL"),
		},
		"URLCanonicallySame": {
			reason: "neighbour of URLChanged: scheme and host case, the default port and one trailing slash are no edit",
			values: entry(func(i *Image) { i.ImageFactoryURL = "HTTPS://Factory.Talos.Dev:443/" }),
			state:  cluster(dvs(liveDV(idA, urlA, "6Gi", "replicated")), nil),
		},
		"URLGlobalChanged": {
			reason: "an entry inheriting a changed global factory changes its golden's URL, at the entry's field",
			values: func() Values { v := entry(nil); v.ImageFactoryURL = mirror; return v }(),
			state:  cluster(dvs(liveDV(idA, urlA, "6Gi", "replicated")), nil),
			want:   immutable("images[0].imageFactoryURL"),
		},
		"SizeChanged": {
			reason: "a golden's size cannot change",
			values: entry(func(i *Image) { i.Storage = "7Gi" }),
			state:  cluster(dvs(liveDV(idA, urlA, "6Gi", "replicated")), nil),
			want:   immutable("images[0].storage"),
		},
		"SizeOneByteMore": {
			reason: "sizes are compared exactly: one byte is an edit",
			values: entry(func(i *Image) { i.Storage = "6442450945" }),
			state:  cluster(dvs(liveDV(idA, urlA, "6Gi", "replicated")), nil),
			want:   immutable("images[0].storage"),
		},
		"SizeSameQuantity": {
			reason: "neighbour of SizeChanged: 6144Mi is 6Gi",
			values: entry(func(i *Image) { i.Storage = "6144Mi" }),
			state:  cluster(dvs(liveDV(idA, urlA, "6Gi", "replicated")), nil),
		},
		"ClassChanged": {
			reason: "two named classes that differ are an edit",
			values: entry(func(i *Image) { i.StorageClass = "local" }),
			state:  cluster(dvs(liveDV(idA, urlA, "6Gi", "replicated")), pvcs(livePVC(idA, "replicated", "6Gi", ""))),
			want:   immutable("images[0].storageClass"),
		},
		"ClassNamedBound": {
			reason: "an entry naming the class a classless golden's PVC is bound on is no edit",
			values: entry(nil),
			state:  cluster(dvs(liveDV(idA, urlA, "6Gi", "")), pvcs(livePVC(idA, "replicated", "6Gi", ""))),
		},
		"ClassNamedBoundElsewhere": {
			reason: "neighbour of ClassNamedBound: a classless golden bound on another class is an edit",
			values: entry(nil),
			state:  withDefault(cluster(dvs(liveDV(idA, urlA, "6Gi", "")), pvcs(livePVC(idA, "local", "6Gi", ""))), "replicated"),
			want:   immutable("images[0].storageClass"),
		},
		"EmptyEntryClassFrozenAfterDefaultMoved": {
			reason: "an empty entry class resolves to the class the golden is bound on, so moving the cluster default is no edit",
			values: func() Values { v := entry(nil); v.StorageClass = ""; return v }(),
			state:  withDefault(cluster(dvs(liveDV(idA, urlA, "6Gi", "replicated")), pvcs(livePVC(idA, "replicated", "6Gi", ""))), "local"),
		},
		"EmptyEntryClassUnboundGoldenDefaultDiffers": {
			reason: "an empty entry class against an unbound named golden resolves to the cluster default, which differs",
			values: func() Values { v := entry(nil); v.StorageClass = ""; return v }(),
			state:  withDefault(cluster(dvs(liveDV(idA, urlA, "6Gi", "replicated")), nil), "local"),
			want:   immutable("images[0].storageClass"),
		},
		"EmptyEntryClassUnboundGoldenDefaultSame": {
			reason: "neighbour: the cluster default is the golden's class",
			values: func() Values { v := entry(nil); v.StorageClass = ""; return v }(),
			state:  withDefault(cluster(dvs(liveDV(idA, urlA, "6Gi", "replicated")), nil), "replicated"),
		},
		"NamedEntryUnboundClasslessNoDefault": {
			reason: "a classless unbound golden in a cluster without a default class differs from a named entry",
			values: entry(nil),
			state:  withDefault(cluster(dvs(liveDV(idA, urlA, "6Gi", "")), nil), ""),
			want:   immutable("images[0].storageClass"),
		},
		"NamedEntryUnboundClasslessDefaultSame": {
			reason: "an entry naming a class for a classless golden is an edit unless its PVC is bound on it, even when the default is that class",
			values: entry(nil),
			state:  withDefault(cluster(dvs(liveDV(idA, urlA, "6Gi", "")), nil), "replicated"),
			want:   immutable("images[0].storageClass"),
		},
		"DefaultUnknown": {
			reason: "without StorageClasses the default cannot be resolved: an empty entry class warns, does not refuse",
			values: func() Values { v := entry(nil); v.StorageClass = ""; return v }(),
			state: func() *state.State {
				s := cluster(dvs(liveDV(idA, urlA, "6Gi", "replicated")), nil)
				s.Observed &^= state.StorageClass
				return s
			}(),
			warnings: unverified,
		},
		"BoundUnknown": {
			reason: "without the golden's PVC its frozen class is unknown: warn, do not refuse",
			values: entry(nil),
			state: func() *state.State {
				s := cluster(dvs(liveDV(idA, urlA, "6Gi", "")), nil)
				s.Observed &^= state.PersistentVolumeClaim
				return s
			}(),
			warnings: unverified,
		},
		"EveryFieldChanged": {
			reason: "one refusal per changed field, all together",
			values: entry(func(i *Image) { i.ImageFactoryURL = mirror; i.Storage = "7Gi"; i.StorageClass = "local" }),
			state:  cluster(dvs(liveDV(idA, urlA, "6Gi", "replicated")), nil),
			want:   immutable("images[0].imageFactoryURL", "images[0].storage", "images[0].storageClass"),
		},
		"PVCOnlySizeNotCompared": {
			reason: "a PVC-only golden's size is not compared: CDI may inflate its request",
			values: entry(func(i *Image) { i.Storage = "5Gi" }),
			state:  cluster(nil, pvcs(livePVC(idA, "replicated", "6Gi", urlA))),
		},
		"PVCOnlyURLChanged": {
			reason: "a PVC-only golden's URL is compared when CDI recorded it",
			values: entry(func(i *Image) { i.ImageFactoryURL = mirror }),
			state:  cluster(nil, pvcs(livePVC(idA, "replicated", "6Gi", urlA))),
			want:   immutable("images[0].imageFactoryURL"),
		},
		"PVCOnlyURLUnknown": {
			reason: "neighbour of PVCOnlyURLChanged: without the endpoint annotation the URL is not compared",
			values: entry(func(i *Image) { i.ImageFactoryURL = mirror }),
			state:  cluster(nil, pvcs(livePVC(idA, "replicated", "6Gi", ""))),
		},
		"PVCOnlyClassChanged": {
			reason: "a PVC-only golden's class is compared",
			values: entry(func(i *Image) { i.StorageClass = "local" }),
			state:  cluster(nil, pvcs(livePVC(idA, "replicated", "6Gi", ""))),
			want:   immutable("images[0].storageClass"),
		},
		"PVCOnlyDataVolumesUnobserved": {
			reason: "a golden seen by its PVC while DataVolumes were not read may still have a DataVolume: warn",
			values: entry(func(i *Image) { i.Storage = "5Gi" }),
			state: func() *state.State {
				s := cluster(nil, pvcs(livePVC(idA, "replicated", "6Gi", "")))
				s.Observed &^= state.DataVolume
				return s
			}(),
			warnings: unverified,
		},
		"InvalidSizeNotCompared": {
			reason: "an entry's invalid size is refused InvalidQuantity, not also CatalogEntryImmutable",
			values: entry(func(i *Image) { i.Storage = "big" }),
			state:  cluster(dvs(liveDV(idA, urlA, "6Gi", "replicated")), nil),
			want:   []fixtures.Finding{{Reason: guard.InvalidQuantity, Field: "images[0].storage"}},
		},
		"InvalidURLNotCompared": {
			reason: "an entry's invalid factory is refused InvalidImageFactoryURL, not also CatalogEntryImmutable",
			values: entry(func(i *Image) { i.ImageFactoryURL = "https://u@mirror.example" }),
			state:  cluster(dvs(liveDV(idA, urlA, "6Gi", "replicated")), nil),
			want:   []fixtures.Finding{{Reason: guard.InvalidImageFactoryURL, Field: "images[0].imageFactoryURL"}},
		},
		"DuplicateComparedOnce": {
			reason: "a repeated flavor is refused as a duplicate; only its first entry is its golden's",
			values: values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}}, Image{Flavor: Flavor{SchematicID: idA, Version: v1136}, Storage: "9Gi"}),
			state:  cluster(dvs(liveDV(idA, urlA, "6Gi", "replicated")), nil),
			want:   []fixtures.Finding{{Reason: guard.DuplicateCatalogEntry, Field: "images[1]"}},
		},
		"SecondEntryChanged": {
			reason: "the refusal names the changed entry's index",
			values: values(Image{Flavor: Flavor{SchematicID: idB, Version: v1136}}, Image{Flavor: Flavor{SchematicID: idA, Version: v1136}, Storage: "9Gi"}),
			state:  cluster(dvs(liveDV(idA, urlA, "6Gi", "replicated")), nil),
			want:   immutable("images[1].storage"),
		},
		"NonHTTPGolden": {
			reason: "a golden someone made with another source has no URL the entry's can equal",
			values: entry(nil),
			state: func() *state.State {
				dv := liveDV(idA, urlA, "6Gi", "replicated")
				dv.Spec.Source = &cdiv1.DataVolumeSource{Registry: &cdiv1.DataVolumeSourceRegistry{}}
				return cluster(dvs(dv), nil)
			}(),
			want: immutable("images[0].imageFactoryURL"),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res, err := Render(Compile(tc.values), state.NewSnapshot(tc.state))
			assert.Equal(t, tc.want, fixtures.Refused(err), tc.reason)
			assert.Equal(t, tc.warnings, fixtures.Warned(res.Warnings), tc.reason)
			assert.Equal(t, res.Refusals.Err(), err, "the error is the result's refusals")
			for _, r := range res.Refusals {
				if r.Reason == guard.CatalogEntryImmutable {
					assert.Contains(t, r.Detail, naming.GoldenNamespace+"/"+goldenA, "the message names the golden")
					assert.Contains(t, r.Detail, "add a new (schematicID, version)", "the message says the way out")
				}
			}
		})
	}
}

func TestCatalogEntryImmutableMessage(t *testing.T) {
	snap := state.NewSnapshot(cluster([]cdiv1.DataVolume{liveDV(idA, urlA, "6Gi", "replicated")}, nil))
	res, _ := Render(Compile(values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}, Storage: "8Gi"})), snap)
	rs := res.Refusals
	if assert.Len(t, rs, 1) {
		r := rs[0]
		assert.Equal(t, "8Gi", r.BadValue)
		assert.Contains(t, r.Detail, "images[0] ("+idA+"/"+v1136+")", "the entry is named by index and flavor")
		assert.Contains(t, r.Detail, "6Gi", "the old value")
		assert.Contains(t, r.Detail, "8Gi", "the new value")
	}
}

func TestCatalogEntryImmutableClassMessage(t *testing.T) {
	cases := map[string]struct {
		values       Values
		state        *state.State
		mentions     string
		neverDefault bool
	}{
		"Explicit": {
			values:       values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}, StorageClass: "local"}),
			state:        cluster([]cdiv1.DataVolume{liveDV(idA, urlA, "6Gi", "replicated")}, nil),
			mentions:     `"local"`,
			neverDefault: true,
		},
		"FromDefault": {
			values: func() Values {
				v := values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}})
				v.StorageClass = ""
				return v
			}(),
			state:    cluster([]cdiv1.DataVolume{liveDV(idA, urlA, "6Gi", "local")}, nil),
			mentions: `the cluster default, "replicated"`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res, _ := Render(Compile(tc.values), state.NewSnapshot(tc.state))
			rs := res.Refusals
			if assert.Len(t, rs, 1) {
				assert.Contains(t, rs[0].Detail, tc.mentions)
				if tc.neverDefault {
					assert.NotContains(t, rs[0].Detail, "default", "both sides explicit: the message says nothing of a default")
				}
			}
		})
	}
}
