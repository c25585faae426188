package cli_test

import (
	"encoding/json"
	"strings"
	"testing"

	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/plan/state/capk"
)

// TestPlanReimageNotice: the re-image notice, through the CLI: a pool whose
// planned disk-system differs from its live template's is told its
// workers will be re-imaged; one whose is the same is told nothing; with
// the templates unread, no pool is told either way, and the run says so
// once.
func TestPlanReimageNotice(t *testing.T) {
	const notice = "notice: this pool's workers will be re-imaged"
	switched := strings.Replace(readExample(t, examplePools), "# osImage", "osImage", 1)
	r := exe(t, switched, "plan", "-f", "-", "--catalog", exampleCatalog, "--state", exampleState)
	md0, md1, _ := strings.Cut(r.stdout, "tenant-demo/demo-md1:")
	if r.code != 0 || strings.Contains(md0, notice) || !strings.Contains(md1, notice) ||
		!strings.Contains(md1, "its live KubevirtMachineTemplate kubernetes-demo-md1-d19590 holds (source: HTTP import from ") {
		t.Errorf("demo-md1 switched to the golden is told, demo-md0 is not: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}

	same := exe(t, "", "plan", "-f", examplePools, "--catalog", exampleCatalog, "--state", exampleState)
	if same.code != 0 || strings.Contains(same.stdout, "notice:") || same.stderr != "" {
		t.Errorf("the pools as their templates hold them: no notice, nothing on stderr: exit %d\n%s\n%s", same.code, same.stdout, same.stderr)
	}

	noTemplates := write(t, "state.yaml", string(fixtures.ListYAML(fixtures.Class(fixtures.ReplicatedClass, fixtures.ReplicatedProvisioner, fixtures.Created, ""))))
	unread := exe(t, switched, "plan", "-f", "-", "--catalog", exampleCatalog, "--state", noTemplates)
	if strings.Contains(unread.stdout, "notice:") ||
		!strings.Contains(unread.stderr, "note: KubevirtMachineTemplates were not read (not in "+noTemplates+": it holds no KubevirtMachineTemplate") ||
		strings.Count(unread.stderr, "KubevirtMachineTemplates were not read") != 1 {
		t.Errorf("templates unread: no claim, said once, with the cause:\n%s\n%s", unread.stdout, unread.stderr)
	}
	named := exe(t, switched, "plan", "-f", "-", "--catalog", exampleCatalog, "--state", noTemplates, "--observed", "KubevirtMachineTemplate")
	if strings.Contains(named.stdout, "notice:") || strings.Contains(named.stderr, "KubevirtMachineTemplates") {
		t.Errorf("templates observed, none there: new pools, nothing to re-image, nothing to say:\n%s\n%s", named.stdout, named.stderr)
	}
	offline := exe(t, switched, "plan", "-f", "-", "--catalog", exampleCatalog)
	if strings.Contains(offline.stdout, "notice:") || !strings.Contains(offline.stderr, "note: KubevirtMachineTemplates were not read (offline") {
		t.Errorf("offline: no claim, said so:\n%s\n%s", offline.stdout, offline.stderr)
	}
	for _, o := range []string{"json", "chart", "wide"} {
		if r := exe(t, switched, "plan", "-f", "-", "--catalog", exampleCatalog, "-o", o); strings.Contains(r.stdout+r.stderr, "KubevirtMachineTemplates were not read") {
			t.Errorf("-o %s prints no note of the human output:\n%s", o, r.stderr)
		}
	}
}

// lostGoldenState is fixtures.Cluster without the default golden, which
// pool demo-md0 has cloned, plus a scaled-to-zero pool's template of
// another tenant that still clones it; with consumers false, without the
// templates and VirtualMachines.
func lostGoldenState(t *testing.T, consumers bool) string {
	t.Helper()
	var objs []client.Object
	for _, o := range fixtures.Cluster() {
		switch o.(type) {
		case *capk.KubevirtMachineTemplate, *kubevirtv1.VirtualMachine:
			if !consumers {
				continue
			}
		}
		if o.GetName() != fixtures.Golden {
			objs = append(objs, o)
		}
	}
	if consumers {
		objs = append(objs, fixtures.Template("tenant-b", "kubernetes-b-md0-610acb").Pool("kubernetes-b-md0").
			Entries(fixtures.CloneEntry("kubernetes-b-md0", fixtures.Golden, fixtures.ReplicatedClass, "20Gi")).Obj())
	}
	return write(t, "state.yaml", string(fixtures.ListYAML(objs...)))
}

// TestPlanBlastRadius: a pool whose golden is unavailable is told how many
// pools and templates still point at it; with a consumer kind unread, that
// the count is a lower bound and why; and its plan warns nothing more.
func TestPlanBlastRadius(t *testing.T) {
	pools := write(t, "pools.yaml", poolDoc("demo-md0", "osImage: {builtin: {}}"))
	// The dump holds no pool object: --observed says it would have.
	noPools := []string{"--observed", "KubernetesNodes,HelmRelease"}
	r := exe(t, "", append([]string{"plan", "-f", pools, "--catalog", exampleCatalog, "--state", lostGoldenState(t, true)}, noPools...)...)
	if r.code != 0 || !strings.Contains(r.stdout, "warning GoldenUnavailable at osImage.builtin") ||
		!strings.Contains(r.stdout, "  blast radius of golden "+goldenName+": 2 pools and 2 templates point at it\n") {
		t.Errorf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	j := exe(t, "", append([]string{"plan", "-f", pools, "--catalog", exampleCatalog, "--state", lostGoldenState(t, true), "-o", "json"}, noPools...)...)
	var out struct {
		Pools []struct {
			BlastRadius map[string]any `json:"blastRadius"`
		}
	}
	if err := json.Unmarshal([]byte(j.stdout), &out); err != nil || len(out.Pools) != 1 ||
		out.Pools[0].BlastRadius["pools"] != 2.0 || out.Pools[0].BlastRadius["templates"] != 2.0 {
		t.Errorf("the JSON pool entry carries blastRadius: %v\n%s", err, j.stdout)
	}

	partial := exe(t, "", append([]string{"plan", "-f", pools, "--catalog", exampleCatalog, "--state",
		lostGoldenState(t, false)}, noPools...)...)
	if partial.code != 0 || !strings.Contains(partial.stdout, "blast radius of golden "+goldenName+
		": at least 1 pool and 0 templates point at it; how many more is unknown: KubevirtMachineTemplates and VirtualMachines were not observed in every namespace (not in ") {
		t.Errorf("templates and VMs unread: a lower bound, and why:\n%s", partial.stdout)
	}
	if strings.Contains(partial.stdout+partial.stderr, "StateUnverified") {
		t.Errorf("an unread consumer kind warns nothing of the plan:\n%s\n%s", partial.stdout, partial.stderr)
	}

	fine := exe(t, "", "plan", "-f", pools, "--catalog", exampleCatalog, "--state", exampleState)
	if strings.Contains(fine.stdout, "blast radius") {
		t.Errorf("neighbour: a golden that is there has no blast radius to tell:\n%s", fine.stdout)
	}
}

// TestCatalogRenderBlastRadius: catalog render says, of each golden no
// entry manages any more, how many pools and templates still point at it,
// and once why a count is a lower bound.
func TestCatalogRenderBlastRadius(t *testing.T) {
	r := exe(t, "", "catalog", "render", "--catalog", exampleCatalog, "--state", exampleState)
	for _, want := range []string{
		"-v1.10.9: no pool or template seen points at it\n",
		"-v1.11.5: at least 1 pool and 1 template point at it\n",
		"  (the counts are lower bounds: DataSources, KubernetesNodes and HelmReleases were not observed in every namespace; not in " + exampleState + ": it holds no DataSource",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	all := exe(t, "", "catalog", "render", "--catalog", exampleCatalog, "--state", exampleState, "--observed", "all")
	if !strings.Contains(all.stderr, "-v1.10.9: no pool or template points at it\n") || strings.Contains(all.stderr, "lower bounds") {
		t.Errorf("every kind observed: exact counts:\n%s", all.stderr)
	}
}
