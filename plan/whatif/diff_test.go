package whatif_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/plan/state/capk"
	"github.com/cozystack/kubernetes-worker-image/plan/whatif"
)

const (
	tenant = fixtures.TenantNamespace
	v1137  = "v1.13.7"
)

var golden1137, _ = naming.GoldenName(fixtures.DefaultSchematicID, v1137, nil, nil)

// tenantPools is cluster demo's pools in tenant-demo:
//   - demo-md0 clones the chart's flavor (osImage.builtin: {}) and has
//     cloned it once (fixtures.Cluster's disk);
//   - demo-md1 imports over HTTP from talos.* and runs two workers;
//   - demo-pinned clones the flavor it names, v1.13.6, and runs none;
//   - demo-own imports over HTTP the talos.version it sets itself.
func tenantPools() []whatif.PoolValues {
	return []whatif.PoolValues{
		{Namespace: tenant, Name: "demo-md0", Spec: map[string]any{"cluster": "demo", "osImage": map[string]any{"builtin": map[string]any{}}}},
		{Namespace: tenant, Name: "demo-md1", Spec: map[string]any{"cluster": "demo", "instanceType": "u1.large"}},
		{Namespace: tenant, Name: "demo-pinned", Spec: map[string]any{"cluster": "demo", "osImage": map[string]any{"builtin": map[string]any{"version": fixtures.DefaultVersion}}}},
		{Namespace: tenant, Name: "demo-own", Spec: map[string]any{"cluster": "demo", "talos": map[string]any{"version": "v1.12.0"}}},
	}
}

// httpWorker is a worker disk of pool (its KubernetesNodes name) imported
// over HTTP, named as CAPI and CAPK name it, as its DataVolume and PVC.
func httpWorker(pool, machine string) []client.Object {
	name := naming.PoolCAPIName(pool) + "-58c4d-" + machine + "-disk-system"
	url := naming.ImageURL(fixtures.DefaultImageFactoryURL, fixtures.DefaultSchematicID, fixtures.DefaultVersion)
	return []client.Object{
		fixtures.DataVolume(tenant, name).HTTP(url).Class(fixtures.ReplicatedClass).Phase(cdiv1.Succeeded).Obj(),
		fixtures.PVC(tenant, name).Class(fixtures.ReplicatedClass).Bound().Obj(),
	}
}

// cozystack is fixtures.Cluster, observed whole, with demo-md1's two
// workers and a worker of a sibling pool, demo-md1-large, which is not
// demo-md1's.
func cozystack(extra ...client.Object) *state.Snapshot {
	return cozystackObserved(state.AllKinds, extra...)
}

// cozystackObserved is cozystack with only the observed kinds read.
func cozystackObserved(observed state.Kind, extra ...client.Object) *state.Snapshot {
	return state.NewSnapshot(cozystackState(observed, extra...))
}

// cozystackState is the state cozystackObserved indexes.
func cozystackState(observed state.Kind, extra ...client.Object) *state.State {
	objs := append(fixtures.Cluster(), httpWorker("demo-md1", "r4t7m")...)
	objs = append(objs, httpWorker("demo-md1", "x2kqz")...)
	objs = append(objs, httpWorker("demo-md1-large", "p8vnd")...)
	return fixtures.State(observed, append(objs, extra...)...)
}

// defaultCatalog is enabled and holds the chart's flavor.
func defaultCatalog() *catalog.Catalog {
	return catalog.Compile(catalog.Values{Enabled: true, ImageFactoryURL: fixtures.DefaultImageFactoryURL, StorageClass: fixtures.ReplicatedClass, Storage: "6Gi",
		Images: []catalog.Image{{Flavor: catalog.Flavor{SchematicID: fixtures.DefaultSchematicID, Version: fixtures.DefaultVersion}}}})
}

func byName(t *testing.T, rep whatif.Report, name string) whatif.PoolDiff {
	t.Helper()
	for _, p := range rep.Pools {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no pool %s in the report", name)
	return whatif.PoolDiff{}
}

func reasons(rs guard.Refusals) []guard.Reason {
	out := []guard.Reason{}
	for _, r := range rs {
		out = append(out, r.Reason)
	}
	return out
}

// A Cozystack upgrade moves the chart's talos.version: the HTTP pools that
// take the chart's version roll onto the new URL at once; the builtin pool
// that takes it needs the new flavor's golden, which the catalog does not
// hold yet, so its plan is refused until the entry is added, and its steps
// are: add the entry, wait for the golden's import, roll. Pools that set
// their flavor themselves do not roll.
func TestDiffDefaultBump(t *testing.T) {
	imageSize := resource.MustParse(whatif.DefaultImageSize)
	size := imageSize.Value()
	rep, err := whatif.Diff(whatif.Input{Pools: tenantPools(), Catalog: defaultCatalog(), Snapshot: cozystack()},
		whatif.Change{Defaults: []whatif.ChartDefault{{Key: "talos.version", Value: v1137}}})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Refused() {
		t.Error("demo-md0's plan after the change is refused: the report says so (exit 3)")
	}
	if rep.Pools[0].Name != "demo-md0" {
		t.Errorf("the pool refused after the change comes first, not %s", rep.Pools[0].Name)
	}
	cases := map[string]struct {
		reason      string
		rolls       bool
		before      plan.Source
		after       plan.Outcome
		refusals    []guard.Reason
		golden      string
		goldenState whatif.GoldenState
		workers     int
	}{
		"demo-md0":    {"builtin on the chart's flavor: onto v1.13.7's golden, once the catalog has it", true, plan.Clone, plan.Refused, []guard.Reason{guard.GoldenNotInCatalog}, golden1137, whatif.NotInCatalog, 1},
		"demo-md1":    {"HTTP from talos.*: onto the new URL", true, plan.HTTP, plan.Planned, []guard.Reason{}, "", "", 2},
		"demo-pinned": {"builtin on the flavor it names: unchanged", false, plan.Clone, plan.Planned, []guard.Reason{}, fixtures.Golden, whatif.Imported, 0},
		"demo-own":    {"HTTP from its own talos.version: unchanged", false, plan.HTTP, plan.Planned, []guard.Reason{}, "", "", 0},
	}
	for name, tc := range cases {
		p := byName(t, rep, name)
		if p.Rolls != tc.rolls || p.Before.Source != tc.before || p.After.Outcome != tc.after ||
			!slices.Equal(reasons(p.After.Refusals), tc.refusals) || p.After.NeededGolden != tc.golden ||
			p.After.GoldenState != tc.goldenState || p.Workers == nil || *p.Workers != tc.workers {
			workers := "uncounted"
			if p.Workers != nil {
				workers = fmt.Sprint(*p.Workers)
			}
			t.Errorf("%s: %s: rolls %t, before %s, after %s %v, golden %s (%s), %s workers", name, tc.reason,
				p.Rolls, p.Before.Source, p.After.Outcome, reasons(p.After.Refusals), p.After.NeededGolden, p.After.GoldenState, workers)
		}
	}
	if p := byName(t, rep, "demo-md1"); p.After.Disk.Spec.Source.HTTP.URL != naming.ImageURL(fixtures.DefaultImageFactoryURL, fixtures.DefaultSchematicID, v1137) {
		t.Errorf("demo-md1 imports %s after the change", p.After.Disk.Spec.Source.HTTP.URL)
	}
	want := []whatif.Step{
		{Action: whatif.AddCatalogEntry, Target: golden1137},
		{Action: whatif.RollPool, Target: tenant + "/demo-md1"},
		{Action: whatif.WaitForGolden, Target: golden1137},
		{Action: whatif.RollPool, Target: tenant + "/demo-md0"},
	}
	if !slices.Equal(rep.Steps, want) {
		t.Errorf("steps %v, want %v", rep.Steps, want)
	}
	// demo-md1's two workers and the new golden's one import over HTTP;
	// demo-md0's one worker cloned.
	wantT := whatif.Transfer{HTTPBytes: ptr(3 * size), CloneBytes: ptr(size)}
	if !equalTransfer(rep.Transfer, wantT) {
		t.Errorf("transfer %+v, want %+v", rep.Transfer, wantT)
	}
}

func equalTransfer(a, b whatif.Transfer) bool {
	return equalBytes(a.HTTPBytes, b.HTTPBytes) && equalBytes(a.CloneBytes, b.CloneBytes) && slices.Equal(a.Unverified, b.Unverified)
}

// equalBytes reports whether two figures are both not known, or both known
// and equal.
func equalBytes(a, b *int64) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

func ptr(n int64) *int64 { return &n }

// The catalog after the change has the new flavor, its golden not created
// yet: every plan stands (the golden pending), and the steps wait for it
// before demo-md0 rolls.
func TestDiffDefaultBumpWithTheEntry(t *testing.T) {
	v := defaultCatalog().Values()
	v.Images = append(v.Images, catalog.Image{Flavor: catalog.Flavor{SchematicID: fixtures.DefaultSchematicID, Version: v1137}})
	rep, err := whatif.Diff(whatif.Input{Pools: tenantPools(), Catalog: defaultCatalog(), Snapshot: cozystack()},
		whatif.Change{Catalog: catalog.Compile(v), Defaults: []whatif.ChartDefault{{Key: "talos.version", Value: v1137}}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Refused() {
		t.Errorf("nothing is refused: %+v", rep.Pools[0].After.Refusals)
	}
	p := byName(t, rep, "demo-md0")
	if !p.Rolls || p.After.Golden != golden1137 || p.After.GoldenState != whatif.NotCreated {
		t.Errorf("demo-md0: rolls %t onto %s (%s)", p.Rolls, p.After.Golden, p.After.GoldenState)
	}
	want := []whatif.Step{
		{Action: whatif.RollPool, Target: tenant + "/demo-md1"},
		{Action: whatif.WaitForGolden, Target: golden1137},
		{Action: whatif.RollPool, Target: tenant + "/demo-md0"},
	}
	if !slices.Equal(rep.Steps, want) {
		t.Errorf("steps %v, want %v", rep.Steps, want)
	}
}

// An entry retired while pools still clone it: nothing rolls (no pool's
// text changes), the pool that has cloned it plans with GoldenUnavailable
// (its next workers will not boot), the scaled-to-zero pool that has not is
// refused, first; the one step is to keep the entry, whose golden is still
// populated, so there is nothing to wait for.
func TestDiffRetiredEntry(t *testing.T) {
	pools := []whatif.PoolValues{
		tenantPools()[0],
		{Namespace: tenant, Name: "demo-zero", Spec: map[string]any{"cluster": "demo", "minReplicas": 0, "osImage": map[string]any{"builtin": map[string]any{}}}},
		tenantPools()[1],
	}
	retired := defaultCatalog().Values()
	retired.Images = []catalog.Image{}
	rep, err := whatif.Diff(whatif.Input{Pools: pools, Catalog: defaultCatalog(), Snapshot: cozystack()}, whatif.Change{Catalog: catalog.Compile(retired)})
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{rep.Pools[0].Name, rep.Pools[1].Name, rep.Pools[2].Name}; !slices.Equal(got, []string{"demo-zero", "demo-md0", "demo-md1"}) {
		t.Errorf("order %v: the refused pool first, then the others in order", got)
	}
	for _, p := range rep.Pools {
		if p.Rolls {
			t.Errorf("%s rolls: retiring an entry changes no pool's text", p.Name)
		}
	}
	zero, md0 := byName(t, rep, "demo-zero"), byName(t, rep, "demo-md0")
	if zero.After.Outcome != plan.Refused || !slices.Equal(reasons(zero.After.Refusals), []guard.Reason{guard.GoldenNotInCatalog}) || zero.After.GoldenState != whatif.NotInCatalog {
		t.Errorf("demo-zero, which has not cloned: %s %v (%s)", zero.After.Outcome, reasons(zero.After.Refusals), zero.After.GoldenState)
	}
	var warned bool
	for _, w := range md0.After.Warnings {
		warned = warned || w.Reason == guard.GoldenUnavailable
	}
	if md0.After.Outcome != plan.Planned || !warned || md0.After.GoldenState != whatif.NotInCatalog {
		t.Errorf("demo-md0, which has cloned: %s, warnings %v (%s)", md0.After.Outcome, md0.After.Warnings, md0.After.GoldenState)
	}
	if want := []whatif.Step{{Action: whatif.AddCatalogEntry, Target: fixtures.Golden}}; !slices.Equal(rep.Steps, want) {
		t.Errorf("steps %v, want %v", rep.Steps, want)
	}
	if !equalTransfer(rep.Transfer, whatif.Transfer{HTTPBytes: ptr(0), CloneBytes: ptr(0)}) {
		t.Errorf("nothing rolls, so nothing moves: %+v", rep.Transfer)
	}
}

// The report's JSON has exactly the shape of `worker-image diff -o json`.
func TestDiffJSONShape(t *testing.T) {
	rep, err := whatif.Diff(whatif.Input{Pools: tenantPools()[:2], Catalog: defaultCatalog(), Snapshot: cozystack()},
		whatif.Change{Defaults: []whatif.ChartDefault{{Key: "talos.version", Value: v1137}}})
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Pools    []map[string]json.RawMessage `json:"pools"`
		Steps    []map[string]json.RawMessage `json:"steps"`
		Transfer map[string]json.RawMessage   `json:"transfer"`
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	assertKeys(t, "report", top, "pools", "steps", "transfer")
	assertKeys(t, "transfer", got.Transfer, "httpBytes", "cloneBytes")
	for _, s := range got.Steps {
		assertKeys(t, "step", s, "action", "target")
	}
	entry := []string{"namespace", "name", "outcome", "source", "golden", "installerImage", "storageClass", "warnings", "refusals", "kubevirtMachineTemplate", "neededGolden", "goldenState"}
	for _, p := range got.Pools {
		assertKeys(t, "pool", p, "namespace", "name", "rolls", "before", "after")
		var before, after map[string]json.RawMessage
		if err := json.Unmarshal(p["before"], &before); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(p["after"], &after); err != nil {
			t.Fatal(err)
		}
		assertKeys(t, "before", before, append(slices.Clone(entry), "disk", "workers")...)
		if _, planned := after["disk"]; planned {
			assertKeys(t, "after", after, append(slices.Clone(entry), "disk")...)
		} else {
			assertKeys(t, "after", after, entry...)
		}
	}
}

func assertKeys(t *testing.T, what string, m map[string]json.RawMessage, keys ...string) {
	t.Helper()
	var got []string
	for k := range m {
		got = append(got, k)
	}
	slices.Sort(got)
	slices.Sort(keys)
	if !slices.Equal(got, keys) {
		t.Errorf("%s keys %v, want %v", what, got, keys)
	}
}

// Workers are counted from the pool's disks only where the pool's
// namespace's DataVolumes and PVCs were read; otherwise the rollout's
// transfer is not known, rather than zero.
func TestDiffTransferNotKnownOffline(t *testing.T) {
	rep, err := whatif.Diff(whatif.Input{Pools: tenantPools()[1:2], Catalog: defaultCatalog()},
		whatif.Change{Defaults: []whatif.ChartDefault{{Key: "talos.version", Value: v1137}}})
	if err != nil {
		t.Fatal(err)
	}
	p := rep.Pools[0]
	if !p.Rolls || p.Workers != nil {
		t.Errorf("demo-md1 rolls (%t) with workers not counted (known %t)", p.Rolls, p.Workers != nil)
	}
	want := whatif.Transfer{CloneBytes: ptr(0), Unverified: []string{tenant + "/demo-md1"}}
	if !equalTransfer(rep.Transfer, want) {
		t.Errorf("transfer %+v, want %+v", rep.Transfer, want)
	}
	data, err := json.Marshal(rep.Transfer)
	if err != nil || string(data) != `{"httpBytes":null,"cloneBytes":0}` {
		t.Errorf("transfer JSON %s, %v: a figure not known is null", data, err)
	}
}

// With the platform's values the names are the chart's: a pool that rolls
// gets a new one, a pool that does not keeps its own; a pool refused until
// the steps add its entry is named as it will render then. The cluster's
// templates are not read, so the names before are the values' too
// (TestDiffLiveTemplates reads them).
func TestDiffTemplateNames(t *testing.T) {
	cozystack := func() *state.Snapshot { return cozystackObserved(state.AllKinds &^ state.KubevirtMachineTemplate) }
	pf, err := whatif.NewPlatform(map[string]any{"_cluster": map[string]any{"ephemeral-storage-allocation-ratio": "40"}})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := whatif.Diff(whatif.Input{Pools: tenantPools(), Catalog: defaultCatalog(), Snapshot: cozystack(), Platform: pf},
		whatif.Change{Defaults: []whatif.ChartDefault{{Key: "talos.version", Value: v1137}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Pools {
		b, a := p.Before.Template, p.After.Template
		if b.Name == "" || a.Name == "" || b.From != whatif.FromValues || a.From != whatif.FromValues {
			t.Errorf("%s: template %+v → %+v: both are known", p.Name, b, a)
		}
		if (b.Name != a.Name) != p.Rolls {
			t.Errorf("%s: rolls %t, template %s → %s", p.Name, p.Rolls, b.Name, a.Name)
		}
	}
	// The chart names it so (Helm v4.1.1, the pre-feature chart).
	if got := byName(t, rep, "demo-md1").Before.Template.Name; got != "kubernetes-demo-md1-0b63f5" {
		t.Errorf("demo-md1's template before the change is %s", got)
	}
	// Without them, no name, and why.
	rep, err = whatif.Diff(whatif.Input{Pools: tenantPools(), Catalog: defaultCatalog(), Snapshot: cozystack()}, whatif.Change{})
	if err != nil {
		t.Fatal(err)
	}
	if tn := rep.Pools[0].Before.Template; tn.Name != "" || tn.Unknown != whatif.PlatformNotGiven {
		t.Errorf("without the platform's values: %+v", tn)
	}
}

// A pool's template in the cluster is its template before the change: one
// is the one; of several (mid-rollout), the one its values render if it is
// there, else the newest, the one the chart last wrote; none leaves it
// unknown. A pool's templates are found by their CAPI label, so a sibling
// pool's (demo-md1-large) are not demo-md1's, nor a template of another
// namespace. The change, a new default instanceType, does not reach
// demo-md1, which sets its own: it rolls only where its live template is
// not what its values render.
func TestDiffLiveTemplates(t *testing.T) {
	pf, err := whatif.NewPlatform(map[string]any{"_cluster": map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	// What demo-md1's values render, as the chart names it.
	const rendered = "kubernetes-demo-md1-0b63f5"
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	tmpl := func(namespace, pool, name string, age int) client.Object {
		t := &capk.KubevirtMachineTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name,
			CreationTimestamp: metav1.NewTime(t0.Add(-time.Duration(age) * time.Hour))}}
		vm := &t.Spec.Template.Spec.VirtualMachineTemplate.Spec
		vm.Template = &capk.InstanceTemplate{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{naming.DeploymentNameLabel: naming.PoolCAPIName(pool)}}}
		return t
	}
	sibling := tmpl(tenant, "demo-md1-large", "kubernetes-demo-md1-large-abcdef", 0)
	cases := map[string]struct {
		reason    string
		templates []client.Object
		want      whatif.TemplateName
		rolls     bool
	}{
		"one": {"the pool's one template, whatever its hash", []client.Object{tmpl(tenant, "demo-md1", "kubernetes-demo-md1-0a0a0a", 1), sibling},
			whatif.TemplateName{Name: "kubernetes-demo-md1-0a0a0a", From: whatif.FromCluster}, true},
		"rendered among several": {"the one the values render, though older", []client.Object{tmpl(tenant, "demo-md1", "kubernetes-demo-md1-0a0a0a", 1), tmpl(tenant, "demo-md1", rendered, 2)},
			whatif.TemplateName{Name: rendered, From: whatif.FromCluster}, false},
		"several, none rendered": {"the newest", []client.Object{tmpl(tenant, "demo-md1", "kubernetes-demo-md1-0a0a0a", 2), tmpl(tenant, "demo-md1", "kubernetes-demo-md1-0b0b0b", 1)},
			whatif.TemplateName{Name: "kubernetes-demo-md1-0b0b0b", From: whatif.FromCluster}, true},
		"another namespace": {"a template of another namespace is not the pool's: it has none, and keeps the name its values render", []client.Object{tmpl("tenant-other", "demo-md1", "kubernetes-demo-md1-0a0a0a", 1), sibling},
			whatif.TemplateName{Name: rendered, From: whatif.FromValues}, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rep, err := whatif.Diff(whatif.Input{Pools: tenantPools()[1:2], Snapshot: cozystack(tc.templates...), Platform: pf},
				whatif.Change{Defaults: []whatif.ChartDefault{{Key: "instanceType", Value: "u1.xlarge"}}})
			if err != nil {
				t.Fatal(err)
			}
			p := rep.Pools[0]
			if p.Before.Template != tc.want || p.Rolls != tc.rolls {
				t.Errorf("%s: %+v (rolls %t), want %+v (rolls %t)", tc.reason, p.Before.Template, p.Rolls, tc.want, tc.rolls)
			}
		})
	}
	// Templates not observed in the pool's namespace: the name is the one
	// its values render, not the cluster's.
	rep, err := whatif.Diff(whatif.Input{Pools: tenantPools()[1:2], Snapshot: cozystackObserved(state.AllKinds&^state.KubevirtMachineTemplate,
		tmpl(tenant, "demo-md1", "kubernetes-demo-md1-0a0a0a", 1)), Platform: pf}, whatif.Change{})
	if err != nil {
		t.Fatal(err)
	}
	if tn := rep.Pools[0].Before.Template; tn.Name != rendered || tn.From == whatif.FromCluster {
		t.Errorf("templates unobserved: %+v, want %s as rendered", tn, rendered)
	}
}

// Pools are paired by namespace and name: one the change adds has no side
// before, one it removes none after; neither rolls. A pool named twice is
// refused, as is every bad default, together.
func TestDiffPairs(t *testing.T) {
	added := whatif.PoolValues{Namespace: tenant, Name: "demo-new", Spec: map[string]any{"cluster": "demo"}}
	rep, err := whatif.Diff(whatif.Input{Pools: tenantPools()[:2], Catalog: defaultCatalog(), Snapshot: cozystack()},
		whatif.Change{Pools: []whatif.PoolValues{tenantPools()[1], added}})
	if err != nil {
		t.Fatal(err)
	}
	if md0 := byName(t, rep, "demo-md0"); md0.After != nil || md0.Rolls {
		t.Errorf("demo-md0 is removed: %+v", md0)
	}
	if n := byName(t, rep, "demo-new"); n.Before != nil || n.Rolls || n.After.Outcome != plan.Planned {
		t.Errorf("demo-new is added: %+v", n)
	}
	if data, err := json.Marshal(byName(t, rep, "demo-md0")); err != nil || !json.Valid(data) {
		t.Errorf("a removed pool's JSON: %s, %v", data, err)
	}
	twice := append(tenantPools(), tenantPools()[0])
	_, err = whatif.Diff(whatif.Input{Pools: twice}, whatif.Change{Defaults: []whatif.ChartDefault{{Key: "talos.nope"}}})
	if rs := fixtures.Refusals(err); !slices.Equal(reasons(rs), []guard.Reason{guard.InvalidValue, guard.InvalidPoolName}) {
		t.Errorf("error %v: both refusals, the default's and the pool's", err)
	}
}
