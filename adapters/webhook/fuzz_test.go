package webhook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// Whatever object a request carries, each webhook answers it, typed, and
// never panics (panics are not recovered here, as the server would).
func FuzzAdmission(f *testing.F) {
	for _, seed := range []string{
		`{"apiVersion":"apps.cozystack.io/v1alpha1","kind":"KubernetesNodes","metadata":{"namespace":"tenant-demo","name":"demo-md0"},"spec":{"cluster":"demo","osImage":{"builtin":{}}}}`,
		`{"apiVersion":"apps.cozystack.io/v1alpha1","kind":"KubernetesNodes","metadata":{"name":"x"},"spec":{"cluster":1,"diskSize":[1],"osImage":{"builtin":{"version":{}},"factory":"x"},"talos":null}}`,
		`{"apiVersion":"helm.toolkit.fluxcd.io/v2","kind":"HelmRelease","metadata":{"namespace":"t","name":"kubernetes-nodes-demo-md0","labels":{"apps.cozystack.io/application.kind":"KubernetesNodes","apps.cozystack.io/application.group":"apps.cozystack.io"}},"spec":{"values":{"cluster":"demo","osImage":{"builtin":{}}}}}`,
		`{"apiVersion":"helm.toolkit.fluxcd.io/v2","kind":"HelmRelease","metadata":{"namespace":"cozy-system","name":"kubernetes-worker-image"},"spec":{"values":{"enabled":true,"images":[{"schematicID":"x","version":"v1.0.0","storage":"-1"},{}]}}}`,
		`{"apiVersion":"helm.toolkit.fluxcd.io/v2","kind":"HelmRelease","metadata":{"namespace":"cozy-system","name":"kubernetes-worker-image"},"spec":{"values":"images"}}`,
		`{"metadata":[],"spec":7}`, `[]`, `null`, `"x"`, ``,
	} {
		f.Add([]byte(seed), []byte(seed))
	}
	v := validator(cluster()...)
	hooks := map[metav1.GroupVersionKind]*admission.Webhook{poolKind: v.Pools().WithRecoverPanic(false), releaseKind: v.Releases().WithRecoverPanic(false)}
	f.Fuzz(func(t *testing.T, obj, old []byte) {
		for kind, hook := range hooks {
			for _, op := range []admissionv1.Operation{admissionv1.Create, admissionv1.Update} {
				req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{UID: "fuzz", Operation: op, Kind: kind,
					Object: runtime.RawExtension{Raw: obj}, OldObject: runtime.RawExtension{Raw: old}}}
				r := hook.Handle(context.Background(), req)
				if r.UID != "fuzz" {
					t.Fatalf("the answer is not the request's: %+v", r)
				}
				if !r.Allowed && (r.Result == nil || r.Result.Message == "" || r.Result.Code < 400) {
					t.Fatalf("a denial without a typed status: %+v", r.Result)
				}
			}
		}
	})
}

// Whatever body a request carries, each webhook answers it with an
// AdmissionReview, admits nothing it could not judge (a review without a
// uid, an operation the API has not, another kind), and allocates at most
// 64 MiB doing so: the bytes allocated bound what one request adds to the
// heap.
func FuzzReview(f *testing.F) {
	for _, p := range probes(f) {
		f.Add(p.body)
	}
	for _, seed := range []string{``, `{}`, `null`, `[]`, `{"request":null}`, `{"request":{}}`,
		`{"request":{"uid":"u","operation":"create","kind":{"group":"apps.cozystack.io","kind":"KubernetesNodes"}}}`,
		`{"request":{"uid":"u","operation":"CREATE","kind":{"group":"apps.cozystack.io","kind":"KubernetesNodes"},"object":{"spec":{"a":[[[[[[{}]]]]]]}}}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Add(hostileReview(f, 5000))
	v := validator(cluster()...)
	hooks := map[string]*admission.Webhook{PoolsPath: v.Pools().WithRecoverPanic(false), ReleasesPath: v.Releases().WithRecoverPanic(false)}
	f.Fuzz(func(t *testing.T, body []byte) {
		for path, hook := range hooks {
			var judged uint64
			rec := httptest.NewRecorder()
			allocated(&judged, func() {
				req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				hook.ServeHTTP(rec, req)
			})
			if judged > 64<<20 {
				t.Fatalf("%s: %d MiB allocated judging a body of %d bytes", path, judged>>20, len(body))
			}
			var ar admissionv1.AdmissionReview
			if err := json.Unmarshal(rec.Body.Bytes(), &ar); err != nil || ar.Response == nil {
				t.Fatalf("%s: not an AdmissionReview (%v): %s", path, err, rec.Body.Bytes())
			}
			r := ar.Response
			if !r.Allowed && (r.Result == nil || r.Result.Message == "" || r.Result.Code < 400) {
				t.Fatalf("%s: a denial without a typed status: %+v", path, r.Result)
			}
			if r.Allowed {
				var in admissionv1.AdmissionReview
				if err := json.Unmarshal(body, &in); err != nil || in.Request == nil || in.Request.UID == "" || r.UID != in.Request.UID {
					t.Fatalf("%s: admitted a review it could not read (%v): %.300s", path, err, body)
				}
				switch in.Request.Operation {
				case admissionv1.Create, admissionv1.Update, admissionv1.Delete:
				default:
					t.Fatalf("%s: admitted operation %q", path, in.Request.Operation)
				}
			}
			if size := rec.Body.Len(); size > 64<<10 {
				t.Fatalf("%s: an answer of %d bytes", path, size)
			}
		}
	})
}
