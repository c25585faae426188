package clusterread

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/url"
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/kinds"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// fakeDiscovery serves the group versions of resources; err, when set, is
// every answer.
type fakeDiscovery struct {
	resources map[string][]string // group version → resources
	err       error
	gvErr     map[string]error
}

func (f fakeDiscovery) ServerGroups() (*metav1.APIGroupList, error) {
	if f.err != nil {
		return nil, f.err
	}
	l := &metav1.APIGroupList{}
	for gv := range f.resources {
		g, _ := schema.ParseGroupVersion(gv)
		l.Groups = append(l.Groups, metav1.APIGroup{Name: g.Group, Versions: []metav1.GroupVersionForDiscovery{{GroupVersion: gv, Version: g.Version}}})
	}
	return l, nil
}

func (f fakeDiscovery) ServerResourcesForGroupVersion(gv string) (*metav1.APIResourceList, error) {
	if err := f.gvErr[gv]; err != nil {
		return nil, err
	}
	rs, ok := f.resources[gv]
	if !ok {
		return nil, apierrors.NewNotFound(schema.GroupResource{}, gv)
	}
	l := &metav1.APIResourceList{GroupVersion: gv}
	for _, r := range rs {
		l.APIResources = append(l.APIResources, metav1.APIResource{Name: r})
	}
	return l, nil
}

// everyKind serves every kind the planner reads.
func everyKind() fakeDiscovery {
	f := fakeDiscovery{resources: map[string][]string{}}
	for _, i := range kinds.All {
		gv := i.GVK.GroupVersion().String()
		f.resources[gv] = append(f.resources[gv], i.Resource)
	}
	return f
}

func withoutGroup(f fakeDiscovery, gv string) fakeDiscovery {
	out := fakeDiscovery{resources: map[string][]string{}}
	for k, v := range f.resources {
		if k != gv {
			out.resources[k] = v
		}
	}
	return out
}

func TestDiscoverNotAnAPIServer(t *testing.T) {
	cases := map[string]struct {
		reason string
		d      fakeDiscovery
		what   string
	}{
		"Everything404": {
			reason: "client-go takes a 404 on /api and /apis for no groups: no core group v1 is no API server",
			d:      fakeDiscovery{},
			what:   "/api",
		},
		"DiscoveryFails": {
			reason: "a server whose discovery answers HTML is not one to plan against",
			d:      fakeDiscovery{err: errors.New("invalid character '<' looking for beginning of value")},
			what:   "/api and /apis",
		},
		"CoreGroup404": {
			reason: "/api lists v1 but /api/v1 answers 404",
			d:      fakeDiscovery{resources: map[string][]string{"v1": nil}, gvErr: map[string]error{"v1": apierrors.NewNotFound(schema.GroupResource{}, "v1")}},
			what:   "/api/v1",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Discover(tc.d)
			var nas *NotAPIServerError
			require.True(t, errors.As(err, &nas), "%s: want *NotAPIServerError, got %v", tc.reason, err)
			assert.Equal(t, tc.what, nas.What, tc.reason)
		})
	}
}

func TestDiscoverKinds(t *testing.T) {
	d, err := Discover(withoutGroup(everyKind(), "cdi.kubevirt.io/v1beta1"))
	require.NoError(t, err)
	served, err := d.Kinds(state.AllKinds)
	require.NoError(t, err)
	cdi := state.DataVolume | state.StorageProfile | state.CDI | state.CDIConfig | state.DataSource
	assert.Equal(t, (state.AllKinds &^ cdi).String(), served.Kinds.String(), "CDI's kinds are not served without its group")
	assert.Equal(t, "the API server serves no group cdi.kubevirt.io", served.why[state.DataVolume])

	f := everyKind()
	f.resources["storage.k8s.io/v1"] = []string{"storageclasses"}
	d, err = Discover(f)
	require.NoError(t, err)
	served, err = d.Kinds(state.StorageClass | state.CSIDriver)
	require.NoError(t, err)
	assert.Equal(t, state.StorageClass.String(), served.Kinds.String())
	assert.Equal(t, "the API server serves no csidrivers in storage.k8s.io/v1", served.why[state.CSIDriver])

	f = everyKind()
	f.gvErr = map[string]error{"cdi.kubevirt.io/v1beta1": apierrors.NewServiceUnavailable("down")}
	d, err = Discover(f)
	require.NoError(t, err)
	_, err = d.Kinds(state.DataVolume)
	assert.True(t, apierrors.IsServiceUnavailable(err), "a group whose discovery fails is no answer: the read is retried, %v", err)
}

// TestReadWithDiscovery: with discovery, a kind is not served only when
// discovery says so; a 404 on a kind it serves is a failed read, and each
// kind left unknown says why.
func TestReadWithDiscovery(t *testing.T) {
	d, err := Discover(withoutGroup(everyKind(), "cdi.kubevirt.io/v1beta1"))
	require.NoError(t, err)
	served, err := d.Kinds(state.AllKinds)
	require.NoError(t, err)

	st, unread, err := ReadWith(context.Background(), scripted{
		Call{List, state.StorageClass, "", ""}:          apierrors.NewForbidden(classes, "", errors.New("rbac")),
		Call{Get, state.DataVolume, "cozy-public", "g"}: errors.New("must not be called: not served"),
		Call{List, state.DataVolume, "t", ""}:           errors.New("must not be called: not served"),
	}, poolRequest, Options{Served: &served})
	require.NoError(t, err)
	assert.False(t, st.Observed.Has(state.StorageClass|state.DataVolume))
	byKind := map[state.Kind]string{}
	for _, u := range unread {
		byKind[u.Kind] = u.String()
	}
	assert.Equal(t, map[state.Kind]string{
		state.DataVolume:     "not served: the API server serves no group cdi.kubevirt.io",
		state.StorageProfile: "not served: the API server serves no group cdi.kubevirt.io",
		state.CDI:            "not served: the API server serves no group cdi.kubevirt.io",
		state.CDIConfig:      "not served: the API server serves no group cdi.kubevirt.io",
		state.StorageClass:   "forbidden: cannot list storageclasses.storage.k8s.io (cluster-wide)",
	}, byKind, "one cause per kind left unknown")

	all, err := Discover(everyKind())
	require.NoError(t, err)
	every, err := all.Kinds(state.AllKinds)
	require.NoError(t, err)
	for name, e := range map[string]error{"status 404": apierrors.NewNotFound(schema.GroupResource{Resource: "persistentvolumeclaims"}, ""), "unrouted 404": unrouted} {
		_, _, err = ReadWith(context.Background(), scripted{Call{List, state.PersistentVolumeClaim, "t", ""}: e}, poolRequest, Options{Served: &every})
		var re *ReadError
		assert.True(t, errors.As(err, &re), "%s on a served kind's list is a failed read, never not served: %v", name, err)
	}
	_, _, err = ReadWith(context.Background(), scripted{Call{Get, state.DataVolume, "cozy-public", "g"}: apierrors.NewNotFound(dvs, "g")}, poolRequest, Options{Served: &every})
	assert.NoError(t, err, "a get's NotFound from the object's storage proves it absent")
	_, _, err = ReadWith(context.Background(), scripted{Call{Get, state.DataVolume, "cozy-public", "g"}: unrouted}, poolRequest, Options{Served: &every})
	assert.Error(t, err, "a get answered by a router's 404 on a served kind is a failed read")
}

func TestUnreadNamesTheCall(t *testing.T) {
	assert.Equal(t, "forbidden: cannot get persistentvolumeclaims in namespace cozy-public",
		Unread{Kind: state.PersistentVolumeClaim, Cause: Forbidden, Verb: Get, Namespace: "cozy-public", Name: "g"}.String())
	assert.Equal(t, "not served: the API server does not serve datavolumes.cdi.kubevirt.io",
		Unread{Kind: state.DataVolume, Cause: NotServed}.String())
	assert.Equal(t, "no client: cdis.cdi.kubevirt.io", Unread{Kind: state.CDI, Cause: NoClient}.String())
}

// TestDiscoverUnreached: discovery that got no API server's answer says
// why, as no *NotAPIServerError: the endpoint may be one.
func TestDiscoverUnreached(t *testing.T) {
	cases := map[string]struct {
		err  error
		want string
	}{
		"Forbidden": {
			err:  apierrors.NewForbidden(schema.GroupResource{}, "", errors.New("denied")),
			want: "forbidden (403): the API server accepts the credentials, but RBAC denies the request: the credentials may not read discovery",
		},
		"Unauthorized": {err: apierrors.NewUnauthorized("Unauthorized"), want: "unauthorized (401): "},
		"Refused": {
			err:  &url.Error{Op: "Get", URL: "https://127.0.0.1:1/api", Err: &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}},
			want: "connection refused: ",
		},
		"DNS": {
			err:  &url.Error{Op: "Get", URL: "https://nowhere.invalid/api", Err: &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Name: "nowhere.invalid", Err: "no such host"}}},
			want: `DNS: the host name "nowhere.invalid" does not resolve`,
		},
		"TLS": {
			err:  &url.Error{Op: "Get", URL: "https://a/api", Err: &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}},
			want: "TLS: the server's certificate is not signed by the kubeconfig's certificate authority",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Discover(fakeDiscovery{err: tc.err})
			var ee *EndpointError
			require.True(t, errors.As(err, &ee), "want *EndpointError, got %T %v", err, err)
			var nas *NotAPIServerError
			assert.False(t, errors.As(err, &nas))
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	assert.Empty(t, Unreached(errors.New("something else")), "an error of no known cause keeps the caller's words")
}
