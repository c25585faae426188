package catalogrelease

import (
	"context"
	"testing"

	"sigs.k8s.io/yaml"
)

// BenchmarkValues reads a catalog release as Cozystack deploys it: the
// platform's Secret and a ConfigMap of images under spec.values.
func BenchmarkValues(b *testing.B) {
	var hr map[string]any
	src := objects(map[string]map[string]string{
		"Secret/cozystack-values": {"values.yaml": "_cluster: {root-host: example.org}\n_namespace: {host: example.org}\n"},
		"ConfigMap/images":        {"values.yaml": "images:\n- {schematicID: ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515, version: v1.13.6}\n"},
	})
	text := head + "spec:\n  valuesFrom:\n  - {kind: Secret, name: cozystack-values}\n  - {kind: ConfigMap, name: images}\n  values: {enabled: true, storageClass: replicated}\n"
	if err := yaml.Unmarshal([]byte(text), &hr); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Values(context.Background(), hr, src); err != nil {
			b.Fatal(err)
		}
	}
}
