package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cozystack/kubernetes-worker-image/adapters/manifests"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// allKinds is the --observed value that names every kind.
const allKinds = "all"

// observedKinds is the --observed flag: the kinds a --state file covers in
// full, whether or not it holds an object of them. For example
// "--observed CDIConfig,VolumeSnapshotClass" says the dump would have held
// CDI's config and the snapshot classes had the cluster any, and
// "--observed all" names every kind; "--observed Pod" is a usage error.
type observedKinds struct {
	kinds state.Kind
	set   bool
}

func (k *observedKinds) String() string {
	if k == nil || !k.set {
		return ""
	}
	return strings.ReplaceAll(k.kinds.String(), "|", ",")
}

func (k *observedKinds) Set(v string) error {
	for _, name := range strings.Split(v, ",") {
		name = strings.TrimSpace(name)
		if strings.EqualFold(name, allKinds) {
			k.kinds |= state.AllKinds
			continue
		}
		kind, ok := kindNamed(name)
		if !ok {
			return fmt.Errorf("%q is not a kind the planner reads; name %s, or %s", name, strings.Join(kindNames(), ", "), allKinds)
		}
		k.kinds |= kind
	}
	k.set = true
	return nil
}

// kindNamed finds a kind by its Kubernetes name, in any case.
func kindNamed(name string) (state.Kind, bool) {
	for _, k := range state.AllKinds.Each() {
		if strings.EqualFold(k.String(), name) {
			return k, true
		}
	}
	return 0, false
}

func kindNames() []string {
	var out []string
	for _, k := range state.AllKinds.Each() {
		out = append(out, k.String())
	}
	return out
}

// observeFile narrows what a --state file observes to
// what the reader says it does (manifests.Result.Observed): the kinds it
// holds an object of, plus those named, but none it holds an object of in
// a version not read. A kind the file neither holds nor names is unknown,
// never empty, since nothing says the dump covered it. A destructive
// report (prune's safe-to-delete) takes the file's consumers, the kinds
// that may clone what it reports on (for a worker golden: PVCs,
// DataVolumes, templates, VirtualMachines, DataSources, pools), for every
// namespace only when they are named: a dump of some namespaces holds
// objects too, so held but not named they cover the namespaces the file
// holds them in. It returns the kinds it so scoped; consumers 0 is a
// report that deletes nothing, and scopes none.
func observeFile(res manifests.Result, named, consumers state.Kind) state.Kind {
	st := res.State
	st.Observed = res.Observed(named)
	scoped := st.Observed & consumers &^ named
	if scoped == 0 {
		return 0
	}
	st.Namespaces = []string{}
	add := func(ns string) { st.Namespaces = append(st.Namespaces, ns) }
	for i := range st.PersistentVolumeClaims {
		add(st.PersistentVolumeClaims[i].Namespace)
	}
	for i := range st.DataVolumes {
		add(st.DataVolumes[i].Namespace)
	}
	for i := range st.KubevirtMachineTemplates {
		add(st.KubevirtMachineTemplates[i].Namespace)
	}
	for i := range st.VirtualMachines {
		add(st.VirtualMachines[i].Namespace)
	}
	for i := range st.DataSources {
		add(st.DataSources[i].Namespace)
	}
	for i := range st.KubernetesNodes {
		add(st.KubernetesNodes[i].GetNamespace())
	}
	for i := range st.HelmReleases {
		add(st.HelmReleases[i].GetNamespace())
	}
	slices.Sort(st.Namespaces)
	st.Namespaces = slices.Compact(st.Namespaces)
	// One scope describes every namespaced kind: those named count only
	// where the file holds any of them, too.
	return st.Observed & state.Namespaced
}

// Type names the flag's value in help.
func (k *observedKinds) Type() string { return "kinds" }

// kindPlurals names kinds in the plural, for a sentence:
// "PersistentVolumeClaims, DataVolumes and KubevirtMachineTemplates".
func kindPlurals(k state.Kind) string {
	var names []string
	for _, one := range k.Each() {
		names = append(names, one.Plural())
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
