package webhook_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/cozystack/kubernetes-worker-image/adapters/webhook"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/naming"
)

// PendingVersion is a flavor of the catalog whose golden is still
// importing.
const PendingVersion = "v1.13.7"

var pendingGolden = mustGolden(PendingVersion)

func mustGolden(version string) string {
	n, err := naming.GoldenName(fixtures.DefaultSchematicID, version, nil, nil)
	if err != nil {
		panic(err)
	}
	return n
}

// catalogValues is the catalog release's values: enabled, with the default
// flavor (its golden imported) and PendingVersion (importing).
func catalogValues() map[string]any {
	return map[string]any{
		"enabled": true,
		"images": []any{
			map[string]any{"schematicID": fixtures.DefaultSchematicID, "version": fixtures.DefaultVersion},
			map[string]any{"schematicID": fixtures.DefaultSchematicID, "version": PendingVersion},
		},
	}
}

// cluster is fixtures.Cluster with PendingVersion's golden importing and
// the catalog release in cozy-system.
func cluster() []client.Object {
	return append(fixtures.Cluster(),
		fixtures.GoldenDataVolume(pendingGolden, PendingVersion, fixtures.ReplicatedClass, "6Gi", cdiv1.ImportInProgress),
		catalogRelease(catalogValues()))
}

// scheme knows the kinds the webhook reads, and HelmReleases as
// unstructured objects.
func scheme() *runtime.Scheme {
	s := fixtures.Scheme()
	s.AddKnownTypeWithName(webhook.HelmReleaseGVK, &unstructured.Unstructured{})
	s.AddKnownTypeWithName(webhook.HelmReleaseGVK.GroupVersion().WithKind("HelmReleaseList"), &unstructured.UnstructuredList{})
	return s
}

// reader is a fake client holding objs, standing for the manager's cache.
func reader(funcs interceptor.Funcs, objs ...client.Object) client.WithWatch {
	cp := make([]client.Object, len(objs))
	for i, o := range objs {
		cp[i] = o.DeepCopyObject().(client.Object)
	}
	return fake.NewClientBuilder().WithScheme(scheme()).WithObjects(cp...).WithInterceptorFuncs(funcs).Build()
}

// validator plans against objs and the catalog release, read from memory
// as from a synced informer cache.
func validator(objs ...client.Object) *webhook.Validator {
	return webhook.New(memory(objs...), webhook.Options{CatalogRelease: webhook.DefaultCatalogRelease()})
}

// memCache answers as a synced informer cache does: from memory, a deep
// copy of each object, a list filtered by namespace. The fake client
// answers the same, through a JSON round trip per object, which costs ten
// times what the cache does; the load test and the benchmark would
// measure the fake.
type memCache struct {
	scheme *runtime.Scheme
	// objs by kind, then namespace/name, in insertion order per kind.
	objs map[schema.GroupVersionKind][]client.Object
}

var _ client.Reader = (*memCache)(nil)

func memory(objs ...client.Object) *memCache {
	m := &memCache{scheme: scheme(), objs: map[schema.GroupVersionKind][]client.Object{}}
	for _, o := range objs {
		gvk, err := apiutil.GVKForObject(o, m.scheme)
		if err != nil {
			panic(err)
		}
		o = o.DeepCopyObject().(client.Object)
		o.GetObjectKind().SetGroupVersionKind(gvk)
		m.objs[gvk] = append(m.objs[gvk], o)
	}
	return m
}

func (m *memCache) Get(_ context.Context, key client.ObjectKey, out client.Object, _ ...client.GetOption) error {
	gvk, err := apiutil.GVKForObject(out, m.scheme)
	if err != nil {
		return err
	}
	for _, o := range m.objs[gvk] {
		if o.GetNamespace() == key.Namespace && o.GetName() == key.Name {
			reflect.ValueOf(out).Elem().Set(reflect.ValueOf(o.DeepCopyObject()).Elem())
			return nil
		}
	}
	return apierrors.NewNotFound(schema.GroupResource{Group: gvk.Group, Resource: strings.ToLower(gvk.Kind) + "s"}, key.Name)
}

func (m *memCache) List(_ context.Context, list client.ObjectList, opts ...client.ListOption) error {
	gvk, err := apiutil.GVKForObject(list, m.scheme)
	if err != nil {
		return err
	}
	gvk.Kind = strings.TrimSuffix(gvk.Kind, "List")
	var o client.ListOptions
	o.ApplyOptions(opts)
	var items []runtime.Object
	for _, obj := range m.objs[gvk] {
		if o.Namespace == "" || obj.GetNamespace() == o.Namespace {
			items = append(items, obj.DeepCopyObject())
		}
	}
	return meta.SetList(list, items)
}

// release is a HelmRelease with values.
func release(namespace, name string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetGroupVersionKind(webhook.HelmReleaseGVK)
	u.SetNamespace(namespace)
	u.SetName(name)
	return u
}

func catalogRelease(values map[string]any) *unstructured.Unstructured {
	u := release(webhook.DefaultCatalogRelease().Namespace, webhook.DefaultCatalogRelease().Name, map[string]any{
		"chartRef":   map[string]any{"kind": "ExternalArtifact", "name": "cozystack-kubernetes-worker-image-default-kubernetes-worker-image", "namespace": "cozy-system"},
		"values":     values,
		"valuesFrom": []any{map[string]any{"kind": "Secret", "name": "cozystack-values"}},
	})
	u.SetUID("catalog-uid")
	u.SetGeneration(1)
	return u
}

// poolRelease is the HelmRelease cozystack-api makes for a KubernetesNodes.
func poolRelease(namespace, name string, spec map[string]any) *unstructured.Unstructured {
	u := release(namespace, webhook.PoolReleasePrefix+name, map[string]any{
		"chartRef":   map[string]any{"kind": webhook.PoolChart.RefKind, "name": webhook.PoolChart.RefName, "namespace": webhook.PoolChart.RefNamespace},
		"values":     spec,
		"valuesFrom": []any{map[string]any{"kind": "Secret", "name": "cozystack-values"}},
	})
	u.SetLabels(map[string]string{
		webhook.ApplicationKindLabel:  "KubernetesNodes",
		webhook.ApplicationGroupLabel: "apps.cozystack.io",
		webhook.ApplicationNameLabel:  name,
	})
	return u
}

// pool is a KubernetesNodes object.
func pool(namespace, name string, spec map[string]any) map[string]any {
	return map[string]any{
		"apiVersion": "apps.cozystack.io/v1alpha1",
		"kind":       "KubernetesNodes",
		"metadata":   map[string]any{"namespace": namespace, "name": name},
		"spec":       spec,
	}
}

// builtin is the spec of a pool of cluster demo that clones the default
// flavor, with more values.
func builtin(more map[string]any) map[string]any {
	spec := map[string]any{"cluster": fixtures.ClusterName, "storageClass": fixtures.ReplicatedClass, "osImage": map[string]any{"builtin": map[string]any{}}}
	for k, v := range more {
		spec[k] = v
	}
	return spec
}

// request is an admission request of op on obj (and old, for an update);
// a []byte is sent as it is.
func request(t testing.TB, op admissionv1.Operation, kind metav1.GroupVersionKind, obj, old any) admission.Request {
	t.Helper()
	raw := func(v any) []byte {
		switch v := v.(type) {
		case nil:
			return nil
		case []byte:
			return v
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID: types.UID("uid"), Kind: kind, Operation: op,
		Object: runtime.RawExtension{Raw: raw(obj)}, OldObject: runtime.RawExtension{Raw: raw(old)},
	}}
	if m, ok := obj.(map[string]any); ok {
		if meta, ok := m["metadata"].(map[string]any); ok {
			req.Namespace, _ = meta["namespace"].(string)
			req.Name, _ = meta["name"].(string)
		}
	}
	if u, ok := obj.(*unstructured.Unstructured); ok {
		req.Namespace, req.Name = u.GetNamespace(), u.GetName()
	}
	return req
}

var (
	poolKind    = metav1.GroupVersionKind{Group: "apps.cozystack.io", Version: "v1alpha1", Kind: "KubernetesNodes"}
	releaseKind = metav1.GroupVersionKind{Group: "helm.toolkit.fluxcd.io", Version: "v2", Kind: "HelmRelease"}
)

// answer runs a request through the webhook, as the server does.
func answer(v *webhook.Validator, kind metav1.GroupVersionKind, req admission.Request) admission.Response {
	hook := v.Pools()
	if kind == releaseKind {
		hook = v.Releases()
	}
	return hook.Handle(context.Background(), req)
}

// cause is what a test compares of a status cause.
type cause struct{ Type, Field string }

func causes(r admission.Response) []cause {
	if r.Result == nil || r.Result.Details == nil {
		return nil
	}
	var out []cause
	for _, c := range r.Result.Details.Causes {
		out = append(out, cause{string(c.Type), c.Field})
	}
	return out
}
