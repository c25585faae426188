package plantest_test

import (
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/plantest"
)

// Values reads back to the pool it was made of: the same plan.
func TestValuesReadBack(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := plantest.Vocabularies().Draw(t, "vocabulary")
		p := v.Pool().Draw(t, "pool")
		pv := plantest.Values(p)
		back := plan.DecodePool(pv.Namespace, pv.Name, pv.Spec)
		want, _ := plan.Plan(p, nil, nil)
		got, _ := plan.Plan(back, nil, nil)
		if !reflect.DeepEqual(got.Disk, want.Disk) || got.Outcome != want.Outcome || got.InstallerImage != want.InstallerImage {
			t.Fatalf("%+v reads back as %+v", p.Spec, back.Spec)
		}
	})
}
