package plantest

import (
	"pgregory.net/rapid"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// Scenario is one world to plan in: pools, a catalog and a cluster's state
// drawn from one vocabulary, so that they meet.
type Scenario struct {
	Vocabulary Vocabulary
	// Pools are distinct by namespace and name.
	Pools   []plan.Pool
	Catalog catalog.Values
	State   *state.State
}

// Scenarios draws a Scenario: a vocabulary, one to four pools, catalog
// values and the cluster's state for them.
func Scenarios(opts Options) *rapid.Generator[Scenario] {
	return rapid.Custom(func(t *rapid.T) Scenario {
		v := Vocabularies().Draw(t, "vocabulary")
		s := Scenario{Vocabulary: v}
		s.Pools = rapid.SliceOfNDistinct(v.Pool(), 1, 4, func(p plan.Pool) [2]string { return [2]string{p.Namespace, p.Name} }).Draw(t, "pools")
		s.Catalog = v.CatalogValues().Draw(t, "catalog")
		s.State = v.State(s.Pools, s.Catalog, opts).Draw(t, "state")
		return s
	})
}

// Plan plans every pool of the scenario, as plan.PlanAll does.
func (s Scenario) Plan() []plan.Result {
	return plan.PlanAll(s.Pools, catalog.Compile(s.Catalog), state.NewSnapshot(s.State))
}
