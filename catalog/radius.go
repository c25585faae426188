package catalog

import (
	"fmt"
	"strings"

	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// Radius is a golden's blast radius: how many pools and
// KubevirtMachineTemplates still point at it, which is what its going away
// (a failed import, a retired catalog entry, a delete) would leave without
// a boot disk. It is information, never a refusal.
type Radius struct {
	Golden string `json:"golden"`
	// Pools counts the distinct pools, by namespace and CAPI name, that
	// its consumers name (Consumer.Pool).
	Pools int `json:"pools"`
	// Templates counts the KubevirtMachineTemplates that clone it: a pool
	// scaled to zero has one and no disk.
	Templates int `json:"templates"`
	// Unobserved names the consumer kinds that were not observed in every
	// namespace: the counts are then at least what they say, and how many
	// more is unknown. Empty when they are exact.
	Unobserved []string `json:"unobserved,omitempty"`
}

// Radius is the golden's blast radius over what the index holds.
func (x *ConsumerIndex) Radius(golden string) Radius {
	r := Radius{Golden: golden}
	for _, k := range x.unobserved.Each() {
		r.Unobserved = append(r.Unobserved, k.String())
	}
	type pool struct{ namespace, name string }
	pools := map[pool]bool{}
	for _, c := range x.Of(golden) {
		if c.Kind == kindKubevirtMachineTemplate {
			r.Templates++
		}
		if c.Pool != "" {
			pools[pool{c.Namespace, c.Pool}] = true
		}
	}
	r.Pools = len(pools)
	return r
}

// known reports whether the counts are exact.
func (r Radius) known() bool { return len(r.Unobserved) == 0 }

// counts says the counts: "2 pools and 1 template", "no pool or
// template"; "at least 2 pools and 1 template" or "no pool or template
// seen" when a consumer kind was not observed.
func (r Radius) counts() string {
	switch zero := r.Pools+r.Templates == 0; {
	case zero && r.known():
		return "no pool or template"
	case zero:
		return "no pool or template seen"
	case r.known():
		return count(r.Pools, "pool") + " and " + count(r.Templates, "template")
	default:
		return "at least " + count(r.Pools, "pool") + " and " + count(r.Templates, "template")
	}
}

// String says the radius in words. For example "2 pools and 1 template
// point at it"; "no pool or template points at it"; with DataSources
// unobserved, "at least 1 pool and 1 template point at it; how many more is
// unknown: DataSources were not observed in every namespace".
func (r Radius) String() string {
	verb := " point at it"
	if r.Pools+r.Templates == 0 {
		verb = " points at it"
	}
	if r.known() {
		return r.counts() + verb
	}
	return r.counts() + verb + "; how many more is unknown: " + kindList(r.Unobserved) + " were not observed in every namespace"
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// kindList names kinds in the plural, "PersistentVolumeClaims, DataVolumes
// and DataSources".
func kindList(kinds []string) string {
	plural := make([]string, len(kinds))
	for i, k := range kinds {
		plural[i] = k + "s"
		if kind, ok := state.KindByName(k); ok {
			plural[i] = kind.Plural()
		}
	}
	if len(plural) == 1 {
		return plural[0]
	}
	return strings.Join(plural[:len(plural)-1], ", ") + " and " + plural[len(plural)-1]
}
