package invariants_test

import (
	"regexp"
	"testing"

	"pgregory.net/rapid"

	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/plantest"
)

// goldenNameRE is what a golden's name looks like.
var goldenNameRE = regexp.MustCompile(`^talos-worker-[a-z0-9]+-v[0-9]+\.[0-9]+\.[0-9]+$`)

// TestNoSilentFallback (invariant 2): a pool with osImage.builtin never gets
// an HTTP source, refused or not; a planned clone's source is always the
// golden of the pool's own flavor in cozy-public, with the annotations
// that let "does anything still clone this golden?" be answered, and no
// usePopulator annotation. A refused pool has no disk at all, and a pool
// without osImage.builtin never clones.
func TestNoSilentFallback(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		opts := plantest.Options{Inconsistent: rapid.Bool().Draw(t, "inconsistent")}
		s := plantest.Scenarios(opts).Draw(t, "scenario")
		for i, r := range s.Plan() {
			p := s.Pools[i]
			img := p.Spec.OSImage
			builtin := img != nil && img.Builtin != nil
			src := r.Disk.Spec.Source
			if r.Outcome == plan.Refused {
				if r.Source != "" || src != nil || r.Disk.Name != "" || r.Golden != "" {
					t.Fatalf("pool %d: refused, yet has source %q and disk %+v", i, r.Source, r.Disk)
				}
				continue
			}
			if !builtin {
				if r.Source != plan.HTTP || src == nil || src.HTTP == nil || src.PVC != nil || r.Golden != "" {
					t.Fatalf("pool %d without osImage.builtin: source %q, disk source %+v, golden %q", i, r.Source, src, r.Golden)
				}
				continue
			}
			if r.Source != plan.Clone || src == nil || src.HTTP != nil || src.PVC == nil {
				t.Fatalf("pool %d with osImage.builtin planned with source %q, disk source %+v", i, r.Source, src)
			}
			f, _ := plantest.Flavor(p)
			want, _ := naming.GoldenName(f.SchematicID, f.Version, nil, nil)
			if src.PVC.Namespace != naming.GoldenNamespace || src.PVC.Name != want || r.Golden != want || !goldenNameRE.MatchString(src.PVC.Name) {
				t.Fatalf("pool %d clones %s/%s (golden %q), want %s/%s", i, src.PVC.Namespace, src.PVC.Name, r.Golden, naming.GoldenNamespace, want)
			}
			a := r.Disk.Annotations
			if len(a) != 2 || a[naming.GoldenAnnotation] != want || a[naming.PoolAnnotation] != naming.PoolCAPIName(p.Name) {
				t.Fatalf("pool %d: disk annotations %v, want the golden %q and the pool %q only", i, a, want, naming.PoolCAPIName(p.Name))
			}
			if r.Disk.Name != plan.DiskName {
				t.Fatalf("pool %d: disk named %q", i, r.Disk.Name)
			}
		}
	})
}
