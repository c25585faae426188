package manifests_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cozystack/kubernetes-worker-image/adapters/manifests"
)

// at is an object as Documents returns it, reduced to what a case checks.
type at struct {
	Line       int
	APIVersion string
	Kind       string
	Name       string
}

func TestDocuments(t *testing.T) {
	cases := map[string]struct {
		reason string
		in     string
		want   []at
	}{
		"Separated": {
			reason: "---separated documents are numbered from the file's first line, past separators and comments",
			in: `# state of demo
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: a, namespace: t}
---
---   # empty document above
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: replicated
`,
			want: []at{{3, "v1", "PersistentVolumeClaim", "a"}, {8, "storage.k8s.io/v1", "StorageClass", "replicated"}},
		},
		"NoTrailingNewline": {
			reason: "the last line needs no newline",
			in:     "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: a, namespace: t}",
			want:   []at{{1, "v1", "PersistentVolumeClaim", "a"}},
		},
		"CommentsOnly": {
			reason: "a document of comments and blank lines holds no object",
			in:     "# nothing\n\n---\n# still nothing\n",
		},
		"List": {
			reason: "kubectl get -o yaml prints a List; each item is placed at its own line",
			in: `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: PersistentVolumeClaim
  metadata:
    name: a
    namespace: t
- apiVersion: storage.k8s.io/v1
  kind: StorageClass
  metadata:
    name: replicated
metadata:
  resourceVersion: ""
`,
			want: []at{{4, "v1", "PersistentVolumeClaim", "a"}, {9, "storage.k8s.io/v1", "StorageClass", "replicated"}},
		},
		"TypedList": {
			reason: "the API server's typed lists leave the items' apiVersion and kind to the list's",
			in: `---
apiVersion: storage.k8s.io/v1
kind: StorageClassList
items:
- metadata: {name: replicated}
- metadata: {name: local}
`,
			want: []at{{5, "storage.k8s.io/v1", "StorageClass", "replicated"}, {6, "storage.k8s.io/v1", "StorageClass", "local"}},
		},
		"JSON": {
			reason: "kubectl get -o json is YAML too",
			in: `{"apiVersion": "v1", "kind": "List", "items": [
  {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "a", "namespace": "t"}},
  {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "r"}}
]}`,
			want: []at{{2, "v1", "PersistentVolumeClaim", "a"}, {3, "storage.k8s.io/v1", "StorageClass", "r"}},
		},
		"CRLF": {
			reason: "Windows line ends count as one line each",
			in:     "---\r\napiVersion: v1\r\nkind: PersistentVolumeClaim\r\nmetadata: {name: a, namespace: t}\r\n---\r\n\r\n# the class\r\napiVersion: storage.k8s.io/v1\r\nkind: StorageClass\r\nmetadata: {name: r}\r\n",
			want:   []at{{2, "v1", "PersistentVolumeClaim", "a"}, {8, "storage.k8s.io/v1", "StorageClass", "r"}},
		},
		"Empty": {
			reason: "an empty file holds no object",
			in:     "",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			docs, err := manifests.Documents("state.yaml", strings.NewReader(tc.in))
			if err != nil {
				t.Fatalf("%s: Documents: %v", tc.reason, err)
			}
			var got []at
			for _, d := range docs {
				got = append(got, at{d.Line, d.Object.GetAPIVersion(), d.Object.GetKind(), d.Object.GetName()})
			}
			assert.Equal(t, tc.want, got, tc.reason)
		})
	}
}

func TestDocumentsErrors(t *testing.T) {
	cases := map[string]struct {
		reason  string
		in      string
		line    int
		problem manifests.Problem
	}{
		"SyntaxInLaterDocument": {
			reason: "the line counts within the whole file, not within the document",
			in: `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: a, namespace: t}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: b
  namespace: @t
`,
			line:    9,
			problem: manifests.Syntax,
		},
		"SyntaxFirstLine": {
			reason:  "an error on the first line is line 1",
			in:      "a: [1\n",
			line:    1,
			problem: manifests.Syntax,
		},
		"UnterminatedAtEnd": {
			reason:  "an error at the end of the stream points at the document's last line, not past it",
			in:      "---\napiVersion: v1\nkind: \"PersistentVolumeClaim\n",
			line:    3,
			problem: manifests.Syntax,
		},
		"BadSeparator": {
			reason:  "a separator followed by anything but a comment is refused where it is",
			in:      "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: a, namespace: t}\n--- # fine\napiVersion: v1\n--- kind: PersistentVolumeClaim\n",
			line:    6,
			problem: manifests.Syntax,
		},
		"Scalar": {
			reason:  "a document that is not a mapping is not an object",
			in:      "---\n---\njust text\n",
			line:    3,
			problem: manifests.NotAnObject,
		},
		"Sequence": {
			reason:  "a bare sequence is not an object",
			in:      "- a\n- b\n",
			line:    1,
			problem: manifests.NotAnObject,
		},
		"NoKind": {
			reason:  "a mapping without kind is not a Kubernetes object (values files are not state)",
			in:      "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: a, namespace: t}\n---\napiVersion: v1\nmetadata: {name: b}\n",
			line:    5,
			problem: manifests.NotAnObject,
		},
		"NoAPIVersion": {
			reason:  "a mapping with kind but no apiVersion is not a Kubernetes object",
			in:      "kind: PersistentVolumeClaim\nmetadata: {name: b}\n",
			line:    1,
			problem: manifests.NotAnObject,
		},
		"ValuesFile": {
			reason:  "a values file is not a state file",
			in:      "enabled: true\nimages: []\n",
			line:    1,
			problem: manifests.NotAnObject,
		},
		"ControlCharacter": {
			reason:  "the reader's errors carry no line: a control character is found where it is",
			in:      "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: a, namespace: t}\n---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: a\x01b\n",
			line:    8,
			problem: manifests.Syntax,
		},
		"InvalidUTF8": {
			reason:  "invalid UTF-8 is placed at its line, in a List too",
			in:      "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: PersistentVolumeClaim\n  metadata:\n    name: \xff\n",
			line:    7,
			problem: manifests.Syntax,
		},
		"Infinity": {
			reason:  "a float JSON cannot hold (.inf) where a quantity belongs is placed at its line",
			in:      "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: a, namespace: t}\nspec:\n  resources:\n    requests:\n      storage: .inf\n",
			line:    7,
			problem: manifests.Syntax,
		},
		"NotANumber": {
			reason:  "so is .nan where a string belongs",
			in:      "# dump\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: .nan\n",
			line:    5,
			problem: manifests.Syntax,
		},
		"NullKey": {
			reason:  "a null key, which JSON cannot hold, is placed at its line",
			in:      "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: a\n  ~: b\n",
			line:    5,
			problem: manifests.Syntax,
		},
		"ListItemWithoutKind": {
			reason:  "a List item without apiVersion and kind is refused at the item",
			in:      "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: PersistentVolumeClaim\n  metadata: {name: a, namespace: t}\n- metadata: {name: b}\n",
			line:    7,
			problem: manifests.NotAnObject,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := manifests.Documents("state.yaml", strings.NewReader(tc.in))
			var e *manifests.Error
			if !errors.As(err, &e) {
				t.Fatalf("%s: want *manifests.Error, got %T %v", tc.reason, err, err)
			}
			got := at{Line: e.Line, Kind: string(e.Problem), Name: e.File}
			want := at{Line: tc.line, Kind: string(tc.problem), Name: "state.yaml"}
			assert.Equal(t, want, got, "%s (error: %v)", tc.reason, err)
		})
	}
}

// failingReader fails after its first read, as a broken pipe does.
type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestDocumentsReadError(t *testing.T) {
	_, err := manifests.Documents("state.yaml", failingReader{})
	var e *manifests.Error
	if err == nil || errors.As(err, &e) {
		t.Fatalf("a reader that fails is the reader's error, not a decode error; got %T %v", err, err)
	}
}
