package catalog_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
)

const (
	idA   = "aaa111"
	v1136 = "v1.13.6"
)

// withDefaults is the shipped values edited by edit.
func withDefaults(edit func(*catalog.Values)) catalog.Values {
	v := catalog.Default()
	edit(&v)
	return v
}

// plain is v without what decoding found, for comparing the values alone.
func plain(v catalog.Values) catalog.Values {
	return catalog.Values{Enabled: v.Enabled, ImageFactoryURL: v.ImageFactoryURL, StorageClass: v.StorageClass, Storage: v.Storage, Images: v.Images}
}

func refused(fld string) fixtures.Finding {
	return fixtures.Finding{Reason: guard.InvalidValue, Field: fld}
}
func unknown(fld string) fixtures.Finding {
	return fixtures.Finding{Reason: guard.UnknownField, Field: fld}
}

// TestDecodeValues runs every case through both ways values arrive: as
// Helm holds them (DecodeValues of a map) and as a values file holds them
// (encoding/json into Values, which sigs.k8s.io/yaml uses too). Both must
// read the same values and find the same refusals and warnings.
func TestDecodeValues(t *testing.T) {
	cases := map[string]struct {
		reason   string
		in       any
		want     catalog.Values
		refusals []fixtures.Finding
		warnings []fixtures.Finding
	}{
		"Empty": {
			reason: "no values are the shipped catalog: disabled, the global defaults, the one default flavor",
			in:     map[string]any{},
			want:   catalog.Default(),
		},
		"Null": {
			reason: "null values are no values",
			in:     nil,
			want:   catalog.Default(),
		},
		"EnabledTrue": {
			reason: "enabled: true turns the catalog on and keeps every other default",
			in:     map[string]any{"enabled": true},
			want:   withDefaults(func(v *catalog.Values) { v.Enabled = true }),
		},
		"EnabledFalse": {
			reason: "enabled: false is the default",
			in:     map[string]any{"enabled": false},
			want:   catalog.Default(),
		},
		"EnabledNull": {
			reason: "enabled: null is Helm deleting the default: off",
			in:     map[string]any{"enabled": nil},
			want:   catalog.Default(),
		},
		"EnabledString": {
			reason:   `a quoted "true" is a string where a boolean belongs: refused at enabled, and the catalog stays off`,
			in:       map[string]any{"enabled": "true"},
			want:     catalog.Default(),
			refusals: []fixtures.Finding{refused("enabled")},
		},
		"EnabledQuotedFalse": {
			reason:   `a quoted "false" is refused too: a template reads any non-empty string as true`,
			in:       map[string]any{"enabled": "false"},
			want:     catalog.Default(),
			refusals: []fixtures.Finding{refused("enabled")},
		},
		"EmptyStrings": {
			reason: `storageClass: "" keeps its meaning, the cluster default; an entry's "" falls back to the catalog's`,
			in:     map[string]any{"storageClass": "", "images": []any{map[string]any{"schematicID": "abc", "version": "v1.2.3", "storage": ""}}},
			want: withDefaults(func(v *catalog.Values) {
				v.StorageClass = ""
				v.Images = []catalog.Image{{Flavor: catalog.Flavor{SchematicID: "abc", Version: "v1.2.3"}}}
			}),
		},
		"ImagesNull": {
			reason: "images: null is Helm deleting the default list: no golden at all",
			in:     map[string]any{"images": nil},
			want:   withDefaults(func(v *catalog.Values) { v.Images = []catalog.Image{} }),
		},
		"ImagesEmpty": {
			reason: "an explicit [] means no golden at all",
			in:     map[string]any{"images": []any{}},
			want:   withDefaults(func(v *catalog.Values) { v.Images = []catalog.Image{} }),
		},
		"ImagesOwnFields": {
			reason: "an entry reads its own fields; those it leaves out stay empty, to fall back to the catalog's",
			in: map[string]any{"images": []any{
				map[string]any{"schematicID": idA, "version": v1136, "storage": "8Gi", "storageClass": "local", "imageFactoryURL": "https://mirror.example"},
				map[string]any{"schematicID": "bbb222", "version": v1136},
			}},
			want: withDefaults(func(v *catalog.Values) {
				v.Images = []catalog.Image{
					{Flavor: catalog.Flavor{SchematicID: idA, Version: v1136}, Storage: "8Gi", StorageClass: "local", ImageFactoryURL: "https://mirror.example"},
					{Flavor: catalog.Flavor{SchematicID: "bbb222", Version: v1136}},
				}
			}),
		},
		"NullStrings": {
			reason: "a null string is empty, not the default: storageClass: null is the cluster default",
			in:     map[string]any{"storageClass": nil, "imageFactoryURL": nil},
			want:   withDefaults(func(v *catalog.Values) { v.StorageClass, v.ImageFactoryURL = "", "" }),
		},
		"LargeNumber": {
			reason:   "a number where a string belongs is refused, as the package's values schema (type string) refuses it",
			in:       map[string]any{"storage": float64(21474836480)},
			want:     withDefaults(func(v *catalog.Values) { v.Storage = "" }),
			refusals: []fixtures.Finding{refused("storage")},
		},
		"SmallNumberAndBoolean": {
			reason: "neighbour of LargeNumber: a number and a boolean in an entry are refused at their paths; the entry keeps its place",
			in:     map[string]any{"images": []any{map[string]any{"schematicID": idA, "version": v1136, "storage": 20, "storageClass": true}}},
			want: withDefaults(func(v *catalog.Values) {
				v.Images = []catalog.Image{{Flavor: catalog.Flavor{SchematicID: idA, Version: v1136}}}
			}),
			refusals: []fixtures.Finding{refused("images[0].storage"), refused("images[0].storageClass")},
		},
		"MapWhereStringBelongs": {
			reason: "a map where a string belongs is refused at its exact path; the entry keeps its other fields",
			in: map[string]any{"images": []any{
				map[string]any{"schematicID": idA, "version": v1136},
				map[string]any{"schematicID": "bbb222", "version": v1136},
				map[string]any{"schematicID": "ccc333", "version": v1136, "storage": map[string]any{"size": "6Gi"}},
			}},
			want: withDefaults(func(v *catalog.Values) {
				v.Images = []catalog.Image{{Flavor: catalog.Flavor{SchematicID: idA, Version: v1136}}, {Flavor: catalog.Flavor{SchematicID: "bbb222", Version: v1136}}, {Flavor: catalog.Flavor{SchematicID: "ccc333", Version: v1136}}}
			}),
			refusals: []fixtures.Finding{refused("images[2].storage")},
		},
		"ListWhereStringBelongs": {
			reason:   "a list where a string belongs is refused at its path, and the value is empty",
			in:       map[string]any{"storageClass": []any{"replicated"}},
			want:     withDefaults(func(v *catalog.Values) { v.StorageClass = "" }),
			refusals: []fixtures.Finding{refused("storageClass")},
		},
		"BadEntryKeepsIndex": {
			reason: "an entry that is not a map is refused and keeps its place, so later findings name their own index",
			in: map[string]any{"images": []any{
				"ce4c98/v1.13.6",
				map[string]any{"schematicID": idA, "version": []any{v1136}},
			}},
			want: withDefaults(func(v *catalog.Values) {
				v.Images = []catalog.Image{{}, {Flavor: catalog.Flavor{SchematicID: idA}}}
			}),
			refusals: []fixtures.Finding{refused("images[0]"), refused("images[1].version")},
		},
		"ListWhereStringBelongsInEntry": {
			reason: "neighbour of MapWhereStringBelongs: a list at images[2].storage",
			in: map[string]any{"images": []any{
				map[string]any{"schematicID": "a", "version": "v1.0.0"},
				map[string]any{"schematicID": "b", "version": "v1.0.0"},
				map[string]any{"schematicID": "c", "version": "v1.0.0", "storage": []any{6}},
			}},
			want: withDefaults(func(v *catalog.Values) {
				v.Images = []catalog.Image{{Flavor: catalog.Flavor{SchematicID: "a", Version: "v1.0.0"}}, {Flavor: catalog.Flavor{SchematicID: "b", Version: "v1.0.0"}}, {Flavor: catalog.Flavor{SchematicID: "c", Version: "v1.0.0"}}}
			}),
			refusals: []fixtures.Finding{refused("images[2].storage")},
		},
		"NullEntry": {
			reason: "a null entry is refused at its index, so later indexes stay right",
			in:     map[string]any{"images": []any{nil, map[string]any{"schematicID": []any{12}, "version": "v1.0.0"}}},
			want: withDefaults(func(v *catalog.Values) {
				v.Images = []catalog.Image{{}, {Flavor: catalog.Flavor{Version: "v1.0.0"}}}
			}),
			refusals: []fixtures.Finding{refused("images[0]"), refused("images[1].schematicID")},
		},
		"ImagesNotAList": {
			reason:   "a map where the list belongs is refused at images, and there is no entry",
			in:       map[string]any{"images": map[string]any{"schematicID": idA}},
			want:     withDefaults(func(v *catalog.Values) { v.Images = []catalog.Image{} }),
			refusals: []fixtures.Finding{refused("images")},
		},
		"NotAMap": {
			reason:   "values that are not a map are refused at the top and read as the defaults",
			in:       []any{"enabled"},
			want:     catalog.Default(),
			refusals: []fixtures.Finding{refused("")},
		},
		"UnknownTopLevel": {
			reason:   "enable is not enabled: a warning, and the catalog stays off",
			in:       map[string]any{"enable": true},
			want:     catalog.Default(),
			warnings: []fixtures.Finding{unknown("enable")},
		},
		"UnknownInEntry": {
			reason: "schematicId is not schematicID: a warning at the entry's key, and the entry has no schematic ID",
			in:     map[string]any{"images": []any{map[string]any{"schematicId": idA, "version": v1136}}},
			want: withDefaults(func(v *catalog.Values) {
				v.Images = []catalog.Image{{Flavor: catalog.Flavor{Version: v1136}}}
			}),
			warnings: []fixtures.Finding{unknown("images[0].schematicId")},
		},
		"InjectedKeys": {
			reason: "keys Cozystack injects (_namespace, _cluster) are never unknown",
			in:     map[string]any{"_namespace": map[string]any{"etcd": "tenant-root"}, "_cluster": map[string]any{}},
			want:   catalog.Default(),
		},
		"GoValues": {
			reason: "values a Go caller built read as Helm's: []map[string]string is a list of maps",
			in:     map[string]any{"enabled": true, "images": []map[string]string{{"schematicID": idA, "version": v1136}}},
			want: withDefaults(func(v *catalog.Values) {
				v.Enabled = true
				v.Images = []catalog.Image{{Flavor: catalog.Flavor{SchematicID: idA, Version: v1136}}}
			}),
		},
		"EverythingAtOnce": {
			reason: "every finding is reported, refusals and warnings together",
			in: map[string]any{
				"enabled": "yes", "storag": "6Gi",
				"images": []any{map[string]any{"schematicID": idA, "version": v1136, "storage": []any{}, "clas": "local"}},
			},
			want: withDefaults(func(v *catalog.Values) {
				v.Images = []catalog.Image{{Flavor: catalog.Flavor{SchematicID: idA, Version: v1136}}}
			}),
			refusals: []fixtures.Finding{refused("enabled"), refused("images[0].storage")},
			warnings: []fixtures.Finding{unknown("storag"), unknown("images[0].clas")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			fromMap := catalog.DecodeValues(tc.in)
			rs, ws := fromMap.Findings()
			assert.Equal(t, tc.want, plain(fromMap), "DecodeValues: %s", tc.reason)
			assert.Equal(t, tc.refusals, fixtures.Of(rs), "DecodeValues refusals: %s", tc.reason)
			assert.Equal(t, tc.warnings, fixtures.Warned(ws), "DecodeValues warnings: %s", tc.reason)

			raw, err := json.Marshal(tc.in)
			require.NoError(t, err)
			var fromJSON catalog.Values
			err = json.Unmarshal(raw, &fromJSON)
			assert.Equal(t, tc.refusals, fixtures.Refused(err), "json.Unmarshal's error holds the refusals: %s", tc.reason)
			jrs, jws := fromJSON.Findings()
			assert.Equal(t, tc.want, plain(fromJSON), "json.Unmarshal: %s", tc.reason)
			assert.Equal(t, tc.refusals, fixtures.Of(jrs), "json.Unmarshal refusals: %s", tc.reason)
			assert.Equal(t, tc.warnings, fixtures.Warned(jws), "json.Unmarshal warnings: %s", tc.reason)
		})
	}
}

// TestDecodeValuesNamesTheNearestKey: an unknown key's warning says which
// key was meant, so that the way out is in the message.
func TestDecodeValuesNamesTheNearestKey(t *testing.T) {
	cases := map[string]struct {
		reason string
		in     map[string]any
		near   string
	}{
		"enable":      {"one letter short of enabled", map[string]any{"enable": true}, `"enabled"`},
		"schematicId": {"a case-blind match wins", map[string]any{"images": []any{map[string]any{"schematicId": idA}}}, `"schematicID"`},
		"storageclas": {"the fewest edits", map[string]any{"storageclas": "local"}, `"storageClass"`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, ws := catalog.DecodeValues(tc.in).Findings()
			if assert.Len(t, ws, 1, tc.reason) {
				assert.Equal(t, guard.UnknownField, ws[0].Reason)
				assert.Contains(t, ws[0].Detail, tc.near, tc.reason)
				assert.Equal(t, catalog.Subject, ws[0].Subject, "the warning names the catalog")
			}
		})
	}
}

// TestDecodedFindingsReachRender: what decoding found is the catalog's
// (Unreadable, Warnings), and Render reports both, with the catalog's own
// refusals; the entry whose field was unreadable answers for it.
func TestDecodedFindingsReachRender(t *testing.T) {
	v := catalog.DecodeValues(map[string]any{
		"enabled": true, "enable": true,
		"images": []any{
			map[string]any{"schematicID": idA, "version": v1136},
			map[string]any{"schematicID": "bbb222", "version": "v1.13", "storage": map[string]any{}},
		},
	})
	cat := catalog.Compile(v)
	assert.Equal(t, []fixtures.Finding{refused("images[1].storage")}, fixtures.Of(cat.Unreadable()))
	assert.Equal(t, []fixtures.Finding{unknown("enable")}, fixtures.Warned(cat.Warnings()))
	e, ok := cat.Lookup(catalog.Flavor{SchematicID: "bbb222", Version: "v1.13"})
	require.True(t, ok)
	assert.Contains(t, fixtures.Of(e.Refusals()), refused("images[1].storage"), "the entry answers for its unreadable field")
	a, ok := cat.Lookup(catalog.Flavor{SchematicID: idA, Version: v1136})
	require.True(t, ok)
	assert.Nil(t, a.Refusals(), "neighbour: another entry does not")

	res, err := catalog.Render(cat, nil)
	assert.Equal(t, res.Refusals.Err(), err)
	assert.Equal(t, []fixtures.Finding{refused("images[1].storage"), {Reason: guard.InvalidVersion, Field: "images[1].version"}}, fixtures.Of(res.Refusals),
		"an unreadable value is refused with the catalog's own refusals")
	assert.True(t, errors.Is(err, guard.InvalidValue))
	assert.Contains(t, fixtures.Warned(res.Warnings), unknown("enable"), "an unknown key is one of Render's warnings")
	assert.Empty(t, res.Goldens, "a refused catalog renders nothing")

	built := catalog.Compile(catalog.Default())
	assert.Nil(t, built.Unreadable(), "values built in Go are all readable")
	assert.Nil(t, built.Warnings())
}

// TestDecodeValuesOfNoChart: a Go value no chart holds (a channel, a
// struct) is refused where it stands, never a panic.
func TestDecodeValuesOfNoChart(t *testing.T) {
	v := catalog.DecodeValues(map[string]any{"storage": make(chan int), "images": []any{struct{}{}}})
	rs, _ := v.Findings()
	assert.Equal(t, []fixtures.Finding{refused("storage"), refused("images[0]")}, fixtures.Of(rs), "in the order the chart reads them")
	assert.Equal(t, []catalog.Image{{}}, v.Images, "the entry keeps its place")
}

// FuzzDecodeValues feeds arbitrary YAML as catalog values: decoding never
// panics, finds only InvalidValue refusals and UnknownField warnings, each
// naming the catalog, and reads what a values file read through
// UnmarshalJSON reads.
func FuzzDecodeValues(f *testing.F) {
	for _, s := range []string{
		"enabled: true",
		"enabled: true\nstorageClass: \"\"\n",
		"images: [{schematicID: a, version: v1.0.0, storage: 6}]",
		"images:\n- schematicID: abc\n  version: v1.2.3\n  storage: 8Gi\n- null\n- {schematicID: 1, version: v1.0.0}\n",
		"images: []\n",
		"enable: yes\nimages: {x: 1}",
		"[1, 2]",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var in any
		if yaml.Unmarshal(data, &in) != nil || in == nil {
			// An empty or null document never reaches UnmarshalJSON:
			// sigs.k8s.io/yaml hands encoding/json a pointer in an
			// interface, which null sets to nil, leaving the Values as
			// they were.
			return
		}
		v := catalog.DecodeValues(in)
		rs, ws := v.Findings()
		for _, r := range rs {
			if r.Reason != guard.InvalidValue || r.Subject != catalog.Subject {
				t.Fatalf("%q: refusal %#v", data, r)
			}
		}
		for _, w := range ws {
			if w.Reason != guard.UnknownField || w.Field == "" || w.Subject != catalog.Subject {
				t.Fatalf("%q: warning %#v", data, w)
			}
		}
		var file catalog.Values
		err := yaml.Unmarshal(data, &file)
		frs, fws := file.Findings()
		if !reflect.DeepEqual(plain(file), plain(v)) || !reflect.DeepEqual(fixtures.Of(frs), fixtures.Of(rs)) ||
			!reflect.DeepEqual(fixtures.Warned(fws), fixtures.Warned(ws)) || !reflect.DeepEqual(fixtures.Refused(err), fixtures.Of(rs)) {
			t.Fatalf("%q: a values file reads %+v (%v, %v), Helm's map %+v (%v, %v)", data, plain(file), frs, fws, plain(v), rs, ws)
		}
	})
}
