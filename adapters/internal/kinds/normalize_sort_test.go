package kinds

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// shuffledClaims are n claims over three namespaces, shuffled, each
// claim's name twice with its copies told apart by their class.
func shuffledClaims(n int, seed uint64) []corev1.PersistentVolumeClaim {
	var objs []corev1.PersistentVolumeClaim
	for i := range n {
		class := fmt.Sprint(i % 2)
		objs = append(objs, corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Namespace: fmt.Sprintf("ns%d", i%3), Name: fmt.Sprintf("d%04d", i/2)},
			Spec:       corev1.PersistentVolumeClaimSpec{StorageClassName: &class},
		})
	}
	r := rand.New(rand.NewPCG(seed, 0))
	r.Shuffle(len(objs), func(i, j int) { objs[i], objs[j] = objs[j], objs[i] })
	return objs
}

func TestNormalizeSortsManyStably(t *testing.T) {
	for seed := range uint64(20) {
		objs := shuffledClaims(300, seed)
		// The order the equal keys came in, which sorting keeps.
		firstClass := map[string]string{}
		for _, o := range objs {
			if _, ok := firstClass[o.Namespace+"/"+o.Name]; !ok {
				firstClass[o.Namespace+"/"+o.Name] = *o.Spec.StorageClassName
			}
		}
		st := &state.State{PersistentVolumeClaims: objs}
		Normalize(st)
		assert.Len(t, st.PersistentVolumeClaims, 300)
		seen := map[string]bool{}
		for i, o := range st.PersistentVolumeClaims {
			key := o.Namespace + "/" + o.Name
			if i > 0 {
				p := st.PersistentVolumeClaims[i-1]
				assert.True(t, p.Namespace < o.Namespace || (p.Namespace == o.Namespace && p.Name <= o.Name), "seed %d: %s/%s before %s", seed, p.Namespace, p.Name, key)
			}
			if !seen[key] {
				assert.Equal(t, firstClass[key], *o.Spec.StorageClassName, "seed %d: of equal keys, the first listed stays first: %s", seed, key)
			}
			seen[key] = true
		}
	}
}

// BenchmarkNormalize normalizes the 100 claims of a pool of 50 disks (and
// as many again) listed in no order, as an index lists them.
func BenchmarkNormalize(b *testing.B) {
	objs := shuffledClaims(100, 1)
	work := make([]corev1.PersistentVolumeClaim, len(objs))
	b.ReportAllocs()
	for b.Loop() {
		copy(work, objs)
		Normalize(&state.State{PersistentVolumeClaims: work})
	}
}

// BenchmarkNormalizeCollecting is BenchmarkNormalize while the collector
// runs (as it does in a busy controller): each move of an object is then
// a write barrier over its pointers.
func BenchmarkNormalizeCollecting(b *testing.B) {
	objs := shuffledClaims(100, 1)
	work := make([]corev1.PersistentVolumeClaim, len(objs))
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		var keep [][]byte
		for {
			select {
			case <-stop:
				return
			default:
				keep = append(keep, make([]byte, 1<<10))
				if len(keep) > 1<<12 {
					keep = nil
				}
			}
		}
	}()
	for b.Loop() {
		copy(work, objs)
		Normalize(&state.State{PersistentVolumeClaims: work})
	}
}
