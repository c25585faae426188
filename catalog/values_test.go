package catalog

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

func TestValuesDefaults(t *testing.T) {
	cases := map[string]struct {
		reason string
		yaml   string
		want   Values
	}{
		"Empty": {
			reason: "no values is the shipped catalog: disabled, holding the default flavor",
			yaml:   `{}`,
			want:   Default(),
		},
		"EnabledOnly": {
			reason: "enabling the catalog keeps every other default",
			yaml:   `enabled: true`,
			want:   func() Values { v := Default(); v.Enabled = true; return v }(),
		},
		"ImagesNull": {
			reason: "a null images list is absent, so the default flavor",
			yaml:   `images: null`,
			want:   Default(),
		},
		"ImagesEmpty": {
			reason: "an explicit empty list means no golden at all",
			yaml:   `images: []`,
			want:   func() Values { v := Default(); v.Images = []Image{}; return v }(),
		},
		"Overrides": {
			reason: "global overrides replace the chart's defaults; entries keep their own fields",
			yaml: `
enabled: true
storageClass: ""
storage: 8Gi
images:
- schematicID: aaa111
  version: v1.13.6
  storageClass: local
`,
			want: Values{Enabled: true, ImageFactoryURL: DefaultImageFactoryURL, StorageClass: "", Storage: "8Gi",
				Images: []Image{{SchematicID: idA, Version: v1136, StorageClass: "local"}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got Values
			require.NoError(t, yaml.Unmarshal([]byte(tc.yaml), &got))
			assert.Equal(t, tc.want, got, tc.reason)
		})
	}
}

func TestValuesTypeError(t *testing.T) {
	var v Values
	assert.Error(t, yaml.Unmarshal([]byte(`images: {schematicID: x}`), &v), "a map where a list belongs is an error, not a panic")
}
