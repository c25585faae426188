package cli

import (
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// consumerView is what the command knows of every golden's consumers, for
// a blast radius: the view itself when it came from a file or nothing
// (offline), else a second read of the cluster, of exactly
// catalog.ConsumersNeeds. A second read, so that a user who may not list
// every namespace's PVCs loses the count only, never what the command's
// own guards read; one read per consumer kind, at once, so that a kind
// whose list fails (a timeout, a server error) is unobserved, the failure
// its cause, and the others still count. The radius is information: a
// failed read of it never fails the command, whose own reads fail closed.
func (a *app) consumerView(v view) view {
	if !v.cluster {
		return v
	}
	lists := catalog.ConsumersNeeds().Lists
	type read struct {
		st     *state.State
		causes map[state.Kind]string
		err    error
	}
	reads := make([]read, len(lists))
	var wg sync.WaitGroup
	for i, ref := range lists {
		wg.Go(func() {
			st, causes, err := a.conn.read(state.Request{Lists: []state.Ref{ref}})
			reads[i] = read{st, causes, err}
		})
	}
	wg.Wait()
	st, causes := &state.State{}, map[state.Kind]string{}
	for i, r := range reads {
		if r.err != nil {
			causes[lists[i].Kind] = "could not be read: " + r.err.Error()
			continue
		}
		maps.Copy(causes, r.causes)
		st.Observed |= r.st.Observed
		st.PersistentVolumeClaims = append(st.PersistentVolumeClaims, r.st.PersistentVolumeClaims...)
		st.DataVolumes = append(st.DataVolumes, r.st.DataVolumes...)
		st.KubevirtMachineTemplates = append(st.KubevirtMachineTemplates, r.st.KubevirtMachineTemplates...)
		st.VirtualMachines = append(st.VirtualMachines, r.st.VirtualMachines...)
		st.DataSources = append(st.DataSources, r.st.DataSources...)
		st.KubernetesNodes = append(st.KubernetesNodes, r.st.KubernetesNodes...)
		st.HelmReleases = append(st.HelmReleases, r.st.HelmReleases...)
	}
	return view{snap: state.NewSnapshot(st), causes: causes, cluster: true}
}

// radiusText says a radius, and why each consumer kind it could not count
// is unknown: "at least 1 pool and 1 template point at it; how many more
// is unknown: DataSources were not observed in every namespace (not in
// state.yaml: …)".
func (v view) radiusText(r catalog.Radius) string {
	if why := v.causesOf(unobservedKinds(r)); why != "" {
		return r.String() + " (" + why + ")"
	}
	return r.String()
}

// pointAt says a radius's counts, for a report whose warnings say which
// kinds were not observed: "at least 1 pool and 1 template point at it",
// the radius's words without why its counts are lower bounds.
func pointAt(r catalog.Radius) string {
	counts, _, _ := strings.Cut(r.String(), ";")
	return counts
}

// unobservedKinds is the radius's unobserved consumer kinds as a set.
func unobservedKinds(r catalog.Radius) state.Kind {
	var out state.Kind
	for _, name := range r.Unobserved {
		if k, ok := state.KindByName(name); ok {
			out |= k
		}
	}
	return out
}

// unknownRadius says, once for radii, which consumer kinds they could not
// count, and why: "" when they counted everything.
func (v view) unknownRadius(radii []catalog.Radius) string {
	var k state.Kind
	for _, r := range radii {
		k |= unobservedKinds(r)
	}
	if k == 0 {
		return ""
	}
	return "the counts are lower bounds: " + kindPlurals(k) + " were not observed in every namespace; " + v.causesOf(k)
}

// causesOf says why each of kinds is unknown, each cause once.
func (v view) causesOf(kinds state.Kind) string {
	var causes []string
	for _, k := range kinds.Each() {
		c := v.causes[k]
		if v.offline {
			c = offlineCause
		}
		if c != "" && !slices.Contains(causes, c) {
			causes = append(causes, c)
		}
	}
	return strings.Join(causes, "; ")
}
