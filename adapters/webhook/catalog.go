package webhook

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

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

// compiledCatalog is the catalog compiled from one generation of its release.
type compiledCatalog struct {
	key string
	cat *catalog.Catalog
}

// disabled is the catalog of a cluster whose catalog release does not
// exist: nothing serves a golden.
var disabled = catalog.Compile(catalog.Default())

// catalog is the catalog pools are planned against now: the fixed one,
// the catalog release's values (compiled once per generation of the
// release, read through the cache), or the goldens read back.
func (v *Validator) catalog(ctx context.Context) (catalogView, error) {
	switch {
	case v.opts.Catalog != nil:
		return catalogView{cat: v.opts.Catalog}, nil
	case v.opts.CatalogRelease.Name == "":
		return catalogView{readBack: true}, nil
	}
	key := v.opts.CatalogRelease
	hr := &unstructured.Unstructured{}
	hr.SetGroupVersionKind(helmReleaseGVK)
	err := v.client.Get(ctx, key, hr)
	switch {
	case apierrors.IsNotFound(err), meta.IsNoMatchError(err):
		return catalogView{cat: disabled, note: fmt.Sprintf(
			"the catalog's HelmRelease %s does not exist, so the catalog is not deployed and serves no golden", key)}, nil
	case err != nil:
		return catalogView{}, fmt.Errorf("the catalog's HelmRelease %s: %w", key, err)
	}
	id := string(hr.GetUID()) + "/" + strconv.FormatInt(hr.GetGeneration(), 10)
	if c := v.compiled.Load(); c != nil && c.key == id {
		return catalogView{cat: c.cat}, nil
	}
	cat := catalog.Compile(catalog.DecodeValues(releaseValues(hr.Object)))
	v.compiled.Store(&compiledCatalog{key: id, cat: cat})
	return catalogView{cat: cat}, nil
}

// releaseValues are a HelmRelease's spec.values as the chart receives them
// from the pool or the catalog: without the keys that start with "_",
// which Cozystack reserves for the values it injects (cozystack-api refuses
// them in an application's spec and drops them when it reads a release
// back: filterInternalKeys in pkg/registry/apps/application/rest.go).
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

// releaseNotes are warnings about a HelmRelease's values that the webhook
// does not see: Flux merges valuesFrom under spec.values, and only
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
