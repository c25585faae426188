package catalog

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/cozystack/kubernetes-worker-image/guard"
)

func TestCompileRefusals(t *testing.T) {
	cases := map[string]struct {
		reason string
		values Values
		want   []found
	}{
		"Valid": {
			reason: "one valid entry inheriting every optional field is no refusal",
			values: values(Image{SchematicID: idA, Version: v1136}),
		},
		"SchematicIDUppercase": {
			reason: "a schematic ID is lowercase letters and digits",
			values: values(Image{SchematicID: "AAA111", Version: v1136}),
			want:   []found{{guard.InvalidSchematicID, "images[0].schematicID"}},
		},
		"SchematicIDEmpty": {
			reason: "an entry must name its schematic ID: it has no default",
			values: values(Image{Version: v1136}),
			want:   []found{{guard.InvalidSchematicID, "images[0].schematicID"}},
		},
		"VersionWithoutPatch": {
			reason: "a version is a release vMAJOR.MINOR.PATCH",
			values: values(Image{SchematicID: idA, Version: "v1.13"}),
			want:   []found{{guard.InvalidVersion, "images[0].version"}},
		},
		"VersionZeroPatch": {
			reason: "neighbour of VersionWithoutPatch: a zero patch is a release",
			values: values(Image{SchematicID: idA, Version: "v1.13.0"}),
		},
		"VersionSuffix": {
			reason: "a pre-release is not a catalog flavor",
			values: values(Image{SchematicID: idA, Version: "v1.13.6-beta.0"}),
			want:   []found{{guard.InvalidVersion, "images[0].version"}},
		},
		"EntryFactoryNotHTTP": {
			reason: "an entry's own factory URL must be http or https",
			values: values(Image{SchematicID: idA, Version: v1136, ImageFactoryURL: "ftp://factory.example"}),
			want:   []found{{guard.InvalidImageFactoryURL, "images[0].imageFactoryURL"}},
		},
		"EntryFactoryHTTP": {
			reason: "neighbour of EntryFactoryNotHTTP: plain http is allowed",
			values: values(Image{SchematicID: idA, Version: v1136, ImageFactoryURL: "http://factory.example"}),
		},
		"GlobalFactoryInvalid": {
			reason: "an invalid global factory is refused once, at the global field, however many entries inherit it",
			values: func() Values {
				v := values(Image{SchematicID: idA, Version: v1136}, Image{SchematicID: idB, Version: v1136})
				v.ImageFactoryURL = "factory.talos.dev"
				return v
			}(),
			want: []found{{guard.InvalidImageFactoryURL, "imageFactoryURL"}},
		},
		"GlobalFactoryInvalidEveryEntryOwnsOne": {
			reason: "the global factory is still validated when no entry inherits it",
			values: func() Values {
				v := values(Image{SchematicID: idA, Version: v1136, ImageFactoryURL: factory})
				v.ImageFactoryURL = "https://u@factory.talos.dev"
				return v
			}(),
			want: []found{{guard.InvalidImageFactoryURL, "imageFactoryURL"}},
		},
		"EntryStorageZero": {
			reason: "a golden's size must be positive",
			values: values(Image{SchematicID: idA, Version: v1136, Storage: "0"}),
			want:   []found{{guard.InvalidQuantity, "images[0].storage"}},
		},
		"EntryStorageOneByte": {
			reason: "neighbour of EntryStorageZero: the smallest positive size passes",
			values: values(Image{SchematicID: idA, Version: v1136, Storage: "1"}),
		},
		"EntryStorageNotQuantity": {
			reason: "a size is a Kubernetes quantity",
			values: values(Image{SchematicID: idA, Version: v1136, Storage: "6 GB"}),
			want:   []found{{guard.InvalidQuantity, "images[0].storage"}},
		},
		"GlobalStorageInvalid": {
			reason: "an invalid global size is refused at the global field",
			values: func() Values {
				v := values(Image{SchematicID: idA, Version: v1136})
				v.Storage = "-6Gi"
				return v
			}(),
			want: []found{{guard.InvalidQuantity, "storage"}},
		},
		"Duplicate": {
			reason: "two entries of one flavor are refused at the later one",
			values: values(Image{SchematicID: idA, Version: v1136}, Image{SchematicID: idB, Version: v1136}, Image{SchematicID: idA, Version: v1136, Storage: "8Gi"}),
			want:   []found{{guard.DuplicateCatalogEntry, "images[2]"}},
		},
		"SameIDOtherVersion": {
			reason: "neighbour of Duplicate: one schematic at two versions is two flavors",
			values: values(Image{SchematicID: idA, Version: v1136}, Image{SchematicID: idA, Version: "v1.13.7"}),
		},
		"AllTogether": {
			reason: "every refusal of a catalog is reported, in entry order",
			values: values(
				Image{SchematicID: "A", Version: "1.0.0"},
				Image{SchematicID: idA, Version: v1136, Storage: "x", ImageFactoryURL: "https://f?q=1"},
				Image{SchematicID: idA, Version: v1136},
			),
			want: []found{
				{guard.InvalidSchematicID, "images[0].schematicID"},
				{guard.InvalidVersion, "images[0].version"},
				{guard.InvalidImageFactoryURL, "images[1].imageFactoryURL"},
				{guard.InvalidQuantity, "images[1].storage"},
				{guard.DuplicateCatalogEntry, "images[2]"},
			},
		},
		"DisabledStillValidated": {
			reason: "the catalog is validated even when disabled",
			values: func() Values {
				v := values(Image{SchematicID: idA, Version: "latest"})
				v.Enabled = false
				return v
			}(),
			want: []found{{guard.InvalidVersion, "images[0].version"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := Compile(tc.values)
			assert.Equal(t, tc.want, refusalsOf(c.Err()), tc.reason)
			for _, r := range guard.Refusals(c.Err()) {
				assert.Equal(t, Subject, r.Subject, "every catalog refusal names the catalog")
			}
		})
	}
}

func TestCompileFallsBack(t *testing.T) {
	v := values(
		Image{SchematicID: idA, Version: v1136},
		Image{SchematicID: idB, Version: v1136, ImageFactoryURL: "https://mirror.example/", Storage: "8Gi", StorageClass: "local"},
	)
	c := Compile(v)
	assert.NoError(t, c.Err())

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
	assert.Equal(t, "local", b.StorageClass)
	assert.True(t, b.OwnURL && b.OwnStorage && b.OwnClass)

	_, ok = c.LookupGolden("talos-worker-zzz-v1.13.6")
	assert.False(t, ok, "a flavor no entry has is not found")
}

func TestEntryErrCarriesInheritedRefusal(t *testing.T) {
	v := values(Image{SchematicID: idA, Version: v1136}, Image{SchematicID: idB, Version: v1136, Storage: "1Gi"})
	v.Storage = "lots"
	c := Compile(v)
	assert.Equal(t, []found{{guard.InvalidQuantity, "storage"}}, refusalsOf(c.Entries[0].Err()),
		"a pool cloning an entry that inherits an invalid global size gets the global refusal")
	assert.NoError(t, c.Entries[1].Err(), "an entry with its own valid size does not inherit the global refusal")
}
