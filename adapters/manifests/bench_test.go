package manifests_test

import (
	"bytes"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

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
		defer reportCPU(b, cpuTime())
		for b.Loop() {
			rr, err := manifests.Read("state.yaml", bytes.NewReader(data))
			st := rr.State
			if err != nil {
				b.Fatal(err)
			}
			if len(st.PersistentVolumeClaims) != fleet.Large.PVCs+fleet.Large.Goldens {
				b.Fatalf("%d PVCs", len(st.PersistentVolumeClaims))
			}
		}
	})
}

// reportCPU reports the CPU time per iteration since start (cpu-ns/op),
// all goroutines' together, beside the wall clock's ns/op.
func reportCPU(b *testing.B, start time.Duration) {
	if start > 0 && b.N > 0 {
		b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
	}
}

// LargeEnv names the environment variable that adds the 500 MB files to
// BenchmarkReadServed: each takes minutes to build and seconds to read.
const LargeEnv = "MANIFESTS_BENCH_500MB"

// BenchmarkReadServed decodes a large fleet's states as kubectl prints them
// of a live cluster (fleet.Workers, served: worker disks, each a DataVolume
// and its PVC), as -o yaml and -o json, in files of about 50 MB, and of
// about 500 MB when MANIFESTS_BENCH_500MB is set.
func BenchmarkReadServed(b *testing.B) {
	sizes := []int{50}
	if os.Getenv(LargeEnv) != "" {
		sizes = append(sizes, 500)
	}
	for _, mb := range sizes {
		for _, f := range []fleet.Format{fleet.YAMLList, fleet.JSONList} {
			size := servedSize(f, mb)
			data := servedFile(b, size, f)
			b.Run(fmt.Sprintf("%s/MB=%d", f, mb), func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				defer reportCPU(b, cpuTime())
				for b.Loop() {
					rr, err := manifests.Read("state", bytes.NewReader(data))
					st := rr.State
					if err != nil {
						b.Fatal(err)
					}
					if len(st.DataVolumes) < size.PVCs {
						b.Fatalf("%d DataVolumes, want %d and the goldens'", len(st.DataVolumes), size.PVCs)
					}
				}
			})
		}
	}
}

// servedSize is the fleet that f prints in about mb megabytes: a worker
// disk (its DataVolume and PVC) is about 2.9 kB of YAML, 5 kB of JSON
// indented as kubectl indents it.
func servedSize(f fleet.Format, mb int) fleet.Size {
	perDisk := 2870
	if f == fleet.JSONList || f == fleet.JSONDocuments {
		perDisk = 5000
	}
	s := fleet.Workers
	s.PVCs = mb * 1000 * 1000 / perDisk
	s.Namespaces = max(s.PVCs/20, 1)
	return s
}

var served struct {
	sync.Mutex
	files map[string][]byte
}

// servedFile prints the fleet of size, served, in format f, once per test
// binary.
func servedFile(b *testing.B, size fleet.Size, f fleet.Format) []byte {
	served.Lock()
	defer served.Unlock()
	key := fmt.Sprint(size, f)
	if data, ok := served.files[key]; ok {
		return data
	}
	data, err := fleet.Print(fleet.Served(fleet.State(size)), f)
	if err != nil {
		b.Fatal(err)
	}
	if served.files == nil {
		served.files = map[string][]byte{}
	}
	served.files[key] = data
	return data
}
