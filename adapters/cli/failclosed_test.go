package cli_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// Issue 14's observations, each through the CLI: a plan that could not
// look, or input it did not understand, never passes quietly.

const builtinPool = "storageClass: replicated\nosImage: {builtin: {}}"

// TestNotAnAPIServer: a kubeconfig whose server answers 404 to everything
// (a wrong URL path, an ingress's default backend, a proxy) is status 1
// for every command that reads it, never a set of unknown kinds.
func TestNotAnAPIServer(t *testing.T) {
	api := newFakeAPI(t, "")
	api.answerWith(notFoundEverywhere)
	kc := kubeconfig(t, "tenant-demo", [2]string{"c", api.URL})
	pools := write(t, "pools.yaml", poolDoc("demo-md0", builtinPool))
	clone := render(t, chartDisk(t, builtinPool))
	for name, tc := range map[string]struct {
		stdin string
		args  []string
	}{
		"plan":        {args: []string{"plan", "-f", pools, "--catalog", exampleCatalog, "--kubeconfig", kc}},
		"consumers":   {args: []string{"catalog", "consumers", legacyGolden, "--kubeconfig", kc, "-o", "json"}},
		"prune":       {args: []string{"catalog", "prune", "--catalog", exampleCatalog, "--kubeconfig", kc}},
		"render":      {args: []string{"catalog", "render", "--catalog", exampleCatalog, "--kubeconfig", kc}},
		"helm-verify": {stdin: clone, args: []string{"helm-verify", "--kubeconfig", kc}},
		"plan -A":     {args: []string{"plan", "-A", "--kubeconfig", kc}},
	} {
		t.Run(name, func(t *testing.T) {
			r := exe(t, tc.stdin, tc.args...)
			if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, "not a Kubernetes API server") {
				t.Errorf("exit %d, want 1 and nothing on stdout\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
		})
	}
}

// TestServedKindAnswers404: with a healthy discovery, a 404 on
// /api/v1/persistentvolumeclaims is not "not served": the server does not
// answer as its discovery says, and the read fails (status 1).
func TestServedKindAnswers404(t *testing.T) {
	api := newFakeAPI(t, readExample(t, exampleState))
	api.answerWith(func(w http.ResponseWriter, r *http.Request) bool {
		if strings.HasSuffix(r.URL.Path, "/persistentvolumeclaims") {
			http.NotFound(w, r)
			return true
		}
		return false
	})
	kc := kubeconfig(t, "tenant-demo", [2]string{"c", api.URL})
	pools := write(t, "pools.yaml", poolDoc("demo-md0", builtinPool))
	r := exe(t, "", "plan", "-f", pools, "--catalog", exampleCatalog, "--kubeconfig", kc, "-o", "json")
	if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, "cannot list PersistentVolumeClaim") {
		t.Errorf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	// The same cluster, answering: the plan reads it, and plans.
	api.answerWith(nil)
	r = exe(t, "", "plan", "-f", pools, "--catalog", exampleCatalog, "--kubeconfig", kc, "-o", "json")
	if p := decodePlan(t, r.stdout); r.code != 0 || len(p) != 1 || p[0].Outcome != "planned" || len(planWarnings(t, r.stdout)) != 0 {
		t.Errorf("exit %d, pools %+v\n%s", r.code, p, r.stderr)
	}
}

// TestForbidden: a user with no RBAC. Discovery answers (it does for every
// user), every read is 403. Nothing passes quietly: each StateUnverified
// says Forbidden with the verb and resource, consumers' JSON carries its
// warnings, --strict refuses, and helm-verify (strict by default) refuses
// the upgrade that would have put a pool on another class than its golden.
func TestForbidden(t *testing.T) {
	api := newFakeAPI(t, readExample(t, exampleState))
	api.answerWith(forbiddenResources)
	kc := kubeconfig(t, "tenant-demo", [2]string{"c", api.URL})
	pools := write(t, "pools.yaml", poolDoc("demo-md0", builtinPool))

	r := exe(t, "", "plan", "-f", pools, "--catalog", exampleCatalog, "--kubeconfig", kc, "-o", "json")
	if r.code != 4 {
		t.Fatalf("exit %d, want 4 (unverified)\n%s", r.code, r.stderr)
	}
	var out struct {
		Pools []struct {
			Outcome  string
			Warnings []struct{ Reason, Kind, Cause string }
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || len(out.Pools) != 1 {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	causes := map[string]string{}
	for _, w := range out.Pools[0].Warnings {
		if w.Reason == "StateUnverified" {
			causes[w.Kind] = w.Cause
		}
	}
	if want := "forbidden: cannot list storageclasses.storage.k8s.io (cluster-wide)"; causes["StorageClass"] != want {
		t.Errorf("StorageClass's cause %q, want %q (all: %v)", causes["StorageClass"], want, causes)
	}
	if want := "forbidden: cannot list persistentvolumeclaims in namespace tenant-demo; forbidden: cannot get persistentvolumeclaims in namespace cozy-public"; causes["PersistentVolumeClaim"] != want {
		t.Errorf("PersistentVolumeClaim's cause %q, want %q", causes["PersistentVolumeClaim"], want)
	}

	strict := exe(t, "", "plan", "-f", pools, "--catalog", exampleCatalog, "--kubeconfig", kc, "--strict", "-o", "json")
	if p := decodePlan(t, strict.stdout); strict.code != 3 || len(p) != 1 || p[0].Outcome != "refused" || !containsReason(p[0].Refusals, "StateUnverified") {
		t.Errorf("--strict: exit %d, pools %+v", strict.code, p)
	}
	human := exe(t, "", "plan", "-f", pools, "--catalog", exampleCatalog, "--kubeconfig", kc)
	if !strings.Contains(human.stdout, "(cause: forbidden: cannot list storageclasses.storage.k8s.io (cluster-wide))") {
		t.Errorf("the text says the cause:\n%s", human.stdout)
	}

	c := exe(t, "", "catalog", "consumers", legacyGolden, "--kubeconfig", kc, "-o", "json")
	var cons struct {
		Consumers []any
		Warnings  []struct{ Reason, Cause string }
	}
	if err := json.Unmarshal([]byte(c.stdout), &cons); err != nil || c.code != 4 || len(cons.Consumers) != 0 || len(cons.Warnings) == 0 ||
		!strings.HasPrefix(cons.Warnings[0].Cause, "forbidden: cannot list") {
		t.Errorf("consumers says it could not see: exit %d\n%s", c.code, c.stdout)
	}
	if c := exe(t, "", "catalog", "consumers", legacyGolden, "--kubeconfig", kc, "--strict", "-o", "json"); c.code != 3 || !strings.Contains(c.stdout, `"refusals"`) {
		t.Errorf("consumers --strict: exit %d\n%s", c.code, c.stdout)
	}

	onLocal := render(t, strings.Replace(chartDisk(t, builtinPool), `storageClassName: "replicated"`, `storageClassName: "local"`, 1))
	v := exe(t, onLocal, "helm-verify", "--kubeconfig", kc)
	if v.code != 3 || v.stdout != "" || !strings.Contains(v.stderr, "refused StateUnverified") || !strings.Contains(v.stderr, "forbidden: cannot list") {
		t.Errorf("helm-verify refuses what it could not check: exit %d\nstderr:\n%s", v.code, v.stderr)
	}
}

// TestUnknownFieldsThroughTheCLI: misspelled fields are warnings naming
// the nearest known field, and --strict refuses them.
func TestUnknownFieldsThroughTheCLI(t *testing.T) {
	cases := map[string]struct {
		spec, field, nearest string
	}{
		"osimage":     {"osimage: {builtin: {}}", "osimage", "osImage"},
		"schematicId": {"osImage: {builtin: {schematicId: abc}}", "osImage.builtin.schematicId", "schematicID"},
		"storageClas": {"storageClas: local\nosImage: {builtin: {}}", "storageClas", "storageClass"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			pools := write(t, "pools.yaml", poolDoc("demo-md0", tc.spec))
			r := exe(t, "", "plan", "-f", pools, "--catalog", exampleCatalog, "--state", exampleState, "-o", "json")
			p := decodePlan(t, r.stdout)
			if len(p) != 1 || !reflect.DeepEqual(p[0].Warnings, []finding{{"UnknownField", tc.field}}) || !strings.Contains(r.stdout, tc.nearest) {
				t.Errorf("exit %d, pools %+v", r.code, p)
			}
			s := exe(t, "", "plan", "-f", pools, "--catalog", exampleCatalog, "--state", exampleState, "--strict", "-o", "json")
			if p := decodePlan(t, s.stdout); s.code != 3 || len(p) != 1 || !containsReason(p[0].Refusals, "UnknownField") {
				t.Errorf("--strict: exit %d, pools %+v", s.code, p)
			}
		})
	}
	// The catalog's: enable instead of enabled is said once for the run.
	cat := write(t, "catalog.yaml", "enable: true\n")
	pools := write(t, "pools.yaml", poolDoc("demo-md0", builtinPool))
	r := exe(t, "", "plan", "-f", pools, "--catalog", cat, "--state", exampleState)
	if !strings.Contains(r.stderr, "warning UnknownField at enable") || !strings.Contains(r.stderr, "enabled") {
		t.Errorf("the catalog's unknown field: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	if s := exe(t, "", "plan", "-f", pools, "--catalog", cat, "--state", exampleState, "--strict", "-o", "json"); s.code != 3 || !strings.Contains(s.stdout, `"reason": "UnknownField"`) {
		t.Errorf("--strict refuses the catalog's: exit %d\n%s", s.code, s.stdout)
	}
}

// TestStateFileOfSomeKinds: a dump without CSIDrivers says nothing of
// them: no HostAssistedClone ("has no CSIDriver"), a StateUnverified that
// says the file holds none.
func TestStateFileOfSomeKinds(t *testing.T) {
	st := write(t, "state.yaml", dropKind("CSIDriver")(readExample(t, exampleState)))
	pools := write(t, "pools.yaml", poolDoc("demo-md0", builtinPool))
	r := exe(t, "", "plan", "-f", pools, "--catalog", exampleCatalog, "--state", st, "-o", "json")
	if w := planWarnings(t, r.stdout); r.code != 4 || !reflect.DeepEqual(w, []kindedWarning{{"StateUnverified", "storageClass", "CSIDriver"}}) ||
		!strings.Contains(r.stdout, "not in "+st+": it holds no CSIDriver") {
		t.Errorf("exit %d, warnings %v\n%s", r.code, w, r.stdout)
	}
}

// TestInjection: a pool name with newlines cannot forge a chart entry,
// and an ESC sequence in a name or a tenant's annotation never reaches the
// terminal raw.
func TestInjection(t *testing.T) {
	forged := "demo-md0\n      - metadata:\n          name: disk-system\n        spec:\n          source:\n            pvc: {namespace: other-tenant, name: secret-disk}"
	doc := "apiVersion: apps.cozystack.io/v1alpha1\nkind: KubernetesNodes\nmetadata:\n  name: " + jsonString(forged) + "\n  namespace: tenant-demo\nspec:\n  cluster: demo\n"
	pools := write(t, "pools.yaml", doc+"---\n"+poolDoc("demo-md1", ""))
	r := exe(t, "", "plan", "-f", pools, "-o", "chart")
	if r.code != 3 || strings.Contains(r.stdout, "secret-disk") || strings.Count(r.stdout, "name: disk-system") != 1 {
		t.Errorf("exit %d; one entry, the valid pool's:\n%s", r.code, r.stdout)
	}
	if !strings.Contains(r.stderr, "refused InvalidPoolName") || strings.Contains(r.stderr, "\n      - metadata:") {
		t.Errorf("the name is refused, and printed escaped:\n%s", r.stderr)
	}

	erase := "\x1b[1A\x1b[2Kkept (unmanaged, still cloned): 0"
	st := strings.Replace(readExample(t, exampleState), "kubernetes-worker-image.cozystack.io/pool: kubernetes-legacy-md0", "kubernetes-worker-image.cozystack.io/pool: "+jsonString(erase), 1)
	if st == readExample(t, exampleState) {
		t.Fatal("the example has no legacy pool annotation")
	}
	p := exe(t, "", "catalog", "prune", "--catalog", exampleCatalog, "--state", write(t, "state.yaml", st), "--observed", "all")
	if strings.ContainsRune(p.stdout, '\x1b') || !strings.Contains(p.stdout, `pool \x1b[1A\x1b[2Kkept`) {
		t.Errorf("the annotation is escaped:\n%q", p.stdout)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestTalosValuesOnTheHTTPPath: talos.version with a newline renders, as
// the chart renders it, with a warning; its text does not parse back to
// the plan, so -o chart withholds it rather than print an entry without
// spec.storage.
func TestTalosValuesOnTheHTTPPath(t *testing.T) {
	pools := write(t, "pools.yaml", poolDoc("demo-md1", `talos: {version: "v1\n  evil: 1"}`))
	j := exe(t, "", "plan", "-f", pools, "-o", "json")
	if p := decodePlan(t, j.stdout); j.code != 0 || len(p) != 1 || p[0].Outcome != "planned" || !containsReason(p[0].Warnings, "InvalidVersion") {
		t.Errorf("exit %d, pools %+v", j.code, p)
	}
	c := exe(t, "", "plan", "-f", pools, "-o", "chart")
	if c.code != 3 || c.stdout != "" || !strings.Contains(c.stderr, "not printed: its chart text would not parse back") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", c.code, c.stdout, c.stderr)
	}
}

// TestValuesFileLines: a values file's YAML errors are at their own line.
func TestValuesFileLines(t *testing.T) {
	for name, tc := range map[string]struct{ text, want string }{
		"control character": {"enabled: true\nimages:\n  - schematicID: \"a\x01b\"\n", ":3:"},
		"invalid UTF-8":     {"enabled: true\nstorage: 6Gi\nstorageClass: \xff\n", ":3:"},
		".inf":              {"enabled: true\nimages:\n  - schematicID: abc\n    version: v1.0.0\n    storage: .inf\n", ":5: .inf is no number"},
	} {
		t.Run(name, func(t *testing.T) {
			cat := write(t, "catalog.yaml", tc.text)
			r := exe(t, "", "catalog", "render", "--catalog", cat)
			if r.code != 2 || !strings.Contains(r.stderr, cat+tc.want) {
				t.Errorf("exit %d, want 2 at %s\n%s", r.code, tc.want, r.stderr)
			}
		})
	}
}

// TestFactoryValuesRefused: on osImage.factory every value the URL is
// built from is validated, those that fall back to talos.* too, at the
// field they came from.
func TestFactoryValuesRefused(t *testing.T) {
	pools := write(t, "pools.yaml", poolDoc("demo-md1", `osImage: {factory: {imageFactoryURL: "https://mirror.example"}}
talos: {schematicID: "../../../evil.example/x?y="}`))
	r := exe(t, "", "plan", "-f", pools, "-o", "json")
	if p := decodePlan(t, r.stdout); r.code != 3 || len(p) != 1 || !reflect.DeepEqual(p[0].Refusals, []finding{{"InvalidSchematicID", "talos.schematicID"}}) {
		t.Errorf("exit %d, pools %+v", r.code, p)
	}
}

// TestBlastRadiusReadFails: a blast radius is information, read apart
// from what the plan needs. Its list failing (a 500) prints the plan
// anyway, exit as the plan's own outcome, and the radius says what it
// could not read and why; the plan's own read failing still fails it.
func TestBlastRadiusReadFails(t *testing.T) {
	api := newFakeAPI(t, readExample(t, lostGoldenState(t, true)))
	api.flux = true // a Cozystack cluster serves Flux: its pools' releases are read
	kc := kubeconfig(t, "tenant-demo", [2]string{"c", api.URL})
	pools := write(t, "pools.yaml", poolDoc("demo-md0", builtinPool))
	args := []string{"plan", "-f", pools, "--catalog", exampleCatalog, "--kubeconfig", kc}
	radius := "  blast radius of golden " + goldenName + ": "

	healthy := exe(t, "", args...)
	if healthy.code != 0 || !strings.Contains(healthy.stdout, radius+"2 pools and 2 templates point at it\n") {
		t.Errorf("healthy: exit %d\n%s\n%s", healthy.code, healthy.stdout, healthy.stderr)
	}

	// Only the radius lists VirtualMachines in every namespace.
	api.answerWith(func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/apis/kubevirt.io/v1/virtualmachines" {
			writeStatus(w, 500, "InternalError", "etcd is having a bad day")
			return true
		}
		return false
	})
	failed := exe(t, "", args...)
	if failed.code != healthy.code || !strings.Contains(failed.stdout, "warning GoldenUnavailable at osImage.builtin") ||
		!strings.Contains(failed.stdout, radius+"at least 2 pools and 2 templates point at it; how many more is unknown: "+
			"VirtualMachines were not observed in every namespace (could not be read: ") ||
		!strings.Contains(failed.stdout, "cannot list VirtualMachine: ") || !strings.Contains(failed.stdout, "etcd is having a bad day") {
		t.Errorf("radius list 500: the plan, exit %d as healthy, and what the radius could not read:\n%s\n%s", failed.code, failed.stdout, failed.stderr)
	}
	j := exe(t, "", append(args, "-o", "json")...)
	var out struct {
		Pools []struct {
			BlastRadius struct{ Unobserved []string }
		}
	}
	if err := json.Unmarshal([]byte(j.stdout), &out); err != nil || j.code != 0 || len(out.Pools) != 1 ||
		!reflect.DeepEqual(out.Pools[0].BlastRadius.Unobserved, []string{"VirtualMachine"}) {
		t.Errorf("-o json: the radius names the kind it could not read: exit %d, %v\n%s", j.code, err, j.stdout)
	}

	// The plan's own read: its PVCs in the pool's namespace.
	api.answerWith(func(w http.ResponseWriter, r *http.Request) bool {
		if strings.HasSuffix(r.URL.Path, "/namespaces/tenant-demo/persistentvolumeclaims") {
			writeStatus(w, 500, "InternalError", "etcd is having a bad day")
			return true
		}
		return false
	})
	if own := exe(t, "", args...); own.code != 1 || own.stdout != "" {
		t.Errorf("the plan's own read 500: exit %d, want 1 and nothing on stdout\n%s\n%s", own.code, own.stdout, own.stderr)
	}
}

// TestRenderBlastRadiusReadFails: catalog render prints its goldens
// though the read of what points at the unmanaged ones fails, and says
// the counts are lower bounds, and why.
func TestRenderBlastRadiusReadFails(t *testing.T) {
	api := newFakeAPI(t, readExample(t, exampleState))
	api.flux = true // a Cozystack cluster serves Flux: its pools' releases are read
	kc := kubeconfig(t, "tenant-demo", [2]string{"c", api.URL})
	args := []string{"catalog", "render", "--catalog", exampleCatalog, "--kubeconfig", kc}
	healthy := exe(t, "", args...)
	if healthy.code != 0 || !strings.Contains(healthy.stderr, "-v1.11.5: 1 pool and 1 template point at it\n") {
		t.Errorf("healthy: exit %d\n%s", healthy.code, healthy.stderr)
	}

	api.answerWith(func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/apis/infrastructure.cluster.x-k8s.io/v1alpha1/kubevirtmachinetemplates" {
			writeStatus(w, 500, "InternalError", "etcd is having a bad day")
			return true
		}
		return false
	})
	failed := exe(t, "", args...)
	if failed.code != healthy.code || failed.stdout != healthy.stdout ||
		!strings.Contains(failed.stderr, "-v1.11.5: no pool or template seen points at it\n") ||
		!strings.Contains(failed.stderr, "(the counts are lower bounds: KubevirtMachineTemplates were not observed in every namespace; could not be read: ") ||
		!strings.Contains(failed.stderr, "etcd is having a bad day") {
		t.Errorf("radius list 500: the goldens printed, exit %d as healthy, the counts lower bounds and why:\n%s", failed.code, failed.stderr)
	}
}
