package manifests_test

import (
	"bytes"
	"fmt"
	"os"
	"sync"
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

// LargeEnv names the environment variable that adds the 500 MB files to
// BenchmarkReadServed: each takes minutes to build and seconds to read.
const LargeEnv = "MANIFESTS_BENCH_500MB"

// BenchmarkReadServed decodes the state of issue 17 as kubectl prints it
// of a live cluster (fleet.Workers, served: 20,000 worker disks, each a
// DataVolume and its PVC), as -o yaml and -o json, and ten times that when
// MANIFESTS_BENCH_500MB is set.
func BenchmarkReadServed(b *testing.B) {
	times := []int{1}
	if os.Getenv(LargeEnv) != "" {
		times = append(times, 10)
	}
	for _, n := range times {
		for _, f := range []fleet.Format{fleet.YAMLList, fleet.JSONList} {
			data := servedFile(b, n, f)
			b.Run(fmt.Sprintf("%s/MB=%d", f, len(data)>>20), func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for b.Loop() {
					st, _, err := manifests.Read("state", bytes.NewReader(data))
					if err != nil {
						b.Fatal(err)
					}
					if want := fleet.Workers.Times(n).PVCs; len(st.DataVolumes) < want {
						b.Fatalf("%d DataVolumes, want %d and the goldens'", len(st.DataVolumes), want)
					}
				}
			})
		}
	}
}

var served struct {
	sync.Mutex
	files map[string][]byte
}

// servedFile prints fleet.Workers.Times(n), served, in format f, once per
// test binary.
func servedFile(b *testing.B, n int, f fleet.Format) []byte {
	served.Lock()
	defer served.Unlock()
	key := fmt.Sprint(n, f)
	if data, ok := served.files[key]; ok {
		return data
	}
	data, err := fleet.Print(fleet.Served(fleet.State(fleet.Workers.Times(n))), f)
	if err != nil {
		b.Fatal(err)
	}
	if served.files == nil {
		served.files = map[string][]byte{}
	}
	served.files[key] = data
	return data
}
