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

// TestUnverifiedEverywhere: diff, catalog consumers and catalog prune,
// and plan of a --state file that lacks a kind, end unverified (exit 4,
// "outcome":"unverified") as plan on a cluster does; prune then names
// nothing safe to delete. Just clear of it, every read granted, each
// exits 0.
func TestUnverifiedEverywhere(t *testing.T) {
	api := newFakeAPI(t, readExample(t, exampleState))
	api.flux = true
	deny := func(suffixes ...string) {
		api.answerWith(func(w http.ResponseWriter, r *http.Request) bool {
			for _, s := range suffixes {
				if strings.HasSuffix(r.URL.Path, s) {
					writeStatus(w, 403, "Forbidden", "forbidden")
					return true
				}
			}
			return false
		})
	}
	kc := kubeconfig(t, "tenant-demo", [2]string{"c", api.URL})
	golden := "talos-worker-ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515-v1.12.4"
	diff := []string{"diff", "-f", examplePools, "--catalog", exampleCatalog, "--kubeconfig", kc, "--set", "talos.version=v1.13.6", "--cozystack-values", exampleCozystackValues}
	cases := map[string]struct {
		args []string
		deny []string
		// text must be in the text output of the unverified run.
		text string
	}{
		"diff":      {diff, []string{"/storageclasses"}, "StorageClass: forbidden: cannot list storageclasses"},
		"consumers": {[]string{"catalog", "consumers", golden, "--kubeconfig", kc}, []string{"/helmreleases"}, "unverified, at least 3 consumers"},
		"prune":     {[]string{"catalog", "prune", "--catalog", exampleCatalog, "--kubeconfig", kc}, []string{"/kubernetesnodes"}, "unverified: none can be called unused"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			deny(tc.deny...)
			r := exe(t, "", append(tc.args, "-o", "json")...)
			if r.code != 4 || !strings.Contains(r.stdout, `"outcome": "unverified"`) {
				t.Errorf("exit %d, want 4 and \"outcome\": \"unverified\"\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			if name == "prune" && strings.Contains(r.stdout, `"safeToDelete": [
    "`) {
				t.Errorf("an unread pool kind leaves nothing safe to delete:\n%s", r.stdout)
			}
			text := exe(t, "", tc.args...)
			if text.code != 4 || !strings.Contains(text.stdout+text.stderr, tc.text) || strings.Contains(text.stdout, "safe to delete (") {
				t.Errorf("text: exit %d, want 4 and %q\n%s\n%s", text.code, tc.text, text.stdout, text.stderr)
			}
			if s := exe(t, "", append(tc.args, "--strict")...); s.code != 3 {
				t.Errorf("--strict refuses: exit %d\n%s", s.code, s.stderr)
			}
			api.answerWith(nil)
			if r := exe(t, "", append(tc.args, "-o", "json")...); r.code != 0 || strings.Contains(r.stdout, "unverified") {
				t.Errorf("every read granted: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
		})
	}

	t.Run("plan --state", func(t *testing.T) {
		classes := write(t, "classes.yaml", "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: replicated}\nprovisioner: linstor.csi.linbit.com\n")
		r := exe(t, "", "plan", "-f", examplePools, "--catalog", exampleCatalog, "--state", classes, "-o", "json")
		if got := decodePlan(t, r.stdout); r.code != 4 || len(got) != 2 || got[0].Outcome != "unverified" {
			t.Errorf("a dump without the kinds a clone needs: exit %d %+v\n%s", r.code, got, r.stderr)
		}
		text := exe(t, "", "plan", "-f", examplePools, "--catalog", exampleCatalog, "--state", classes)
		if text.code != 4 || !strings.Contains(text.stderr, "add them to the dump") || !strings.Contains(text.stderr, "DataVolume: not in "+classes) {
			t.Errorf("text: exit %d\n%s\n%s", text.code, text.stdout, text.stderr)
		}
		if r := exe(t, "", "plan", "-f", examplePools, "--catalog", exampleCatalog, "--state", exampleState, "-o", "json"); r.code != 0 || strings.Contains(r.stdout, "unverified") {
			t.Errorf("a dump of every kind the plans need: exit %d\n%s", r.code, r.stderr)
		}
	})
}
