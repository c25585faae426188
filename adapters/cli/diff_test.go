package cli_test

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Issue 20: worker-image diff, through the binary.

var exampleCozystackValues = filepath.Join("..", "..", "examples", "cli", "cozystack-values.yaml")

const golden1137 = "talos-worker-ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515-v1.13.7"

// diffJSON is `diff -o json` as a tool reads it.
type diffJSON struct {
	Pools []struct {
		Namespace string `json:"namespace"`
		Name      string `json:"name"`
		Rolls     bool   `json:"rolls"`
		Before    *struct {
			Outcome  string `json:"outcome"`
			Source   string `json:"source"`
			Workers  *int   `json:"workers"`
			Template struct {
				Name    string `json:"name"`
				From    string `json:"from"`
				Unknown string `json:"unknown"`
			} `json:"kubevirtMachineTemplate"`
		} `json:"before"`
		After *struct {
			Outcome      string `json:"outcome"`
			NeededGolden string `json:"neededGolden"`
			GoldenState  string `json:"goldenState"`
			Template     struct {
				Name    string `json:"name"`
				Unknown string `json:"unknown"`
			} `json:"kubevirtMachineTemplate"`
			Refusals []struct {
				Reason string `json:"reason"`
			} `json:"refusals"`
		} `json:"after"`
	} `json:"pools"`
	Steps []struct {
		Action string `json:"action"`
		Target string `json:"target"`
	} `json:"steps"`
	Transfer struct {
		HTTPBytes  *int64 `json:"httpBytes"`
		CloneBytes *int64 `json:"cloneBytes"`
	} `json:"transfer"`
}

func decodeDiff(t *testing.T, s string) diffJSON {
	t.Helper()
	var d diffJSON
	if err := json.Unmarshal([]byte(s), &d); err != nil {
		t.Fatalf("%v\n%s", err, s)
	}
	return d
}

func steps(d diffJSON) []string {
	var out []string
	for _, s := range d.Steps {
		out = append(out, s.Action+" "+s.Target)
	}
	return out
}

// The default bump of the walkthrough: demo-md1 (HTTP) rolls onto the new
// URL, demo-md0 (builtin) needs v1.13.7's golden, not in the catalog: its
// plan is refused (exit 3) and comes first, and its steps are add, wait,
// roll. With the platform's values both templates are named.
func TestDiffDefaultBump(t *testing.T) {
	r := exe(t, "", "diff", "-f", examplePools, "--catalog", exampleCatalog, "--state", exampleState,
		"--set", "talos.version=v1.13.7", "--cozystack-values", exampleCozystackValues, "-o", "json")
	if r.code != 3 {
		t.Fatalf("exit %d, want 3\n%s", r.code, r.stderr)
	}
	d := decodeDiff(t, r.stdout)
	if len(d.Pools) != 2 || d.Pools[0].Name != "demo-md0" || d.Pools[1].Name != "demo-md1" {
		t.Fatalf("pools %+v", d.Pools)
	}
	md0, md1 := d.Pools[0], d.Pools[1]
	if !md0.Rolls || md0.After.Outcome != "refused" || md0.After.NeededGolden != golden1137 || md0.After.GoldenState != "not-in-catalog" ||
		len(md0.After.Refusals) != 1 || md0.After.Refusals[0].Reason != "GoldenNotInCatalog" || *md0.Before.Workers != 2 {
		t.Errorf("demo-md0: %+v %+v", md0.Before, md0.After)
	}
	if !md1.Rolls || md1.After.Outcome != "planned" || md1.Before.Source != "http" || *md1.Before.Workers != 1 {
		t.Errorf("demo-md1: %+v %+v", md1.Before, md1.After)
	}
	// The chart names demo-md1's templates so (Helm v4.1.1, the
	// pre-feature chart, the example's cozystack values); the one before
	// is the pool's template in the state, of that name.
	if md1.Before.Template.Name != "kubernetes-demo-md1-d19590" || md1.After.Template.Name != "kubernetes-demo-md1-82061f" || md1.Before.Template.From != "cluster" {
		t.Errorf("demo-md1's templates %+v → %+v", md1.Before.Template, md1.After.Template)
	}
	want := []string{"add-catalog-entry " + golden1137, "roll-pool tenant-demo/demo-md1", "wait-for-golden " + golden1137, "roll-pool tenant-demo/demo-md0"}
	if got := steps(d); !reflect.DeepEqual(got, want) {
		t.Errorf("steps %v, want %v", got, want)
	}
	const image = 4456028570 // 4.15Gi
	if h, c := d.Transfer.HTTPBytes, d.Transfer.CloneBytes; h == nil || c == nil || *h != 2*image || *c != 2*image {
		t.Errorf("transfer %v %v: demo-md1's worker and the golden's import over HTTP, demo-md0's two workers cloned", h, c)
	}
}

// The fix: the catalog after the change has the new flavor (and retires
// the old one, which no pool clones any more): every plan stands (exit 0);
// demo-md0 waits for its golden, not created yet.
func TestDiffWithTheNewEntry(t *testing.T) {
	catalog := strings.ReplaceAll(readExample(t, exampleCatalog), "v1.13.6", "v1.13.7")
	r := exe(t, catalog, "diff", "-f", examplePools, "--catalog", exampleCatalog, "--state", exampleState,
		"--after-catalog", "-", "--set", "talos.version=v1.13.7", "-o", "json")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	d := decodeDiff(t, r.stdout)
	want := []string{"roll-pool tenant-demo/demo-md1", "wait-for-golden " + golden1137, "roll-pool tenant-demo/demo-md0"}
	if got := steps(d); !reflect.DeepEqual(got, want) {
		t.Errorf("steps %v, want %v", got, want)
	}
	if d.Pools[0].After.GoldenState != "not-created" {
		t.Errorf("demo-md0's golden after: %s", d.Pools[0].After.GoldenState)
	}
	if b, a := d.Pools[0].Before.Template, d.Pools[0].After.Template; b.From != "cluster" || a.Name != "" || a.Unknown == "" {
		t.Errorf("without --cozystack-values the template's name before is the cluster's (%+v), after not known, and says why (%+v)", b, a)
	}
}

// A catalog change alone rolls nothing: demo-md1 (no osImage) keeps its
// text byte for byte; demo-md0 keeps its golden, which the change retires
// while it still clones it: it plans with GoldenUnavailable, and the step
// is to keep the entry.
func TestDiffRetiringAnEntryRollsNothing(t *testing.T) {
	catalog := strings.ReplaceAll(readExample(t, exampleCatalog), "v1.13.6", "v1.13.7")
	r := exe(t, catalog, "diff", "--example", "--after-catalog", "-", "-o", "yaml")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"rolls: false", "action: add-catalog-entry", "goldenState: not-in-catalog", "GoldenUnavailable", "httpBytes: 0"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("no %q in\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "rolls: true") || strings.Contains(r.stdout, "roll-pool") {
		t.Errorf("a pool rolls:\n%s", r.stdout)
	}
}

// The human output and -o wide say the same.
func TestDiffText(t *testing.T) {
	r := exe(t, "", "diff", "--example", "--set", "talos.version=v1.13.7")
	for _, want := range []string{
		"tenant-demo/demo-md0: rolls; refused after the change (1 refusal), which its steps fix",
		"  after:  refused; clone of golden " + golden1137 + " (not-in-catalog)",
		"  refused GoldenNotInCatalog at osImage.builtin: ",
		"  4. roll-pool tenant-demo/demo-md0",
		"2 pools: 2 rolling, 1 refused after the change",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("no %q in\n%s", want, r.stdout)
		}
	}
	if r.code != 3 || !strings.Contains(r.stderr, "note: KubevirtMachineTemplate names not computed") {
		t.Errorf("exit %d\n%s", r.code, r.stderr)
	}
	w := exe(t, "", "diff", "--example", "--set", "talos.version=v1.13.7", "-o", "wide")
	if w.code != 3 || !strings.Contains(w.stdout, "ROLLS") || !strings.Contains(w.stdout, "GoldenNotInCatalog") || !strings.Contains(w.stdout, "3. wait-for-golden") {
		t.Errorf("exit %d\n%s", w.code, w.stdout)
	}
}

// Offline, workers cannot be counted: the transfer is not known (null),
// never zero.
func TestDiffOffline(t *testing.T) {
	r := exe(t, "", "diff", "-f", examplePools, "--catalog", exampleCatalog, "--set", "talos.version=v1.13.7", "-o", "json")
	d := decodeDiff(t, r.stdout)
	if r.code != 3 || d.Transfer.HTTPBytes != nil || d.Transfer.CloneBytes != nil || d.Pools[0].Before.Workers != nil {
		t.Errorf("exit %d, transfer %v %v\n%s", r.code, d.Transfer.HTTPBytes, d.Transfer.CloneBytes, r.stdout)
	}
}

// The change comes from the cluster's pools as from files.
func TestDiffFromTheCluster(t *testing.T) {
	api := clusterWithPools(t)
	kc := kubeconfig(t, "tenant-demo", [2]string{"c", api.URL})
	live := exe(t, "", "diff", "kubernetesnodes/demo-md0", "kubernetesnodes/demo-md1", "--kubeconfig", kc, "--catalog", exampleCatalog, "--set", "talos.version=v1.13.7", "-o", "json")
	files := exe(t, "", "diff", "-f", examplePools, "--state", exampleState, "--observed", "all", "--catalog", exampleCatalog, "--set", "talos.version=v1.13.7", "-o", "json")
	if live.code != 3 || live.stdout != files.stdout {
		t.Errorf("exit %d: the cluster's pools diff as the files do:\n--- live\n%s%s\n--- files\n%s", live.code, live.stdout, live.stderr, files.stdout)
	}
}

// Unusable input is exit 2, naming the flag and the way out.
func TestDiffUsage(t *testing.T) {
	cases := map[string]struct {
		args []string
		want string
	}{
		"no change":     {[]string{"diff", "--example"}, "name the change"},
		"not KEY=VALUE": {[]string{"diff", "--example", "--set", "talos.version"}, "is not KEY=VALUE"},
		"unknown key":   {[]string{"diff", "--example", "--set", "talos.verison=v1.13.7"}, `did you mean "version"?`},
		"below a value": {[]string{"diff", "--example", "--set", "diskSize.x=1"}, "diskSize is not a map"},
		"image size":    {[]string{"diff", "--example", "--set", "talos.version=v1.13.7", "--image-size", "big"}, "--image-size"},
		"stdin twice":   {[]string{"diff", "-f", "-", "--after-pools", "-", "--set", "talos.version=v1.13.7"}, "named 2 times"},
		"no pools":      {[]string{"diff", "--set", "talos.version=v1.13.7"}, "name the pools"},
		"values":        {[]string{"diff", "--example", "--set", "talos.version=v1.13.7", "--cozystack-values", exampleCatalog}, "hold no _cluster"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := exe(t, "", tc.args...)
			if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, want 2 and %q\n%s", r.code, tc.want, r.stderr)
			}
		})
	}
}

// --strict decides each plan before the comparison: offline, the builtin
// pool demo-md0 is refused StateUnverified (its guards could not look), so
// it does not roll and no step adds, waits for or rolls anything for it
// (exit 3); the HTTP pool, which reads nothing of the cluster, rolls.
func TestDiffStrict(t *testing.T) {
	r := exe(t, "", "diff", "-f", examplePools, "--catalog", exampleCatalog, "--set", "talos.version=v1.13.7", "--strict", "-o", "json")
	if r.code != 3 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	d := decodeDiff(t, r.stdout)
	md0, md1 := d.Pools[0], d.Pools[1]
	if md0.Name != "demo-md0" || md0.Rolls || md0.After.Outcome != "refused" {
		t.Errorf("%s: rolls %t, %s; --strict refuses it offline", md0.Name, md0.Rolls, md0.After.Outcome)
	}
	if !md1.Rolls {
		t.Errorf("%s rolls onto the new URL", md1.Name)
	}
	if got := steps(d); !reflect.DeepEqual(got, []string{"roll-pool tenant-demo/demo-md1"}) {
		t.Errorf("steps %v: only demo-md1's roll", got)
	}
}

// A version default that moves rolls every pool that takes it, and says
// so.
func TestDiffVersionDefault(t *testing.T) {
	r := exe(t, "", "diff", "-f", examplePools, "--catalog", exampleCatalog, "--state", exampleState, "--set", "version=v1.34")
	if r.code != 0 || !strings.Contains(r.stdout, "tenant-demo/demo-md1: rolls") ||
		!strings.Contains(r.stdout, "  version: the chart's default → v1.34 (CAPI replaces every Machine of the pool)") {
		t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
