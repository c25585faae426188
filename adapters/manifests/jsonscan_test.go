package manifests

import (
	"encoding/json"
	"reflect"
	"testing"

	"pgregory.net/rapid"
	sigsyaml "sigs.k8s.io/yaml"
)

// sameAsYAML checks the JSON scanner against YAML: when it accepts a
// document, YAMLToJSONStrict reads it, to what a JSON decoder reads; when
// it says a key repeats, YAMLToJSONStrict refuses it.
func sameAsYAML(t fataler, doc []byte) bool {
	s, ok := scanJSONDocument(doc, 0, 1)
	if !ok {
		return false
	}
	if s.dup != nil {
		if _, err := sigsyaml.YAMLToJSONStrict(doc); err == nil {
			t.Fatalf("a repeat (%v) YAMLToJSONStrict reads:\n%s", s.dup, doc)
		}
		return false
	}
	y, err := sigsyaml.YAMLToJSONStrict(doc)
	if err != nil {
		t.Fatalf("accepted what YAMLToJSON refuses (%v):\n%s", err, doc)
	}
	var fromYAML, fromJSON any
	if err := unmarshalNumbers(y, &fromYAML); err != nil {
		t.Fatal(err)
	}
	if err := unmarshalNumbers(doc, &fromJSON); err != nil {
		t.Fatalf("accepted invalid JSON (%v):\n%s", err, doc)
	}
	if !reflect.DeepEqual(fromYAML, fromJSON) {
		t.Fatalf("YAML reads differently:\n%s\nYAMLToJSON: %s", doc, y)
	}
	if m, ok := fromJSON.(map[string]any); ok {
		if items, ok := m["items"].([]any); ok && len(items) != len(s.items) {
			t.Fatalf("%d items found, %d in the document", len(s.items), len(items))
		}
	}
	return true
}

func TestScanJSON(t *testing.T) {
	cases := map[string]struct {
		in     string
		accept bool
	}{
		"List":      {`{"apiVersion": "v1", "kind": "List", "items": [{"a": 1}, {"b": [true, null, "x\u00e9\n"]}]}`, true},
		"Pretty":    {"{\n    \"a\": {\n        \"b\": \"c\"\n    },\n    \"d\": []\n}\n", true},
		"Float":     {`{"a": 1.5}`, false},
		"Exponent":  {`{"a": 1e3}`, false},
		"Repeated":  {`{"a": 1, "a": 2}`, false},
		"Tab":       {"{\"a\":\t1}", false},
		"CR":        {"{\"a\": 1}\r\n", false},
		"Del":       {"{\"a\": \"\x7f\"}", false},
		"NEL":       {"{\"a\": \"\u0085\"}", false},
		"Surrogate": {`{"a": "\ud800"}`, false},
		"KeyBreak":  {"{\"a\"\n: 1}", false},
		"Trailing":  {`{"a": 1} {"b": 2}`, false},
		"Escapes":   {`{"a": "\"\\\b\f\n\r\t\u0001"}`, true},
		"Solidus":   {`{"a": "\/"}`, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := sameAsYAML(t, []byte(tc.in)); got != tc.accept {
				t.Errorf("accepted %v, want %v", got, tc.accept)
			}
		})
	}
}

func TestScanJSONMarshalled(t *testing.T) {
	accepted := 0
	rapid.Check(t, func(t *rapid.T) {
		v := map[string]any{"items": []any{value(t, 3), map[string]any{"x": value(t, 2)}}}
		doc, err := json.MarshalIndent(v, "", "    ")
		if err != nil {
			t.Fatal(err)
		}
		if sameAsYAML(t, doc) {
			accepted++
		}
	})
	if accepted == 0 {
		t.Error("the scanner declined everything")
	}
}

// FuzzScanJSON feeds the JSON scanner anything: what it accepts, YAML
// reads as JSON does.
func FuzzScanJSON(f *testing.F) {
	f.Add([]byte(`{"apiVersion": "v1", "kind": "List", "items": [{"a": 1}, {"b": [true, null, "x"]}]}`))
	f.Add([]byte("{\n    \"a\": {\n        \"b\": \"c\\u00e9\"\n    }\n}\n"))
	f.Add([]byte(`{"a": {"b": 1, "b": [2]}, "c": "d"}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		sameAsYAML(t, doc)
	})
}
