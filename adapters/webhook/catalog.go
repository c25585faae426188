package webhook

import (
	"context"
	"fmt"
	"strings"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/catalogrelease"
	"github.com/cozystack/kubernetes-worker-image/catalog"
)

// catalogView is the catalog a pool is planned against.
type catalogView struct {
	cat *catalog.Catalog
	// readBack: the catalog is to be read back from the goldens of the
	// pool's snapshot (catalog.FromCluster), which must then hold
	// catalog.RenderNeeds.
	readBack bool
	// note is said to a pool that clones: why its catalog is disabled.
	note string
}

// catalog is the catalog pools are planned against now: the fixed one,
// the catalog release's values as Flux gives them to the chart
// (spec.values over spec.valuesFrom, read as the CLI reads them; compiled
// once per state of the release), or the goldens read back.
func (v *Validator) catalog(ctx context.Context) (catalogView, error) {
	switch {
	case v.opts.Catalog != nil:
		return catalogView{cat: v.opts.Catalog}, nil
	case v.opts.CatalogRelease.Name == "":
		return catalogView{readBack: true}, nil
	}
	cat, note, err := v.compiler.Catalog(ctx, v.client, v.opts.CatalogRelease, v.values)
	if err != nil {
		return catalogView{}, err
	}
	return catalogView{cat: cat, note: note}, nil
}

// releaseCatalog compiles the values of a catalog release in a request,
// its valuesFrom read from the cluster.
func (v *Validator) releaseCatalog(ctx context.Context, obj map[string]any) (*catalog.Catalog, error) {
	rel, err := catalogrelease.Values(ctx, obj, v.values)
	if err != nil {
		return nil, err
	}
	return catalog.Compile(catalog.DecodeValues(rel.Values)), nil
}

// releaseValues are a HelmRelease's spec.values as the chart receives them
// from the pool: without the keys that start with "_", which Cozystack
// reserves for the values it injects (cozystack-api refuses them in an
// application's spec and drops them when it reads a release back:
// filterInternalKeys in pkg/registry/apps/application/rest.go).
func releaseValues(obj map[string]any) any {
	spec, _ := obj["spec"].(map[string]any)
	values, present := spec["values"]
	m, ok := values.(map[string]any)
	if !present || !ok {
		return values
	}
	out := make(map[string]any, len(m))
	for k, val := range m {
		if !strings.HasPrefix(k, "_") {
			out[k] = val
		}
	}
	return out
}

// releaseNotes are warnings about a pool release's values that the
// webhook does not see: Flux merges valuesFrom under spec.values, and only
// Cozystack's own Secret of internal keys is known to change nothing here.
func releaseNotes(obj map[string]any) []string {
	spec, _ := obj["spec"].(map[string]any)
	refs, _ := spec["valuesFrom"].([]any)
	var out []string
	for _, r := range refs {
		ref, _ := r.(map[string]any)
		kind, _ := ref["kind"].(string)
		name, _ := ref["name"].(string)
		if kind == "Secret" && name == platformValuesSecret {
			continue
		}
		out = append(out, fmt.Sprintf("spec.valuesFrom: values from %s %s were not checked: only spec.values is, and values from it may change what the chart renders", kind, name))
	}
	return out
}
