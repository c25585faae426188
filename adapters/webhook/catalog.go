package webhook

import (
	"context"

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
