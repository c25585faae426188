package catalog

import (
	"encoding/json"
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
				Images: []Image{{Flavor: Flavor{SchematicID: idA, Version: v1136}, StorageClass: "local"}}},
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

// TestImageKeysAreFlat: an image's JSON (and the YAML sigs.k8s.io/yaml
// writes through encoding/json) holds its flavor's keys beside its own,
// in this order, with the empty optional ones left out: the values shape
// the chart reads.
func TestImageKeysAreFlat(t *testing.T) {
	img := Image{Flavor: Flavor{SchematicID: "ce4c", Version: "v1.13.6"}, ImageFactoryURL: "https://factory.example", Storage: "6Gi", StorageClass: "replicated"}
	data, err := json.Marshal(img)
	require.NoError(t, err)
	assert.Equal(t, `{"schematicID":"ce4c","version":"v1.13.6","imageFactoryURL":"https://factory.example","storage":"6Gi","storageClass":"replicated"}`, string(data))
	data, err = json.Marshal(Image{Flavor: Flavor{SchematicID: "ce4c"}})
	require.NoError(t, err)
	assert.Equal(t, `{"schematicID":"ce4c","version":""}`, string(data), "neighbour: the flavor's keys are always written, the others only when set")
	y, err := yaml.Marshal([]Image{img})
	require.NoError(t, err)
	assert.Equal(t, "- imageFactoryURL: https://factory.example\n  schematicID: ce4c\n  storage: 6Gi\n  storageClass: replicated\n  version: v1.13.6\n", string(y))

	var back Values
	require.NoError(t, yaml.Unmarshal(append([]byte("images:\n"), y...), &back))
	assert.Equal(t, []Image{img}, back.Images, "and read back")
}
