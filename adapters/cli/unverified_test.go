package cli_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestPartialRBACIsUnverified: a plan that could not read a kind it
// needed is not "planned": its outcome is unverified (exit 4), and one
// run names every kind and every namespace it was refused in. --strict
// still refuses (3); a refusal wins over it.
func TestPartialRBACIsUnverified(t *testing.T) {
	api := newFakeAPI(t, readExample(t, exampleState))
	// Storage classes and PVCs are denied: the tenants' lists and the
	// golden's get.
	api.answerWith(func(w http.ResponseWriter, r *http.Request) bool {
		p := r.URL.Path
		if strings.HasSuffix(p, "/storageclasses") || strings.Contains(p, "/persistentvolumeclaims") {
			writeStatus(w, 403, "Forbidden", "forbidden")
			return true
		}
		return false
	})
	kc := kubeconfig(t, "tenant-a", [2]string{"c", api.URL})
	docs := strings.ReplaceAll(poolDoc("demo-md0", builtinPool), "namespace: tenant-demo", "namespace: tenant-a") + "---\n" +
		strings.ReplaceAll(poolDoc("demo-md1", builtinPool), "namespace: tenant-demo", "namespace: tenant-b")
	pools := write(t, "pools.yaml", docs)

	r := exe(t, "", "plan", "-f", pools, "--catalog", exampleCatalog, "--kubeconfig", kc, "-o", "json")
	got := decodePlan(t, r.stdout)
	if r.code != 4 || len(got) != 2 || got[0].Outcome != "unverified" || got[1].Outcome != "unverified" {
		t.Errorf("exit %d, want 4 and two unverified pools: %+v\n%s", r.code, got, r.stderr)
	}
	text := exe(t, "", "plan", "-f", pools, "--catalog", exampleCatalog, "--kubeconfig", kc)
	for _, want := range []string{
		"tenant-a/demo-md0: unverified (could not read ",
		"2 pools: 0 planned, 2 unverified, 0 refused",
		"StorageClass: forbidden: cannot list storageclasses.storage.k8s.io (cluster-wide)",
		"PersistentVolumeClaim: forbidden: cannot list persistentvolumeclaims in namespace tenant-a; forbidden: cannot list persistentvolumeclaims in namespace tenant-b; forbidden: cannot get persistentvolumeclaims in namespace cozy-public",
	} {
		if !strings.Contains(text.stdout+text.stderr, want) {
			t.Errorf("the text lacks %q\nstdout:\n%s\nstderr:\n%s", want, text.stdout, text.stderr)
		}
	}
	if text.code != 4 {
		t.Errorf("text: exit %d", text.code)
	}
	wide := exe(t, "", "plan", "-f", pools, "--catalog", exampleCatalog, "--kubeconfig", kc, "-o", "wide")
	if wide.code != 4 || strings.Count(wide.stdout, " unverified ") != 2 {
		t.Errorf("-o wide: exit %d\n%s", wide.code, wide.stdout)
	}
	if s := exe(t, "", "plan", "-f", pools, "--catalog", exampleCatalog, "--kubeconfig", kc, "--strict"); s.code != 3 {
		t.Errorf("--strict refuses: exit %d", s.code)
	}
	refused := write(t, "refused.yaml", docs+"---\n"+strings.ReplaceAll(poolDoc("demo-md2", "diskSize: lots\n"+builtinPool), "namespace: tenant-demo", "namespace: tenant-a"))
	if r := exe(t, "", "plan", "-f", refused, "--catalog", exampleCatalog, "--kubeconfig", kc); r.code != 3 {
		t.Errorf("a refusal wins over unverified: exit %d\n%s", r.code, r.stdout)
	}
	// Just clear of it: the same pools, every read granted.
	api.answerWith(nil)
	if r := exe(t, "", "plan", "-f", pools, "--catalog", exampleCatalog, "--kubeconfig", kc, "-o", "json"); r.code != 0 || strings.Contains(r.stdout, "unverified") {
		t.Errorf("every read granted: exit %d\n%s", r.code, r.stderr)
	}
}

// TestNoAdviceTheUnreadStateContradicts: with the goldens unread and the
// catalog read back from them, no warning says a golden is "not in the
// catalog": the plan could not see the catalog whole.
func TestNoAdviceTheUnreadStateContradicts(t *testing.T) {
	api := newFakeAPI(t, readExample(t, exampleState))
	api.answerWith(func(w http.ResponseWriter, r *http.Request) bool {
		if strings.Contains(r.URL.Path, "/namespaces/cozy-public/") || strings.HasSuffix(r.URL.Path, "/datavolumes") || strings.HasSuffix(r.URL.Path, "/persistentvolumeclaims") {
			writeStatus(w, 403, "Forbidden", "forbidden")
			return true
		}
		return false
	})
	kc := kubeconfig(t, "tenant-demo", [2]string{"c", api.URL})
	pools := write(t, "pools.yaml", poolDoc("demo-md0", builtinPool))
	r := exe(t, "", "plan", "-f", pools, "--kubeconfig", kc)
	if r.code != 4 || strings.Contains(r.stdout+r.stderr, "not in the catalog") {
		t.Errorf("exit %d, want 4 and no \"not in the catalog\"\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}
