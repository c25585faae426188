package catalogrelease

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/catalog"
)

// GVK is Flux's HelmRelease, as a controller-runtime client reads it.
var GVK = schema.GroupVersionKind{Group: GVR.Group, Version: GVR.Version, Kind: "HelmRelease"}

// ReaderSource is a Source reading ConfigMaps and Secrets through a
// controller-runtime reader. Give it a reader that does not cache (a
// manager's APIReader): a cached one would watch every ConfigMap and
// Secret of the cluster to serve a few.
func ReaderSource(r client.Reader) Source {
	return func(ctx context.Context, kind, namespace, name string) (map[string][]byte, string, error) {
		key := types.NamespacedName{Namespace: namespace, Name: name}
		switch kind {
		case "ConfigMap":
			cm := &corev1.ConfigMap{}
			if err := r.Get(ctx, key, cm); err != nil {
				return nil, "", err
			}
			out := make(map[string][]byte, len(cm.Data)+len(cm.BinaryData))
			for k, v := range cm.BinaryData {
				out[k] = v
			}
			for k, v := range cm.Data {
				out[k] = []byte(v)
			}
			return out, cm.ResourceVersion, nil
		case "Secret":
			s := &corev1.Secret{}
			if err := r.Get(ctx, key, s); err != nil {
				return nil, "", err
			}
			return s.Data, s.ResourceVersion, nil
		}
		return nil, "", fmt.Errorf("kind %s is neither ConfigMap nor Secret", kind)
	}
}

// Disabled is the catalog of a cluster whose catalog release does not
// exist: the catalog is not deployed and serves no golden.
var Disabled = catalog.Compile(catalog.Default())

// Compiler reads the catalog from its release in a cluster, as every
// surface that plans against a cluster does, and compiles it once per
// state of the release: its uid and generation, and the resourceVersions
// of the objects its valuesFrom names. It is safe for concurrent use; the
// zero value is ready.
type Compiler struct {
	last atomic.Pointer[compiled]
}

type compiled struct {
	key string
	cat *catalog.Catalog
}

// Catalog reads the HelmRelease key through c and its valuesFrom entries
// through src (Values), and compiles the values. A release that does not
// exist, or Flux's HelmRelease not served, is Disabled, with a note that
// says so; any other error is the catalog unread, and no catalog.
func (cc *Compiler) Catalog(ctx context.Context, c client.Reader, key types.NamespacedName, src Source) (*catalog.Catalog, string, error) {
	hr := &unstructured.Unstructured{}
	hr.SetGroupVersionKind(GVK)
	err := c.Get(ctx, key, hr)
	switch {
	case apierrors.IsNotFound(err), meta.IsNoMatchError(err):
		return Disabled, fmt.Sprintf("the catalog's HelmRelease %s does not exist, so the catalog is not deployed and serves no golden", key), nil
	case err != nil:
		return nil, "", fmt.Errorf("the catalog's HelmRelease %s: %w", key, err)
	}
	generation := string(hr.GetUID()) + "/" + strconv.FormatInt(hr.GetGeneration(), 10) + "/"
	last := cc.last.Load()
	if spec, _ := hr.Object["spec"].(map[string]any); last != nil && last.key == generation && !readsObjects(spec) {
		// Nothing but the release itself makes its values: the same
		// generation is the same catalog.
		return last.cat, "", nil
	}
	rel, err := Values(ctx, hr.Object, src)
	if err != nil {
		return nil, "", fmt.Errorf("the catalog's HelmRelease %s: %w", key, err)
	}
	id := generation + strings.Join(rel.versions, ",")
	if last != nil && last.key == id {
		return last.cat, "", nil
	}
	cat := catalog.Compile(catalog.DecodeValues(rel.Values))
	cc.last.Store(&compiled{key: id, cat: cat})
	return cat, "", nil
}

// readsObjects reports whether a release's values come from an object
// Values reads (a valuesFrom entry other than the platform's Secret).
func readsObjects(spec map[string]any) bool {
	list, _ := spec["valuesFrom"].([]any)
	for _, item := range list {
		m, _ := item.(map[string]any)
		if m["kind"] != "Secret" || m["name"] != platformValues || m["targetPath"] != nil {
			return true
		}
	}
	return false
}
