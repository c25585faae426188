package manifests_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cozystack/kubernetes-worker-image/adapters/manifests"
)

// A key twice in one mapping is refused wherever it is, YAML or JSON, by
// Documents (pool files) and Read (state files) alike, at the second
// copy's line; the same key in two mappings is no repeat.
func TestDuplicateKeys(t *testing.T) {
	const class = "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: %s\nprovisioner: p\n"
	cases := map[string]struct {
		reason string
		in     string
		line   int    // 0: the input reads
		key    string // the key repeated
		first  int
	}{
		"TopLevel": {
			reason: "two documents run together, their --- lost: every key of the second repeats one of the first",
			in:     strings.ReplaceAll(class, "%s", "a") + strings.ReplaceAll(class, "%s", "b"),
			line:   6, key: "apiVersion", first: 1,
		},
		"Nested": {
			reason: "a repeat deep in an object",
			in:     "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: a\n  labels:\n    tier: x\n    tier: y\nprovisioner: p\n",
			line:   7, key: "tier", first: 6,
		},
		"AfterSeparator": {
			reason: "lines count in the whole file, past documents and separators",
			in:     "# classes\n---\n" + strings.ReplaceAll(class, "%s", "a") + "---\n" + strings.ReplaceAll(class, "%s", "b") + "provisioner: q\n",
			line:   14, key: "provisioner", first: 13,
		},
		"ListItem": {
			reason: "a repeat in an item of a List as kubectl prints it",
			in: "apiVersion: v1\nkind: List\nitems:\n- apiVersion: storage.k8s.io/v1\n  kind: StorageClass\n  metadata: {name: a}\n  provisioner: p\n" +
				"- apiVersion: storage.k8s.io/v1\n  kind: StorageClass\n  metadata:\n    name: b\n    name: c\n  provisioner: p\n",
			line: 12, key: "name", first: 11,
		},
		"ListItemFirstLine": {
			reason: "a repeat of the key on an entry's dash line",
			in:     "apiVersion: v1\nkind: List\nitems:\n- apiVersion: storage.k8s.io/v1\n  kind: StorageClass\n  apiVersion: v1\n  metadata: {name: a}\n",
			line:   6, key: "apiVersion", first: 4,
		},
		"Quoted": {
			reason: "a quoted key is the same key as its plain form",
			in:     "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: a\n\"provisioner\": p\nprovisioner: q\n",
			line:   6, key: "provisioner", first: 5,
		},
		"JSON": {
			reason: "encoding/json would keep the last; kubectl refuses it, and so does the reader",
			in:     `{"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "a"}, "provisioner": "p", "provisioner": "q"}`,
			line:   1, key: "provisioner", first: 1,
		},
		"JSONListItem": {
			reason: "a repeat in an item of a List as kubectl get -o json prints it",
			in: "{\n    \"apiVersion\": \"v1\",\n    \"kind\": \"List\",\n    \"items\": [\n        {\n            \"apiVersion\": \"storage.k8s.io/v1\",\n" +
				"            \"kind\": \"StorageClass\",\n            \"metadata\": {\"name\": \"a\", \"labels\": {\"a\": \"1\",\n \"a\": \"2\"}},\n            \"provisioner\": \"p\"\n        }\n    ]\n}\n",
			line: 9, key: "a", first: 8,
		},
		"SiblingMaps": {
			reason: "the same key in sibling mappings is no repeat",
			in:     "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: a\n  labels:\n    name: one\n  annotations:\n    name: two\nprovisioner: p\n",
		},
		"Nesting": {
			reason: "a key inside the value of the same key is no repeat",
			in:     "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: a\n  labels: {}\nparameters:\n  parameters: x\nprovisioner: p\n",
		},
		"Case": {
			reason: "keys are case-sensitive: Name and name are two keys",
			in:     "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: a\n  labels:\n    Name: one\n    name: two\nprovisioner: p\n",
		},
		"JSONCase": {
			reason: "in JSON too",
			in:     `{"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "a", "labels": {"Name": "x", "name": "y"}}, "provisioner": "p"}`,
		},
		"ListItemsAlike": {
			reason: "items of a List each hold the same keys",
			in: "apiVersion: v1\nkind: List\nitems:\n- apiVersion: storage.k8s.io/v1\n  kind: StorageClass\n  metadata: {name: a}\n  provisioner: p\n" +
				"- apiVersion: storage.k8s.io/v1\n  kind: StorageClass\n  metadata: {name: b}\n  provisioner: p\n",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, derr := manifests.Documents("f.yaml", strings.NewReader(tc.in))
			_, rerr := manifests.Read("f.yaml", strings.NewReader(tc.in))
			for reader, err := range map[string]error{"Documents": derr, "Read": rerr} {
				if tc.line == 0 {
					assert.NoError(t, err, "%s: %s", reader, tc.reason)
					continue
				}
				var e *manifests.Error
				require.True(t, errors.As(err, &e), "%s: %s: want *manifests.Error, got %v", reader, tc.reason, err)
				assert.Equal(t, manifests.DuplicateKey, e.Problem, "%s: %s: %v", reader, tc.reason, err)
				assert.Equal(t, tc.line, e.Line, "%s: %s: %v", reader, tc.reason, err)
				key, first, ok := manifests.RepeatedKey(err)
				require.True(t, ok, "%s: %s: %v", reader, tc.reason, err)
				assert.Equal(t, tc.key, key, "%s: %s", reader, tc.reason)
				assert.Equal(t, tc.first, first, "%s: %s", reader, tc.reason)
				assert.Contains(t, err.Error(), "is a `---` missing between two documents?", "the way out")
			}
		})
	}
}
