package manifests

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
)

// sameAsYAMLToJSON checks what the transcoder made of doc against what
// sigs.k8s.io/yaml.YAMLToJSONStrict makes of it: when the transcoder
// accepts a document, YAMLToJSONStrict must too, with the same value; when
// it says a key repeats, YAMLToJSONStrict must refuse it. entry says doc
// is one sequence entry.
func sameAsYAMLToJSON(t fataler, doc []byte, entry bool) (accepted bool) {
	var tc transcoder
	var got []byte
	var ok bool
	if entry {
		got, _, ok = tc.transcodeEntry(nil, doc)
	} else {
		got, _, ok = tc.transcodeDocument(nil, doc)
	}
	if !ok {
		return false
	}
	if tc.dup != nil {
		if _, err := sigsyaml.YAMLToJSONStrict(doc); err == nil {
			t.Fatalf("a repeat (%v) YAMLToJSONStrict reads:\n%s", tc.dup, doc)
		}
		return false
	}
	want, err := sigsyaml.YAMLToJSONStrict(doc)
	if err != nil {
		t.Fatalf("transcoded what YAMLToJSONStrict refuses (%v):\n%s\n-> %s", err, doc, got)
	}
	if entry {
		got = append(append([]byte("["), got...), ']')
	}
	var g, w any
	if err := unmarshalNumbers(got, &g); err != nil {
		t.Fatalf("transcoded to invalid JSON (%v):\n%s\n-> %s", err, doc, got)
	}
	if err := unmarshalNumbers(want, &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("transcoded differently:\n%s\n-> %s\nYAMLToJSON: %s", doc, got, want)
	}
	return true
}

// fataler is what testing.T and rapid.T share.
type fataler interface {
	Fatalf(format string, args ...any)
	Fatal(args ...any)
}

func unmarshalNumbers(data []byte, v *any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	return d.Decode(v)
}

func TestTranscodeAgreesWithYAMLToJSON(t *testing.T) {
	cases := map[string]struct {
		in     string
		entry  bool
		accept bool
	}{
		"Mapping":        {in: "a: b\nc:\n  d: 1\n  e: [ ]\n", accept: false},
		"Nested":         {in: "a: b\nc:\n  d: 1\n  e: []\n  f: {}\nlist:\n- x\n- k: z\n  w: v\n", accept: true},
		"BoolKeyY":       {in: "y: z\n", accept: false},
		"Negative":       {in: "i: -12\n", accept: false},
		"Separator":      {in: "--- # first\n# comment\napiVersion: v1\n\nkind: X\n", accept: true},
		"Scalars":        {in: "s: 'it''s'\nd: \"a\\tb\\u00e9\\\"\"\nnil: ~\nt: yes\nf: Off\ni: 12\nz: 0\nq: 20Gi\nu: 9303a664-01a4\nh: 'a # b'\n", accept: true},
		"Folded":         {in: "m: word word\n  word word\n  end\nq: 'one\n  two'\nd: \"a \\\n  \\ b\"\n", accept: true},
		"Literal":        {in: "a: |\n  line1\n\n  line2\nb: |-\n  x\nc: |+\n  y\n\nd: |2-\n    x\n  y\n", accept: true},
		"Entry":          {in: "- apiVersion: v1\n  kind: X\n  metadata:\n    name: a\n", entry: true, accept: true},
		"CompactSeq":     {in: "a:\n- 1\n- two\nb: c\n", accept: true},
		"Float":          {in: "a: 1.5\n", accept: false},
		"Timestamp":      {in: "a: 2026-01-01\n", accept: false},
		"Octal":          {in: "a: 0777\n", accept: false},
		"Inf":            {in: "a: .inf\n", accept: false},
		"Anchor":         {in: "a: &x b\nc: *x\n", accept: false},
		"Repeated":       {in: "a: 1\na: 2\n", accept: false},
		"BoolKey":        {in: "true: 1\n", accept: false},
		"Tab":            {in: "a:\tb\n", accept: false},
		"Flow":           {in: "a: {b: c}\n", accept: false},
		"MappingInValue": {in: "a: b: c\n", accept: false},
		"Continuation":   {in: "a: b\n  c: d\n", accept: false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := sameAsYAMLToJSON(t, []byte(tc.in), tc.entry); got != tc.accept {
				t.Errorf("accepted %v, want %v", got, tc.accept)
			}
		})
	}
}

// TestTranscodePrinted: what kubectl prints, the transcoder reads, the
// same way as YAMLToJSON.
func TestTranscodePrinted(t *testing.T) {
	for _, doc := range bytes.Split(fixtures.DocumentsYAML(fixtures.Cluster()...), []byte("---\n")) {
		if len(doc) > 0 && !sameAsYAMLToJSON(t, doc, false) {
			t.Errorf("declined a printed object:\n%s", doc)
		}
	}
	st := fleet.Served(fleet.State(fleet.Size{Goldens: 2, StorageClasses: 2, PVCs: 4, Namespaces: 2, DataVolumes: true}))
	data, err := fleet.Print(st, fleet.YAMLList)
	if err != nil {
		t.Fatal(err)
	}
	entries := strings.Split(string(data), "\n- ")
	for _, e := range entries[1 : len(entries)-1] {
		if !sameAsYAMLToJSON(t, []byte("- "+e+"\n"), true) {
			t.Errorf("declined a printed item:\n- %s", e)
		}
	}
}

// TestTranscodeMarshalled: any value sigs.k8s.io/yaml prints (as kubectl
// does), the transcoder reads back as YAMLToJSON does, or declines.
func TestTranscodeMarshalled(t *testing.T) {
	accepted := 0
	rapid.Check(t, func(t *rapid.T) {
		v := map[string]any{"a": value(t, 3)}
		for i := range rapid.IntRange(0, 4).Draw(t, "keys") {
			v[rapid.StringMatching(`[a-zA-Z./_-]{1,12}`).Draw(t, "key")+string(rune('0'+i))] = value(t, 3)
		}
		doc, err := sigsyaml.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if sameAsYAMLToJSON(t, doc, false) {
			accepted++
		}
	})
	if accepted == 0 {
		t.Error("the transcoder declined everything")
	}
}

func value(t *rapid.T, depth int) any {
	kinds := 4
	if depth > 0 {
		kinds = 6
	}
	switch rapid.IntRange(0, kinds-1).Draw(t, "kind") {
	case 0:
		return rapid.StringOf(rapid.SampledFrom([]rune("ab zé:#-'\"\\\n\t{}[],&*!|>%@`?~.0123456789\u0085\u2028😀"))).Draw(t, "string")
	case 1:
		return rapid.SampledFrom([]string{"yes", "no", "true", "null", "~", "1.5", "20Gi", "0x1f", "2026-01-01", ".inf", "-1", "007", "", " lead", "trail ", strings.Repeat("word ", 25)}).Draw(t, "tricky")
	case 2:
		return rapid.Int64().Draw(t, "int")
	case 3:
		return rapid.Bool().Draw(t, "bool")
	case 4:
		n := rapid.IntRange(0, 3).Draw(t, "len")
		l := make([]any, n)
		for i := range l {
			l[i] = value(t, depth-1)
		}
		return l
	default:
		m := map[string]any{}
		for range rapid.IntRange(0, 3).Draw(t, "len") {
			m[rapid.StringOf(rapid.SampledFrom([]rune("ab:.-_/ 1yn\"'#"))).Draw(t, "key")] = value(t, depth-1)
		}
		return m
	}
}

// FuzzTranscode feeds the transcoder anything: what it accepts,
// YAMLToJSON reads the same way.
func FuzzTranscode(f *testing.F) {
	f.Add([]byte("a: b\nc:\n- d\n- e: f\n  g: |\n    h\n"), false)
	f.Add([]byte("- apiVersion: v1\n  kind: X\n  metadata: {}\n"), true)
	f.Add([]byte("m: 'one\n  two' # c\nd: \"x\\\n  y\"\n"), false)
	f.Add([]byte("a:\n  b: 1\n  'b': 2\nc: {}\n"), false)
	f.Fuzz(func(t *testing.T, doc []byte, entry bool) {
		sameAsYAMLToJSON(t, doc, entry)
	})
}
