package manifests_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/cozystack/kubernetes-worker-image/adapters/manifests"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
)

// BenchmarkRead decodes a large state file as kubectl get -o yaml prints it:
// the large fleet's 1,000 goldens, 50 classes and 100,000 PVCs (about 50 MB).
func BenchmarkRead(b *testing.B) {
	data, err := fleet.ListYAML(fleet.State(fleet.Large))
	if err != nil {
		b.Fatal(err)
	}
	b.Run(fmt.Sprintf("MB=%d", len(data)>>20), func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			st, _, err := manifests.Read("state.yaml", bytes.NewReader(data))
			if err != nil {
				b.Fatal(err)
			}
			if len(st.PersistentVolumeClaims) != fleet.Large.PVCs+fleet.Large.Goldens {
				b.Fatalf("%d PVCs", len(st.PersistentVolumeClaims))
			}
		}
	})
}
