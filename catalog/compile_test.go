package catalog

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
)

func TestCompileRefusals(t *testing.T) {
	cases := map[string]struct {
		reason string
		values Values
		want   []fixtures.Finding
	}{
		"Valid": {
			reason: "one valid entry inheriting every optional field is no refusal",
			values: values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}}),
		},
		"SchematicIDUppercase": {
			reason: "a schematic ID is lowercase letters and digits",
			values: values(Image{Flavor: Flavor{SchematicID: "AAA111", Version: v1136}}),
			want:   []fixtures.Finding{{Reason: guard.InvalidSchematicID, Field: "images[0].schematicID"}},
		},
		"SchematicIDEmpty": {
			reason: "an entry must name its schematic ID: it has no default",
			values: values(Image{Flavor: Flavor{Version: v1136}}),
			want:   []fixtures.Finding{{Reason: guard.InvalidSchematicID, Field: "images[0].schematicID"}},
		},
		"VersionWithoutPatch": {
			reason: "a version is a release vMAJOR.MINOR.PATCH",
			values: values(Image{Flavor: Flavor{SchematicID: idA, Version: "v1.13"}}),
			want:   []fixtures.Finding{{Reason: guard.InvalidVersion, Field: "images[0].version"}},
		},
		"VersionZeroPatch": {
			reason: "neighbour of VersionWithoutPatch: a zero patch is a release",
			values: values(Image{Flavor: Flavor{SchematicID: idA, Version: "v1.13.0"}}),
		},
		"VersionSuffix": {
			reason: "a pre-release is not a catalog flavor",
			values: values(Image{Flavor: Flavor{SchematicID: idA, Version: "v1.13.6-beta.0"}}),
			want:   []fixtures.Finding{{Reason: guard.InvalidVersion, Field: "images[0].version"}},
		},
		"EntryFactoryNotHTTP": {
			reason: "an entry's own factory URL must be http or https",
			values: values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}, ImageFactoryURL: "ftp://factory.example"}),
			want:   []fixtures.Finding{{Reason: guard.InvalidImageFactoryURL, Field: "images[0].imageFactoryURL"}},
		},
		"EntryFactoryHTTP": {
			reason: "neighbour of EntryFactoryNotHTTP: plain http is allowed",
			values: values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}, ImageFactoryURL: "http://factory.example"}),
		},
		"GlobalFactoryInvalid": {
			reason: "an invalid global factory is refused once, at the global field, however many entries inherit it",
			values: func() Values {
				v := values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}}, Image{Flavor: Flavor{SchematicID: idB, Version: v1136}})
				v.ImageFactoryURL = "factory.talos.dev"
				return v
			}(),
			want: []fixtures.Finding{{Reason: guard.InvalidImageFactoryURL, Field: "imageFactoryURL"}},
		},
		"GlobalFactoryInvalidEveryEntryOwnsOne": {
			reason: "the global factory is still validated when no entry inherits it",
			values: func() Values {
				v := values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}, ImageFactoryURL: factory})
				v.ImageFactoryURL = "https://u@factory.talos.dev"
				return v
			}(),
			want: []fixtures.Finding{{Reason: guard.InvalidImageFactoryURL, Field: "imageFactoryURL"}},
		},
		"EntryStorageZero": {
			reason: "a golden's size must be positive",
			values: values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}, Storage: "0"}),
			want:   []fixtures.Finding{{Reason: guard.InvalidQuantity, Field: "images[0].storage"}},
		},
		"EntryStorageOneByte": {
			reason: "neighbour of EntryStorageZero: the smallest positive size passes",
			values: values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}, Storage: "1"}),
		},
		"EntryStorageNotQuantity": {
			reason: "a size is a Kubernetes quantity",
			values: values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}, Storage: "6 GB"}),
			want:   []fixtures.Finding{{Reason: guard.InvalidQuantity, Field: "images[0].storage"}},
		},
		"GlobalStorageInvalid": {
			reason: "an invalid global size is refused at the global field",
			values: func() Values {
				v := values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}})
				v.Storage = "-6Gi"
				return v
			}(),
			want: []fixtures.Finding{{Reason: guard.InvalidQuantity, Field: "storage"}},
		},
		"Duplicate": {
			reason: "two entries of one flavor are refused at the later one",
			values: values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}}, Image{Flavor: Flavor{SchematicID: idB, Version: v1136}}, Image{Flavor: Flavor{SchematicID: idA, Version: v1136}, Storage: "8Gi"}),
			want:   []fixtures.Finding{{Reason: guard.DuplicateCatalogEntry, Field: "images[2]"}},
		},
		"SameIDOtherVersion": {
			reason: "neighbour of Duplicate: one schematic at two versions is two flavors",
			values: values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}}, Image{Flavor: Flavor{SchematicID: idA, Version: "v1.13.7"}}),
		},
		"AllTogether": {
			reason: "every refusal of a catalog is reported, in entry order",
			values: values(
				Image{Flavor: Flavor{SchematicID: "A", Version: "1.0.0"}},
				Image{Flavor: Flavor{SchematicID: idA, Version: v1136}, Storage: "x", ImageFactoryURL: "https://f?q=1"},
				Image{Flavor: Flavor{SchematicID: idA, Version: v1136}},
			),
			want: []fixtures.Finding{
				{Reason: guard.InvalidSchematicID, Field: "images[0].schematicID"},
				{Reason: guard.InvalidVersion, Field: "images[0].version"},
				{Reason: guard.InvalidImageFactoryURL, Field: "images[1].imageFactoryURL"},
				{Reason: guard.InvalidQuantity, Field: "images[1].storage"},
				{Reason: guard.DuplicateCatalogEntry, Field: "images[2]"},
			},
		},
		"DisabledStillValidated": {
			reason: "the catalog is validated even when disabled",
			values: func() Values {
				v := values(Image{Flavor: Flavor{SchematicID: idA, Version: "latest"}})
				v.Enabled = false
				return v
			}(),
			want: []fixtures.Finding{{Reason: guard.InvalidVersion, Field: "images[0].version"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := Compile(tc.values)
			assert.Equal(t, tc.want, fixtures.Of(c.Refusals()), tc.reason)
			for _, r := range c.Refusals() {
				assert.Equal(t, Subject, r.Subject, "every catalog refusal names the catalog")
			}
			if tc.want == nil {
				assert.Nil(t, c.Refusals(), "a valid catalog's refusals are nil, so that Err is nil")
			}
		})
	}
}

func TestCompileFallsBack(t *testing.T) {
	v := values(
		Image{Flavor: Flavor{SchematicID: idA, Version: v1136}},
		Image{Flavor: Flavor{SchematicID: idB, Version: v1136}, ImageFactoryURL: "https://mirror.example/", Storage: "8Gi", StorageClass: "local"},
	)
	c := Compile(v)
	assert.NoError(t, c.Refusals().Err())

	a, ok := c.Lookup(Flavor{idA, v1136})
	assert.True(t, ok)
	assert.Equal(t, factory, a.ImageFactoryURL, "an empty factory falls back to the catalog's")
	assert.Equal(t, "replicated", a.StorageClass, "an empty class falls back to the catalog's")
	assert.Equal(t, 0, a.Size.Cmp(resource.MustParse("6Gi")), "an empty size falls back to the catalog's")
	assert.Equal(t, goldenA, a.Golden)
	assert.Equal(t, urlA, a.URL)

	b, ok := c.LookupGolden(goldenB)
	assert.True(t, ok)
	assert.Equal(t, "https://mirror.example/image/"+idB+"/"+v1136+"/openstack-amd64.raw.xz", b.URL, "one trailing slash of the factory is trimmed")
	assert.Equal(t, "local", b.StorageClass, "an entry's own class wins over the catalog's")
	assert.Equal(t, "https://mirror.example/", b.ImageFactoryURL, "an entry's own factory wins over the catalog's")
	assert.Equal(t, "8Gi", b.Storage, "an entry's own size wins over the catalog's")
	assert.Equal(t, 0, b.Size.Cmp(resource.MustParse("8Gi")))

	_, ok = c.LookupGolden("talos-worker-zzz-v1.13.6")
	assert.False(t, ok, "a flavor no entry has is not found")
}

func TestEntryErrCarriesInheritedRefusal(t *testing.T) {
	v := values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}}, Image{Flavor: Flavor{SchematicID: idB, Version: v1136}, Storage: "1Gi"})
	v.Storage = "lots"
	entries := slices.Collect(Compile(v).Entries())
	assert.Equal(t, []fixtures.Finding{{Reason: guard.InvalidQuantity, Field: "storage"}}, fixtures.Of(entries[0].Refusals()),
		"a pool cloning an entry that inherits an invalid global size gets the global refusal")
	assert.Nil(t, entries[1].Refusals(), "an entry with its own valid size does not inherit the global refusal")
}
