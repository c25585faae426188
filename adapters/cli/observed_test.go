package cli_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// dropKind removes every item of kind from the example state's List, with
// the comment lines right above it.
func dropKind(kind string) stateEdit {
	return func(s string) string {
		var out, item []string
		flush := func() {
			if len(item) > 1 && strings.HasPrefix(item[0], "- apiVersion: ") && item[1] == "  kind: "+kind {
				for len(out) > 0 && strings.HasPrefix(out[len(out)-1], "# ") {
					out = out[:len(out)-1]
				}
			} else {
				out = append(out, item...)
			}
			item = nil
		}
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "- ") || strings.HasPrefix(l, "# ") {
				flush()
			}
			item = append(item, l)
		}
		flush()
		got := strings.Join(out, "\n")
		if got == s {
			panic("the example state holds no " + kind)
		}
		return got
	}
}

// kindedWarning is a warning of plan -o json with the kind a
// StateUnverified names.
type kindedWarning struct{ Reason, Field, Kind string }

func planWarnings(t *testing.T, stdout string) []kindedWarning {
	t.Helper()
	var out struct {
		Pools []struct{ Warnings []kindedWarning }
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil || len(out.Pools) != 1 {
		t.Fatalf("plan -o json of one pool: %v\n%s", err, stdout)
	}
	return out.Pools[0].Warnings
}

func TestObserved(t *testing.T) {
	noConfig := write(t, "state.yaml", dropKind("CDIConfig")(readExample(t, exampleState)))
	pool := write(t, "pools.yaml", poolDoc("demo-md0", "storageClass: replicated\nosImage: {builtin: {}}"))
	cases := map[string]struct {
		reason   string
		observed []string
		code     int
		outcome  string
		refused  []finding
		warned   []kindedWarning
	}{
		"NotHeld": {
			reason:  "a file without a CDIConfig says nothing of CDI's config: unknown, the plan warns and is unverified",
			code:    4,
			outcome: "unverified",
			warned:  []kindedWarning{{"StateUnverified", "storageClass", "CDIConfig"}},
		},
		"Named": {
			reason:   "--observed CDIConfig says the dump covered it: none, and CDI renders no disk",
			observed: []string{"--observed", "CDIConfig"},
			code:     3,
			outcome:  "refused",
			refused:  []finding{{"DiskUnrenderable", "storageClass"}},
		},
		"NamedInAnyCase": {
			reason:   "a kind's name is matched in any case, among others",
			observed: []string{"--observed", "storageclass,cdiconfig"},
			code:     3,
			outcome:  "refused",
			refused:  []finding{{"DiskUnrenderable", "storageClass"}},
		},
		"All": {
			reason:   "--observed all names every kind",
			observed: []string{"--observed", "all"},
			code:     3,
			outcome:  "refused",
			refused:  []finding{{"DiskUnrenderable", "storageClass"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			args := append([]string{"plan", "-f", pool, "--catalog", exampleCatalog, "--state", noConfig, "-o", "json"}, tc.observed...)
			r := exe(t, "", args...)
			if r.code != tc.code {
				t.Fatalf("%s: exit %d, want %d\n%s", tc.reason, r.code, tc.code, r.stderr)
			}
			p := decodePlan(t, r.stdout)[0]
			if p.Outcome != tc.outcome || !reflect.DeepEqual(reasons(p.Refusals), reasons(tc.refused)) {
				t.Errorf("%s: %s with refusals %v, want %s with %v", tc.reason, p.Outcome, p.Refusals, tc.outcome, tc.refused)
			}
			if got := planWarnings(t, r.stdout); (len(got) != 0 || len(tc.warned) != 0) && !reflect.DeepEqual(got, tc.warned) {
				t.Errorf("%s: warnings %v, want %v", tc.reason, got, tc.warned)
			}
		})
	}

	t.Run("HeldKindsAreObserved", func(t *testing.T) {
		r := exe(t, "", "plan", "-f", pool, "--catalog", exampleCatalog, "--state", exampleState, "-o", "json")
		if r.code != 0 || len(planWarnings(t, r.stdout)) != 0 {
			t.Errorf("the example holds every kind: exit %d, warnings %v\n%s", r.code, planWarnings(t, r.stdout), r.stderr)
		}
	})
}

func TestObservedUsage(t *testing.T) {
	empty := write(t, "empty.yaml", "")
	emptyList := write(t, "list.yaml", "apiVersion: v1\nkind: List\nitems: []\n")
	onlyOthers := write(t, "cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: z1}\n")
	cases := map[string]struct {
		reason string
		args   []string
		stdin  string
		stderr []string
	}{
		"UnknownKind": {
			reason: "a kind the planner does not read",
			args:   []string{"plan", "-f", examplePools, "--state", exampleState, "--observed", "CDIConfig,Pod"},
			stderr: []string{`"Pod" is not a kind the planner reads`, "CDIConfig", "plan -h"},
		},
		"EmptyName": {
			reason: "an empty kind name",
			args:   []string{"plan", "-f", examplePools, "--state", exampleState, "--observed", ""},
			stderr: []string{`"" is not a kind the planner reads`},
		},
		"WithoutState": {
			reason: "--observed qualifies a --state file",
			args:   []string{"plan", "-f", examplePools, "--observed", "all"},
			stderr: []string{"--observed says what a --state file covers"},
		},
		"WithExample": {
			reason: "the example's state is observed whole already",
			args:   []string{"catalog", "prune", "--example", "--observed", "all"},
			stderr: []string{"--observed says what a --state file covers"},
		},
		"EmptyFile": {
			reason: "a --state file with no object at all",
			args:   []string{"plan", "-f", examplePools, "--state", empty, "--observed", "all"},
			stderr: []string{empty + " holds no object of a kind the planner reads"},
		},
		"EmptyList": {
			reason: "a List of no items",
			args:   []string{"plan", "-f", examplePools, "--state", emptyList},
			stderr: []string{emptyList + " holds no object of a kind the planner reads"},
		},
		"OnlyOtherKinds": {
			reason: "a dump of kinds the planner does not read",
			args:   []string{"plan", "-f", examplePools, "--state", onlyOthers},
			stderr: []string{"skipped v1 ConfigMap z1/x", onlyOthers + " holds no object of a kind the planner reads"},
		},
		"StdinTwice": {
			reason: "standard input named twice",
			args:   []string{"plan", "-f", "-", "--state", "-"},
			stdin:  readExample(t, examplePools),
			stderr: []string{"standard input (-) is named 2 times"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := exe(t, tc.stdin, tc.args...)
			if r.code != 2 || r.stdout != "" {
				t.Errorf("%s: exit %d, want 2, and nothing on stdout:\n%s", tc.reason, r.code, r.stdout)
			}
			for _, want := range tc.stderr {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("%s: stderr lacks %q:\n%s", tc.reason, want, r.stderr)
				}
			}
		})
	}
}

func TestObservedHelp(t *testing.T) {
	for _, cmd := range [][]string{{"plan"}, {"catalog", "render"}, {"catalog", "consumers"}, {"catalog", "prune"}, {"helm-verify"}} {
		r := exe(t, "", append(cmd, "-h")...)
		for _, want := range []string{"[--observed KIND,...]", "-observed KIND,...", "all: every kind", "CDIConfig, PersistentVolume"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("%v -h lacks %q:\n%s", cmd, want, r.stdout)
			}
		}
	}
}

func TestObservedPrune(t *testing.T) {
	// A file alone cannot say that its consumer kinds are every
	// namespace's: prune reports a golden safe to delete only when
	// --observed names them.
	cases := map[string]struct {
		reason   string
		args     []string
		safe     int
		warned   []string
		stderrOK bool
	}{
		"FileAlone": {
			reason: "the consumers of the namespaces in the file may not be all, and it holds no DataSource: nothing is safe to delete",
			warned: consumerKinds,
		},
		"All": {
			reason: "--observed all: the file is the whole cluster",
			args:   []string{"--observed", "all"},
			safe:   1,
		},
		"ConsumersNamed": {
			reason: "naming every consumer kind is enough",
			args:   []string{"--observed", "PersistentVolumeClaim,DataVolume,KubevirtMachineTemplate,VirtualMachine,DataSource,KubernetesNodes,HelmRelease"},
			safe:   1,
		},
		"DisksNamed": {
			reason: "naming the disks' kinds alone leaves the templates scoped to the file's namespaces, and DataSources unknown: nothing is safe",
			args:   []string{"--observed", "PersistentVolumeClaim,DataVolume"},
			warned: consumerKinds,
		},
		"OneNamed": {
			reason: "one kind named leaves the others scoped to the file's namespaces: nothing is safe",
			args:   []string{"--observed", "PersistentVolumeClaim"},
			warned: consumerKinds,
		},
		"Example": {
			reason: "the embedded example is every namespace's",
			safe:   1,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			args := append([]string{"catalog", "prune", "--catalog", exampleCatalog, "--state", exampleState, "-o", "json"}, tc.args...)
			if name == "Example" {
				args = []string{"catalog", "prune", "--example", "-o", "json"}
			}
			r := exe(t, "", args...)
			if want := map[bool]int{true: 4, false: 0}[len(tc.warned) > 0]; r.code != want {
				t.Fatalf("%s: exit %d, want %d (4: a kind unread is unverified)\n%s", tc.reason, r.code, want, r.stderr)
			}
			var out struct {
				SafeToDelete []string
				Kept         []struct{ Name string }
				Warnings     []kindedWarning
			}
			if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
				t.Fatal(err)
			}
			if len(out.SafeToDelete) != tc.safe || len(out.Kept) != 2 || out.Kept[1].Name != legacyGolden {
				t.Errorf("%s: safe %v, kept %v", tc.reason, out.SafeToDelete, out.Kept)
			}
			var kinds []string
			for _, w := range out.Warnings {
				if w.Reason == "StateUnverified" {
					kinds = append(kinds, w.Kind)
				}
			}
			if !sameSet(kinds, tc.warned) {
				t.Errorf("%s: StateUnverified of %v, want %v", tc.reason, kinds, tc.warned)
			}
			if hint := strings.Contains(r.stderr, "pass --observed all"); hint != (tc.warned != nil) {
				t.Errorf("%s: the note that says the way out: %v\n%s", tc.reason, hint, r.stderr)
			}
		})
	}
}

// consumerKinds are the kinds that may clone a golden.
var consumerKinds = []string{"PersistentVolumeClaim", "DataVolume", "KubevirtMachineTemplate", "VirtualMachine", "DataSource",
	"KubernetesNodes", "HelmRelease"}

func sameSet(a, b []string) bool {
	seen := map[string]int{}
	for _, s := range a {
		seen[s]++
	}
	for _, s := range b {
		seen[s]--
	}
	for _, n := range seen {
		if n != 0 {
			return false
		}
	}
	return true
}

func TestObservedSnapshotClasses(t *testing.T) {
	// Issue 12 from a file: without the CDI override, the profile's
	// snapshot strategy needs a VolumeSnapshotClass of the driver. A dump
	// that holds none says nothing of them, so the plan warns; --observed
	// VolumeSnapshotClass says there are none, and CDI would copy.
	st := readExample(t, exampleState)
	for _, edit := range []stateEdit{
		dropKind("VolumeSnapshotClass"),
		replaceFirst("    cloneStrategyOverride: csi-clone\n", ""),
		replaceFirst("    snapshotClass: linstor-snapshots\n    storageClass: replicated\n", "    storageClass: replicated\n"),
	} {
		st = edit(st)
	}
	file := write(t, "state.yaml", st)
	pool := write(t, "pools.yaml", poolDoc("demo-md0", "storageClass: replicated\nosImage: {builtin: {}}"))

	r := exe(t, "", "plan", "-f", pool, "--catalog", exampleCatalog, "--state", file, "-o", "json")
	if w := planWarnings(t, r.stdout); r.code != 4 || !reflect.DeepEqual(w, []kindedWarning{{"StateUnverified", "storageClass", "VolumeSnapshotClass"}}) {
		t.Errorf("held none: exit %d, warnings %v\n%s", r.code, w, r.stderr)
	}
	r = exe(t, "", "plan", "-f", pool, "--catalog", exampleCatalog, "--state", file, "--observed", "VolumeSnapshotClass", "-o", "json")
	if p := decodePlan(t, r.stdout); r.code != 3 || !reflect.DeepEqual(p[0].Refusals, []finding{{"HostAssistedClone", "storageClass"}}) {
		t.Errorf("named: exit %d, refusals %v\n%s", r.code, p[0].Refusals, r.stderr)
	}
	if !strings.Contains(r.stdout, "NoVolumeSnapshotClass") {
		t.Errorf("the refusal names CDI's reason:\n%s", r.stdout)
	}
}

// otherVersionVM is a VirtualMachine of the tenant-x namespace, printed in
// apiVersion, that clones the example's unmanaged v1.10.9 golden.
func otherVersionVM(apiVersion string) string {
	return `---
apiVersion: ` + apiVersion + `
kind: VirtualMachine
metadata:
  name: old-vm
  namespace: tenant-x
spec:
  dataVolumeTemplates:
  - metadata:
      name: old-vm-disk
    spec:
      source:
        pvc:
          namespace: cozy-public
          name: ` + unmanagedGolden + `
      storage:
        resources:
          requests:
            storage: 20Gi
  runStrategy: Always
  template:
    spec:
      domain:
        devices: {}
`
}

// unmanagedGolden is the example's golden no catalog entry manages and
// nothing in the example state clones.
const unmanagedGolden = "talos-worker-ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515-v1.10.9"

func TestObservedPruneOtherVersions(t *testing.T) {
	// A consumer printed in a version of its kind the reader does not
	// decode is never dropped with its kind still observed: it is read
	// (KubeVirt serves v1alpha3 from its v1 types), or its kind is unknown
	// and nothing is safe to delete.
	cases := map[string]struct {
		reason   string
		appended string
		safe     []string
		kept     []string
		warned   []string
		cause    string
	}{
		"SameTypes": {
			reason:   "a kubevirt.io/v1alpha3 VirtualMachine is read as v1: the golden it clones is kept",
			appended: otherVersionVM("kubevirt.io/v1alpha3"),
			kept:     []string{unmanagedGolden, "VirtualMachine tenant-x/old-vm"},
		},
		"VersionNotRead": {
			reason:   "a VirtualMachine in a version not read leaves VirtualMachines unknown, --observed all or not",
			appended: otherVersionVM("kubevirt.io/v2"),
			warned:   []string{"VirtualMachine"},
			cause:    ":%d holds VirtualMachine tenant-x/old-vm in kubevirt.io/v2, a version the planner does not read",
		},
		"OtherKind": {
			reason:   "an unrelated kind in an unknown version changes nothing",
			appended: strings.Replace(otherVersionVM("example.com/v9"), "kind: VirtualMachine", "kind: Machine", 1),
			safe:     []string{unmanagedGolden},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			example := readExample(t, exampleState)
			file := write(t, "state.yaml", example+tc.appended)
			var cause string
			if tc.cause != "" {
				// The object starts past the example and the separator.
				cause = file + fmt.Sprintf(tc.cause, strings.Count(example, "\n")+2)
			}
			r := exe(t, "", "catalog", "prune", "--catalog", exampleCatalog, "--state", file, "--observed", "all", "-o", "json")
			if want := map[bool]int{true: 4, false: 0}[len(tc.warned) > 0]; r.code != want {
				t.Fatalf("%s: exit %d, want %d (4: a kind unread is unverified)\n%s", tc.reason, r.code, want, r.stderr)
			}
			var out struct {
				SafeToDelete []string
				Kept         []struct {
					Name      string
					Consumers []struct{ Kind, Namespace, Name string }
				}
				Warnings []struct{ Reason, Kind, Cause string }
			}
			if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
				t.Fatal(err)
			}
			if !sameSet(out.SafeToDelete, tc.safe) {
				t.Errorf("%s: safe to delete %v, want %v", tc.reason, out.SafeToDelete, tc.safe)
			}
			if tc.kept != nil {
				var consumers []string
				for _, k := range out.Kept {
					if k.Name == tc.kept[0] {
						for _, c := range k.Consumers {
							consumers = append(consumers, c.Kind+" "+c.Namespace+"/"+c.Name)
						}
					}
				}
				if !reflect.DeepEqual(consumers, tc.kept[1:]) {
					t.Errorf("%s: %s kept for %v, want %v", tc.reason, tc.kept[0], consumers, tc.kept[1:])
				}
			}
			var kinds []string
			for _, w := range out.Warnings {
				if w.Reason == "StateUnverified" {
					kinds = append(kinds, w.Kind)
					if !strings.Contains(w.Cause, cause) {
						t.Errorf("%s: the cause says where the object is and why: %q", tc.reason, w.Cause)
					}
				}
			}
			if !sameSet(kinds, tc.warned) {
				t.Errorf("%s: StateUnverified of %v, want %v", tc.reason, kinds, tc.warned)
			}
		})
	}
}
