package cli

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/catalogrelease"
)

// Where a run's catalog came from (catalogSource.Source).
const (
	// fromRelease: the catalog HelmRelease read from the cluster.
	fromRelease = "release"
	// fromReleaseFile: a HelmRelease object given as --catalog.
	fromReleaseFile = "release-file"
	// fromFile: a --catalog values file.
	fromFile = "file"
	// fromExample: the walkthrough's catalog (--example).
	fromExample = "example"
	// fromReadBack: read back from the goldens, since the release could
	// not be read (Fallback says why).
	fromReadBack = "readback"
)

// catalogSource says which catalog a run planned against: every output
// carries it ("catalog" in JSON, a line on standard error in text), so
// that two surfaces that disagree show why.
type catalogSource struct {
	Source string `json:"source"`
	// Release is the HelmRelease NAMESPACE/NAME read, or that could not
	// be.
	Release string `json:"release,omitempty"`
	// File is the --catalog file.
	File string `json:"file,omitempty"`
	// ValuesFrom are the valuesFrom entries merged ("ConfigMap x").
	ValuesFrom []string `json:"valuesFrom,omitempty"`
	// Deployed is false when the release does not exist: the catalog is
	// not deployed and serves no golden.
	Deployed *bool `json:"deployed,omitempty"`
	// Fallback is why the release was not read (fromReadBack).
	Fallback string `json:"fallback,omitempty"`
	// Notes say what of the release was left out.
	Notes []string `json:"notes,omitempty"`
}

// text is the source in a sentence.
func (s *catalogSource) text() string {
	var b strings.Builder
	switch s.Source {
	case fromRelease:
		if s.Deployed != nil && !*s.Deployed {
			return fmt.Sprintf("catalog: the HelmRelease %s does not exist, so the catalog is not deployed and serves no golden", s.Release)
		}
		fmt.Fprintf(&b, "catalog: the values of the HelmRelease %s", s.Release)
	case fromReleaseFile:
		fmt.Fprintf(&b, "catalog: the values of the HelmRelease %s in %s", s.Release, s.File)
	case fromFile:
		return "catalog: the values in " + s.File
	case fromExample:
		return "catalog: the walkthrough's example"
	case fromReadBack:
		return "catalog: read back from the goldens in cozy-public, since the catalog release " + s.Release + " could not be read: " + s.Fallback +
			"; a retired golden counts as an entry here (pass --catalog, or grant get on the release)"
	}
	if len(s.ValuesFrom) > 0 {
		fmt.Fprintf(&b, " (spec.values over valuesFrom %s)", strings.Join(s.ValuesFrom, ", "))
	}
	for _, n := range s.Notes {
		b.WriteString("; " + n)
	}
	return b.String()
}

// catalogReleaseKey reads --catalog-release NAMESPACE/NAME.
func (o *options) catalogReleaseKey() (types.NamespacedName, error) {
	if o.catalogRelease == "" {
		return catalogrelease.Default, nil
	}
	ns, name, ok := strings.Cut(o.catalogRelease, "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		return types.NamespacedName{}, badUsage("--catalog-release %q is not NAMESPACE/NAME, as in %s", o.catalogRelease, catalogrelease.Default)
	}
	return types.NamespacedName{Namespace: ns, Name: name}, nil
}

// releaseSource reads a valuesFrom entry's data from the cluster.
func (c *conn) releaseSource() catalogrelease.Source {
	return func(ctx context.Context, kind, namespace, name string) (map[string][]byte, string, error) {
		switch kind {
		case "ConfigMap":
			cm, err := c.core.CoreV1().ConfigMaps(namespace).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
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
			s, err := c.core.CoreV1().Secrets(namespace).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return nil, "", err
			}
			return s.Data, s.ResourceVersion, nil
		}
		return nil, "", fmt.Errorf("kind %s is neither ConfigMap nor Secret", kind)
	}
}

// readRelease reads the catalog release from the cluster: its values, and
// the source; a release that cannot be read (Flux not served, RBAC) is
// why, for the fallback, with no values; a release that does not exist is
// the catalog not deployed (disabled), as the admission webhook takes it.
func (c *conn) readRelease(key types.NamespacedName) (map[string]any, *catalogSource, string, error) {
	src := &catalogSource{Source: fromRelease, Release: key.String()}
	served, why, err := c.served.Serves(catalogrelease.GVR)
	if err != nil {
		return nil, nil, "", failed("read %s: %v", c.name, err)
	}
	if !served {
		return nil, nil, why, nil
	}
	ctx := context.Background()
	hr, err := c.dyn.Resource(catalogrelease.GVR).Namespace(key.Namespace).Get(ctx, key.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		no := false
		src.Deployed = &no
		return map[string]any{"enabled": false}, src, "", nil
	case apierrors.IsForbidden(err):
		return nil, nil, fmt.Sprintf("forbidden: cannot get helmreleases.%s %s (grant get on it)", catalogrelease.GVR.Group, key), nil
	case err != nil:
		return nil, nil, "", failed("read the catalog release %s of %s: %v", key, c.name, err)
	}
	rel, err := catalogrelease.Values(ctx, hr.Object, c.releaseSource())
	if apierrors.IsForbidden(err) {
		return nil, nil, fmt.Sprintf("the release's %v", err), nil
	}
	if err != nil {
		return nil, nil, "", failed("the catalog release %s of %s: %v", key, c.name, err)
	}
	for _, r := range rel.Read {
		src.ValuesFrom = append(src.ValuesFrom, r.String())
	}
	src.Notes = rel.Notes
	return rel.Values, src, "", nil
}
