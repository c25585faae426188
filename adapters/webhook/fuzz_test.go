package webhook_test

import (
	"context"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
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
	hooks := []*admission.Webhook{v.Pools().WithRecoverPanic(false), v.Releases().WithRecoverPanic(false)}
	f.Fuzz(func(t *testing.T, obj, old []byte) {
		for _, hook := range hooks {
			for _, op := range []admissionv1.Operation{admissionv1.Create, admissionv1.Update} {
				req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{UID: "fuzz", Operation: op,
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
