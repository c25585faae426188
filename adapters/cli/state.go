package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/catalogrelease"
	"github.com/cozystack/kubernetes-worker-image/adapters/manifests"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	example "github.com/cozystack/kubernetes-worker-image/internal/examplefiles"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// offlineCause is the cause of every StateUnverified of a run that read
// no cluster state.
const offlineCause = "offline: no cluster state was read (no --state, --kubeconfig or --context, and no KUBECONFIG)"

// view is what the command knows of the cluster, and why each kind it does
// not know is unknown.
type view struct {
	snap *state.Snapshot
	// causes is, per kind, why it is unknown (Warning.Cause).
	causes map[state.Kind]string
	// offline: no state at all; every StateUnverified is offlineCause.
	offline bool
	// cluster: the state was read from a cluster (a.conn), which can be
	// read again.
	cluster bool
}

// hasState reports whether the command was given the cluster's state.
func (a *app) hasState(o *options) bool {
	return o.example || o.state != "" || a.readsCluster(o) || a.conn != nil
}

// snapshot is what the command knows of the cluster: the --state file (the
// kinds it holds an object of and those --observed names; the embedded
// example's every kind), what need asks for read from the cluster, or
// nothing (every kind unknown: the guards that need one warn
// StateUnverified). A destructive report (prune) takes a file's consumer
// kinds for every namespace only when --observed names them all.
func (a *app) snapshot(o *options, need func() state.Request, destructive bool) (view, error) {
	var res manifests.Result
	var err error
	name, named := example.StateFile, o.observed.kinds
	switch {
	case o.example:
		// The walkthrough's state is a dump of every kind in every
		// namespace.
		named = state.AllKinds
		res, err = manifests.Read(name, bytes.NewReader(example.State))
	case o.state != "":
		// A regular file is decoded where it lies, never copied into
		// memory: a state file is the largest input the CLI reads.
		ra, size, n, closeInput, oerr := a.openInput(o.state)
		if name = n; oerr != nil {
			return view{}, oerr
		}
		r, p := a.readProgress(name, ra, size)
		res, err = manifests.Read(name, r)
		p.finish()
		closeInput()
	case a.conn != nil || a.readsCluster(o):
		if a.conn == nil {
			if a.conn, err = a.connect(o); err != nil {
				return view{}, err
			}
		}
		st, causes, err := a.conn.read(need())
		if err != nil {
			return view{}, err
		}
		return view{snap: state.NewSnapshot(st), causes: causes, cluster: true}, nil
	default:
		return view{offline: true}, nil
	}
	if err != nil {
		return view{}, inputError(err)
	}
	for _, n := range res.Notes {
		printf(a.stderr, "note: %s\n", n)
	}
	if res.Held == 0 {
		return view{}, unusable("%s holds no object of a kind the planner reads (%s); give what kubectl get -o yaml prints of them",
			name, strings.Join(kindNames(), ", "))
	}
	v := view{causes: map[state.Kind]string{}}
	st := res.State
	var consumers state.Kind
	if destructive {
		consumers = listed(need()) & state.ConsumerKinds
	}
	scoped := observeFile(res, named, consumers)
	for _, n := range res.Notes {
		if k, ok := kindNamed(n.Kind); ok && n.Reason == manifests.VersionNotRead && v.causes[k] == "" {
			v.causes[k] = n.Cause() // the first such object of the kind
		}
	}
	for _, k := range (state.AllKinds &^ st.Observed).Each() {
		if v.causes[k] == "" {
			v.causes[k] = fmt.Sprintf("not in %s: it holds no %s, and --observed does not name it (--observed %s says the dump covered it)", name, k, k)
		}
	}
	if scoped != 0 {
		printf(a.stderr, "note: %s: its %s count only for the namespaces it holds them in; "+
			"if it holds every namespace's, pass --observed all (or --observed %s)\n", name, kindPlurals(scoped),
			strings.ReplaceAll(consumers.String(), "|", ","))
		for _, k := range scoped.Each() {
			if _, ok := v.causes[k]; !ok {
				v.causes[k] = fmt.Sprintf("not every namespace's: %s counts only for the namespaces it holds them in (--observed %s says it holds every namespace's)", name,
					strings.ReplaceAll(consumers.String(), "|", ","))
			}
		}
	}
	v.snap = state.NewSnapshot(st)
	return v, nil
}

// listed is the kinds a request lists in every namespace.
func listed(r state.Request) state.Kind {
	var k state.Kind
	for _, l := range r.Lists {
		if l.Namespace == "" {
			k |= l.Kind
		}
	}
	return k
}

// explain sets on each StateUnverified the cause the view knows of its
// kind.
func (v view) explain(ws guard.Warnings) {
	for i := range ws {
		w := &ws[i]
		if w.Reason != guard.StateUnverified || w.Cause != "" {
			continue
		}
		switch k, ok := kindNamed(w.Kind); {
		case v.offline:
			w.Cause = offlineCause
		case ok && v.causes[k] != "":
			w.Cause = v.causes[k]
		}
	}
}

// catalogNeeds is need with what loadCatalog reads of the cluster: without
// --catalog, every golden, to read the catalog back from them.
func catalogNeeds(o *options, need state.Request) state.Request {
	if o.catalog == "" {
		need = need.Merge(catalog.RenderNeeds())
	}
	return need
}

// loadCatalog is the catalog: the --catalog values (or the HelmRelease
// object it holds, its valuesFrom read from the cluster), or, without
// them, the catalog release's values read from the cluster; read back
// from the goldens in the cluster's state only where the release cannot
// be read (no cluster, Flux not served, RBAC), which a.catalogFrom then
// says with the reason. The catalog's own warnings (UnknownField of its
// values, StateUnverified of a read-back) come back to be reported once
// for the run.
func (a *app) loadCatalog(o *options, v view) (*catalog.Catalog, guard.Warnings, error) {
	var data []byte
	var name string
	key, err := o.catalogReleaseKey()
	if err != nil {
		return nil, nil, err
	}
	switch {
	case o.example:
		data, name = example.Catalog, example.CatalogFile
		a.catalogFrom = &catalogSource{Source: fromExample}
	case o.catalog != "":
		if data, name, err = a.readFile(o.catalog); err != nil {
			return nil, nil, err
		}
		a.catalogFrom = &catalogSource{Source: fromFile, File: name}
	default:
		var m map[string]any
		fallback := "no cluster was read (a --state file holds no HelmRelease)"
		if !v.cluster {
			if v.offline {
				fallback = "no cluster was read"
			}
		} else if m, a.catalogFrom, fallback, err = a.conn.readRelease(key); err != nil {
			return nil, nil, err
		}
		if m != nil {
			cat := catalog.Compile(catalog.DecodeValues(m))
			return cat, cat.Warnings(), nil
		}
		a.catalogFrom = &catalogSource{Source: fromReadBack, Release: key.String(), Fallback: fallback}
		cat, warnings := catalog.FromCluster(v.snap)
		v.explain(warnings)
		return cat, warnings, nil
	}
	m, err := values(name, data)
	if err != nil {
		return nil, nil, err
	}
	if catalogrelease.IsHelmRelease(m) {
		var src catalogrelease.Source
		if v.cluster {
			src = a.conn.releaseSource()
		}
		rel, err := catalogrelease.Values(context.Background(), m, src)
		if errors.Is(err, catalogrelease.ErrOffline) {
			return nil, nil, unusable("%s holds a HelmRelease whose %v: pass --kubeconfig (or --context) to read them from the cluster, or give --catalog the merged values", name, err)
		}
		if err != nil {
			return nil, nil, unusable("%s: the HelmRelease's %v", name, err)
		}
		meta, _ := m["metadata"].(map[string]any)
		ns, _ := meta["namespace"].(string)
		n, _ := meta["name"].(string)
		a.catalogFrom = &catalogSource{Source: fromReleaseFile, File: name, Release: ns + "/" + n, Notes: rel.Notes}
		for _, r := range rel.Read {
			a.catalogFrom.ValuesFrom = append(a.catalogFrom.ValuesFrom, r.String())
		}
		m = rel.Values
	}
	// Values the chart cannot read are refusals the catalog carries: they
	// refuse the pools that clone, and render prints them in its shape.
	cat := catalog.Compile(catalog.DecodeValues(m))
	return cat, cat.Warnings(), nil
}

// sayCatalog prints, in text output, where the catalog came from when the
// command found it (the cluster's release, a read-back, a release file):
// a --catalog values file or the example is the user's own word.
func (a *app) sayCatalog() {
	if s := a.catalogFrom; s != nil && s.Source != fromFile && s.Source != fromExample {
		printf(a.stderr, "%s\n", s.text())
	}
}
