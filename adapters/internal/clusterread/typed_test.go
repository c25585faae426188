package clusterread

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/kinds"
	"github.com/cozystack/kubernetes-worker-image/adapters/internal/slim"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// TestTypedPageAsUnstructured: a page of DataVolumes as the server serves
// them (managedFields, CDI's annotations and conditions) decodes typed to
// what the unstructured path makes of it, both slimmed.
func TestTypedPageAsUnstructured(t *testing.T) {
	d := fleet.ServedDisks(20, 2)
	raw, err := json.Marshal(map[string]any{"apiVersion": "cdi.kubevirt.io/v1beta1", "kind": "DataVolumeList",
		"metadata": map[string]any{"continue": "next-page"}, "items": d.DataVolumes})
	require.NoError(t, err)
	require.False(t, suspectQuantity(raw), "a served page reads typed")

	typed := &state.State{}
	next, err := typedKinds[state.DataVolume](raw, typed)
	require.NoError(t, err)
	assert.Equal(t, "next-page", next)

	var l unstructured.UnstructuredList
	require.NoError(t, l.UnmarshalJSON(raw))
	viaMap := &state.State{}
	for i := range l.Items {
		_, err := slim.Transform(&l.Items[i])
		require.NoError(t, err)
		require.NoError(t, kinds.AppendUnstructured(viaMap, state.DataVolume, l.Items[i].Object))
	}
	for _, st := range []*state.State{typed, viaMap} {
		for i := range st.DataVolumes {
			_, err := slim.Transform(&st.DataVolumes[i])
			require.NoError(t, err)
			st.DataVolumes[i].TypeMeta = cdiv1.DataVolume{}.TypeMeta
		}
	}
	require.Len(t, typed.DataVolumes, 20)
	assert.Equal(t, viaMap.DataVolumes, typed.DataVolumes)
	assert.Nil(t, typed.DataVolumes[0].ManagedFields, "slimmed")
}

// TestSuspectQuantity: a page holding a quantity text size.Check must
// judge (too long, or with an exponent) is read the unstructured way,
// which checks it before parsing; ordinary pages are not.
func TestSuspectQuantity(t *testing.T) {
	cases := map[string]struct {
		json string
		want bool
	}{
		"sizes":                       {`{"storage":"20Gi","cpu":"500m","n":3,"x":-1.5}`, false},
		"exa":                         {`{"storage":"2E"}`, false},
		"timestamps, uids":            {`{"t":"2026-01-01T00:00:00Z","uid":"1e4a5b6c-0000","rv":"123456789"}`, false},
		"64 digits":                   {`{"storage":"` + strings.Repeat("9", 64) + `"}`, false},
		"65 digits":                   {`{"storage":"` + strings.Repeat("9", 65) + `"}`, true},
		"long digits, not a quantity": {`{"token":"` + strings.Repeat("9", 65) + `x"}`, false},
		"exponent":                    {`{"storage":"3e4444444444444"}`, true},
		"signed exponent":             {`{"storage":"1E+9"}`, true},
		"number exponent":             {`{"storage":1e9}`, true},
		"long number":                 {`{"storage":` + strings.Repeat("9", 65) + `}`, true},
		"escaped quote":               {`{"a":"x\"1e9"}`, false},
		"unterminated":                {`{"a":"x`, true},
	}
	for name, tc := range cases {
		assert.Equal(t, tc.want, suspectQuantity([]byte(tc.json)), name)
	}
}
