package catalog

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
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
			reason: "a null images list is how Helm deletes the default: no golden at all",
			yaml:   `images: null`,
			want:   func() Values { v := Default(); v.Images = []Image{}; return v }(),
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
			want: Values{Enabled: true, ImageFactoryURL: chartdefaults.ImageFactoryURL, StorageClass: "", Storage: "8Gi",
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
	err := yaml.Unmarshal([]byte(`images: {schematicID: x}`), &v)
	assert.Error(t, err, "a map where a list belongs is an error, not a panic")
	assert.Equal(t, []fixtures.Finding{{Reason: guard.InvalidValue, Field: "images"}}, fixtures.Refused(err), "the error opens to the refusal at the list's path")
}
