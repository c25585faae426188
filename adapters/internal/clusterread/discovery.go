package clusterread

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/kinds"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// Discovery is what Discover reads of an API server: the groups it lists
// under /api and /apis, and a group version's resources. client-go's
// discovery.DiscoveryInterface has both.
type Discovery interface {
	ServerGroups() (*metav1.APIGroupList, error)
	ServerResourcesForGroupVersion(groupVersion string) (*metav1.APIResourceList, error)
}

// NotAPIServerError is an endpoint that does not answer discovery as a
// Kubernetes API server does: /api or /apis fail, or the core group v1 is
// not served (a wrong URL path, an ingress's default backend, a proxy that
// answers 404 to everything). Nothing it answers says anything of the
// cluster, so a caller stops rather than take every kind as unknown.
type NotAPIServerError struct {
	// What is the discovery request that failed ("/api", "/apis", "/api/v1").
	What string
	Err  error
}

func (e *NotAPIServerError) Error() string {
	return fmt.Sprintf("not a Kubernetes API server: discovery of %s failed: %v", e.What, e.Err)
}

func (e *NotAPIServerError) Unwrap() error { return e.Err }

// errNoCoreGroup is /api answering without the core group's v1.
var errNoCoreGroup = errors.New("it lists no core group v1")

// errNotFound is /api answering 404, which client-go's discovery takes
// for an empty list of groups.
var errNotFound = errors.New("it answers 404 (not found), where every Kubernetes API server answers: " +
	"the kubeconfig's server URL has a path no API server serves, or a proxy or an ingress's default backend answers for it")

// noCoreGroup says why /api listed no core group: a 404, when the
// discovery client can ask /api itself, else errNoCoreGroup.
func noCoreGroup(d Discovery) error {
	rc, ok := d.(interface{ RESTClient() rest.Interface })
	if !ok {
		return errNoCoreGroup
	}
	c := rc.RESTClient()
	if c == nil || reflect.ValueOf(c).IsNil() {
		return errNoCoreGroup
	}
	code := 0
	c.Get().AbsPath("/api").Do(context.Background()).StatusCode(&code)
	if code == http.StatusNotFound {
		return errNotFound
	}
	return errNoCoreGroup
}

// Discovered is what discovery says of a server: the groups it serves and
// the resources of the group versions asked about so far.
type Discovered struct {
	d      Discovery
	groups map[string]map[string]bool // group → versions
	lists  map[string]*metav1.APIResourceList
}

// Discover reads the server's groups and its core group's resources. An
// *EndpointError says discovery got no API server's answer (connection
// refused, DNS, TLS, 401, 403: Unreached); a *NotAPIServerError says the
// endpoint is not a Kubernetes API server;
// client-go's discovery takes a 404 on /api or /apis for an empty list,
// so a server without the core group v1 is one too.
func Discover(d Discovery) (*Discovered, error) {
	gl, err := d.ServerGroups()
	if err != nil {
		return nil, discoveryFailed("/api and /apis", err)
	}
	x := &Discovered{d: d, groups: map[string]map[string]bool{}, lists: map[string]*metav1.APIResourceList{}}
	for _, g := range gl.Groups {
		vs := map[string]bool{}
		for _, v := range g.Versions {
			vs[v.Version] = true
		}
		x.groups[g.Name] = vs
	}
	if !x.groups[""]["v1"] {
		return nil, &NotAPIServerError{What: "/api", Err: noCoreGroup(d)}
	}
	if _, err := x.resources(schema.GroupVersion{Version: "v1"}); err != nil {
		return nil, discoveryFailed("/api/v1", err)
	}
	return x, nil
}

func (x *Discovered) resources(gv schema.GroupVersion) (*metav1.APIResourceList, error) {
	key := gv.String()
	if l, ok := x.lists[key]; ok {
		return l, nil
	}
	l, err := x.d.ServerResourcesForGroupVersion(key)
	if err != nil {
		return nil, err
	}
	x.lists[key] = l
	return l, nil
}

// Serves reports whether the server serves gvr, and when it does not, what
// discovery found instead ("no group cdi.kubevirt.io"). An error is a
// discovery request that failed for another reason than the group
// version's absence (a 503 of an aggregated API): the caller retries.
func (x *Discovered) Serves(gvr schema.GroupVersionResource) (bool, string, error) {
	group := gvr.Group
	if group == "" {
		group = "core"
	}
	versions, ok := x.groups[gvr.Group]
	switch {
	case !ok:
		return false, fmt.Sprintf("the API server serves no group %s", group), nil
	case !versions[gvr.Version]:
		return false, fmt.Sprintf("the API server serves no version %s of %s", gvr.Version, group), nil
	}
	l, err := x.resources(gvr.GroupVersion())
	if apierrors.IsNotFound(err) {
		return false, fmt.Sprintf("the API server lists %s but does not serve it", gvr.GroupVersion()), nil
	}
	if err != nil {
		return false, "", fmt.Errorf("discover %s: %w", gvr.GroupVersion(), err)
	}
	for _, r := range l.APIResources {
		if r.Name == gvr.Resource {
			return true, "", nil
		}
	}
	return false, fmt.Sprintf("the API server serves no %s in %s", gvr.Resource, gvr.GroupVersion()), nil
}

// Served is which of the planner's kinds a server serves, as discovery
// says: the kinds Read may take for "not served", and why each is.
type Served struct {
	Kinds state.Kind
	why   map[state.Kind]string
}

// AllServed is a server assumed to serve every kind, for readers without
// discovery.
var AllServed = Served{Kinds: state.AllKinds}

// Kinds asks discovery about each of want.
func (x *Discovered) Kinds(want state.Kind) (Served, error) {
	s := Served{why: map[state.Kind]string{}}
	for _, k := range want.Each() {
		ok, why, err := x.Serves(kinds.Of(k).GVR())
		if err != nil {
			return Served{}, err
		}
		if ok {
			s.Kinds |= k
		} else {
			s.why[k] = why
		}
	}
	return s, nil
}
