package plantest_test

import (
	"fmt"

	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/plantest"
)

// A quantity is compared as a quantity: these all spell the golden's
// default size.
func ExampleSpellings() {
	fmt.Println(plantest.Spellings(6 << 30))
	// Output: [6442450944 6442450944e0 6291456Ki 6144Mi 6Gi]
}

// Generator.Example draws a value outside a property, here twenty
// scenarios: whatever they hold, no builtin pool is planned over HTTP.
func ExampleScenarios() {
	scenarios := plantest.Scenarios(plantest.Options{})
	fallbacks := 0
	for seed := range 20 {
		s := scenarios.Example(seed)
		for i, r := range s.Plan() {
			if _, builtin := plantest.Flavor(s.Pools[i]); builtin && r.Source == plan.HTTP {
				fallbacks++
			}
		}
	}
	fmt.Println("builtin pools planned over HTTP:", fallbacks)
	// Output: builtin pools planned over HTTP: 0
}
