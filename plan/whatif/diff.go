package whatif

import (
	"crypto/sha256"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/chartvalues"
	"github.com/cozystack/kubernetes-worker-image/internal/findings"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/plan/state/capk"
)

// PoolValues is a pool as its values: a KubernetesNodes resource's
// namespace, name and spec (the kubernetes-nodes chart's values as Helm
// holds them, read as DecodePool reads them). Diff takes pools so, because
// a new chart default applies to the values, only where a pool does not
// set the key, and the KubevirtMachineTemplate's name hashes values the
// disk does not hold.
type PoolValues struct {
	Namespace string
	Name      string
	Spec      any
}

// PoolValuesFromObject reads a KubernetesNodes object, as PoolFromObject
// does, keeping its spec as given.
func PoolValuesFromObject(obj map[string]any) (PoolValues, error) {
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	if apiVersion != plan.PoolAPIVersion || kind != plan.PoolKind {
		return PoolValues{}, fmt.Errorf("the object is %s %s, not a %s of %s", orNone(apiVersion), orNone(kind), plan.PoolKind, plan.PoolAPIVersion)
	}
	meta, _ := chartvalues.Map(obj["metadata"])
	namespace, _ := meta["namespace"].(string)
	name, _ := meta["name"].(string)
	return PoolValues{Namespace: namespace, Name: name, Spec: obj["spec"]}, nil
}

// DefaultImageSize is what one import of the Talos worker image pulls over
// HTTP (about 4.15 GiB), and what a storage-layer clone of its golden
// moves.
// Input.ImageSize takes it when zero.
const DefaultImageSize = "4.15Gi"

// Input is what both plans of Diff share: the pools and the catalog
// before the change, and the cluster as it is.
type Input struct {
	// Pools are the pools before the change.
	Pools []PoolValues
	// Catalog is the catalog before the change; nil is an empty, disabled
	// one.
	Catalog *catalog.Catalog
	// Snapshot is the cluster's state, the same for both plans; nil knows
	// nothing of the cluster.
	Snapshot *state.Snapshot
	// Platform is the platform's values every pool release merges; nil
	// when they are not known, and then no template name is computed.
	Platform *Platform
	// Platforms are the platform's values of each namespace (each
	// tenant's cozystack-values Secret), by namespace; a pool whose
	// namespace has an entry takes it instead of Platform.
	Platforms map[string]*Platform
	// ImageSize is the bytes one HTTP import pulls and one clone moves;
	// zero is DefaultImageSize.
	ImageSize resource.Quantity
	// Decide, when set, decides every plan before it is compared: a
	// caller that refuses more than Plan does (the CLI's --strict refuses
	// StateUnverified) returns the plan refused, so that the pool neither
	// rolls nor gets a step. It must not turn a refused plan into a planned
	// one.
	Decide func(plan.Result) plan.Result
}

// Change is what moves between the two plans of Diff. Each part left zero
// keeps what Input holds.
type Change struct {
	// Pools replace the pools before the change, all of them: a pool of
	// Input.Pools missing here is removed, a new one added. Nil keeps
	// Input.Pools.
	Pools []PoolValues
	// Catalog replaces the catalog; nil keeps Input.Catalog.
	Catalog *catalog.Catalog
	// Defaults are new chart defaults, applied to every pool after the
	// change (ChartDefault says how).
	Defaults []ChartDefault
}

// Report is what a change does to the pools.
//
// It marshals with encoding/json to the shape of `worker-image diff -o
// json`: {"pools":[{"namespace","name","rolls","before","after"}],
// "steps":[{"action","target"}],"transfer":{"httpBytes","cloneBytes"}},
// each side a plan entry (Result's JSON) with its "kubevirtMachineTemplate",
// "neededGolden" and "goldenState", the side before also its "workers"; a
// side is null when the pool is not there.
type Report struct {
	// Pools are in the order of the pools before the change, the added
	// ones after them, and every pool whose plan after the change is
	// refused first.
	Pools    []PoolDiff `json:"pools"`
	Steps    []Step     `json:"steps"`
	Transfer Transfer   `json:"transfer"`
}

// Refused reports whether any pool's plan after the change is refused.
func (r *Report) Refused() bool {
	for _, p := range r.Pools {
		if p.After != nil && p.After.Outcome == plan.Refused {
			return true
		}
	}
	return false
}

// PoolDiff is one pool before and after the change.
type PoolDiff struct {
	Namespace string
	Name      string
	// Rolls reports whether the change re-images the pool's workers: its
	// KubevirtMachineTemplate's text changes, and with it its name, once
	// the report's steps are done, or its Kubernetes version moves (the
	// MachineDeployment's). A pool whose plan after the change stays
	// refused even then does not roll: its release fails. What the chart's
	// files decide (its map of Kubernetes minor versions to patch
	// versions, which moves with Cozystack releases and rolls every pool)
	// is not in the values, and not seen.
	Rolls bool
	// Before and After are nil where the pool is not there.
	Before, After *Side
	// Workers is the pool's worker count from its disks in the cluster;
	// nil when its namespace's DataVolumes and PVCs were not observed.
	Workers *int
}

// Side is a pool's plan on one side of the change.
type Side struct {
	plan.Result
	// Template is the pool's KubevirtMachineTemplate.
	Template TemplateName
	// GoldenState is the state of the golden the pool clones (Result.Golden,
	// or for a refused plan the golden its values name); "" on the HTTP
	// path.
	GoldenState GoldenState
	// NeededGolden is that golden's name ("" on the HTTP path): unlike
	// Result.Golden, it is set for a refused plan too.
	NeededGolden string
	// KubernetesVersion is the pool's own version value as the chart
	// prints it, "" when it takes the chart's default: CAPI replaces every
	// Machine of a MachineDeployment whose version changes, so a pool
	// whose version moves rolls whatever its template does.
	KubernetesVersion string
	// populated: the golden is populated in the cluster, whatever the
	// catalog says (one the change retires still is).
	populated bool
	// stuck: the plan is refused for more than the entry the steps add.
	stuck bool
}

// TemplateName is a KubevirtMachineTemplate's name, or why it is not
// known.
type TemplateName struct {
	// Name is "" when it is not known.
	Name string
	// From says where Name comes from.
	From TemplateFrom
	// Unknown says why Name is not known.
	Unknown string
}

// PlatformNotGiven is TemplateName.Unknown when Input.Platform is nil.
const PlatformNotGiven = "the template holds the platform's values (the _cluster of a tenant's cozystack-values Secret: its ephemeral-storage allocation ratio and topology spread constraints), which were not given"

// TemplateFrom says where a template name comes from.
type TemplateFrom string

const (
	// FromValues: the chart's hash of the define, rendered from the pool's
	// values, its disk and the platform's values.
	FromValues TemplateFrom = "values"
	// FromCluster: the pool's template in the cluster.
	FromCluster TemplateFrom = "cluster"
)

// Step is one thing to do before, or as, the change lands.
type Step struct {
	Action StepAction `json:"action"`
	// Target is a golden's name, or a pool's "<namespace>/<name>".
	Target string `json:"target"`
}

// StepAction is what a step does.
type StepAction string

const (
	// AddCatalogEntry: add the golden's (schematicID, version) to the
	// catalog after the change (or enable it), or keep the entry the change
	// retires while pools still clone it.
	AddCatalogEntry StepAction = "add-catalog-entry"
	// WaitForGolden: wait until the golden's import succeeds; CDI holds the
	// disks of the workers that clone it until then.
	WaitForGolden StepAction = "wait-for-golden"
	// RollPool: let the pool's release roll its workers onto the new
	// template.
	RollPool StepAction = "roll-pool"
)

// Transfer is what the rollout moves: the bytes the re-imaged workers pull
// from an Image Factory over HTTP (with each golden's one import that has
// still to happen), against the bytes storage-layer clones move. Each is
// image size × workers; a figure is not known (nil) when a rolling pool's
// workers could not be counted. Its JSON is {"httpBytes","cloneBytes"},
// null where not known.
type Transfer struct {
	HTTPBytes  *int64 `json:"httpBytes"`
	CloneBytes *int64 `json:"cloneBytes"`
	// Unverified names the rolling pools whose workers were not counted,
	// and the pools whose golden's state is not known (whether it has to
	// be imported is not).
	Unverified []string `json:"-"`
}

// Diff plans every pool twice, before and after ch, against the same
// cluster, and says which pools roll, what must happen first, and what the
// rollout moves. It does no I/O and changes none of its inputs. The error
// is for a change it cannot make (a default at a key the chart does not
// define) or pools it cannot pair (one named twice): guard.Refusals.Err of
// a refusal for each, nil otherwise. Refused plans are not errors: they are in the
// report (Report.Refused).
//
// For example a Cozystack upgrade that moves talos.version is
// Diff(in, Change{Defaults: []ChartDefault{{Key: "talos.version", Value:
// "v1.13.7"}}}): every pool that takes the chart's talos.version rolls, the
// HTTP ones onto the new URL, the builtin ones onto the new flavor's golden,
// whose catalog entry the steps add, and wait for, before those pools roll.
func Diff(in Input, ch Change) (Report, error) {
	rs := checkDefaults(ch.Defaults)
	rs = append(rs, distinct(in.Pools, "the pools before the change")...)
	if ch.Pools != nil {
		rs = append(rs, distinct(ch.Pools, "the pools after the change")...)
	}
	if err := rs.Err(); err != nil {
		return Report{}, err
	}
	d := differ{in: in, before: in.Catalog, after: ch.Catalog, snap: in.Snapshot, size: in.ImageSize}
	if d.before == nil {
		d.before = emptyCatalog
	}
	if d.after == nil {
		d.after = d.before
	}
	if d.snap == nil {
		d.snap = emptySnapshot
	}
	if d.size.IsZero() {
		d.size = resource.MustParse(DefaultImageSize)
	}
	d.platform = platformOf(in.Platform)
	if len(in.Platforms) > 0 {
		d.platforms = make(map[string]platformChoice, len(in.Platforms))
		for ns, p := range in.Platforms {
			d.platforms[ns] = platformOf(p)
		}
	}
	d.workers = indexWorkers(d.snap)
	return d.diff(in.Pools, changed(in.Pools, ch)), nil
}

// platformChoice is the platform's part of a pool's define, and why its
// template name is not known ("" when it is).
type platformChoice struct {
	parts platformParts
	why   string
}

// platformOf is p's part of the define; the chart's own, with why, when p
// is nil or the chart cannot render it.
func platformOf(p *Platform) platformChoice {
	if p == nil {
		return platformChoice{parts: chartPlatform, why: PlatformNotGiven}
	}
	parts, why := p.parts()
	if why != "" {
		parts = chartPlatform
	}
	return platformChoice{parts: parts, why: why}
}

// changed are the pools after ch: its pools, or those before it, with its
// defaults applied.
func changed(pools []PoolValues, ch Change) []PoolValues {
	if ch.Pools != nil {
		pools = ch.Pools
	}
	out := make([]PoolValues, len(pools))
	for i, p := range pools {
		for _, def := range ch.Defaults {
			p.Spec = def.apply(p.Spec)
		}
		out[i] = p
	}
	return out
}

// distinct refuses a pool named twice: Diff pairs pools by name.
func distinct(pools []PoolValues, which string) guard.Refusals {
	seen := make(map[[2]string]bool, len(pools))
	var rs guard.Refusals
	for _, p := range pools {
		k := [2]string{p.Namespace, p.Name}
		if seen[k] {
			r := findings.NewRefusal(guard.InvalidPoolName, field.NewPath("metadata", "name"), p.Name,
				"%s name pool %s/%s twice; a pool is one KubernetesNodes, so remove one of them", which, p.Namespace, p.Name)
			r.Subject = "pool " + p.Namespace + "/" + p.Name
			rs = append(rs, r)
		}
		seen[k] = true
	}
	return rs
}

// differ is one run of Diff.
type differ struct {
	in            Input
	before, after *catalog.Catalog
	snap          *state.Snapshot
	size          resource.Quantity
	platform      platformChoice
	platforms     map[string]platformChoice
	workers       workerIndex
	// beforeSteps and afterSteps complete each side's catalog.
	beforeSteps, afterSteps completion
	// buf holds each template's text while it is hashed.
	buf []byte
}

// completion is a catalog and the entries its pools need that it does not
// serve: with them (withEntries), as the steps add them, the plans it
// refuses for them stand.
type completion struct {
	cat     *catalog.Catalog
	missing []catalog.Flavor
	seen    map[catalog.Flavor]bool
	// done is cat with the missing entries, built when a plan needs it.
	done *catalog.Catalog
}

// need records a golden, of flavor f, that a side needs and its catalog
// does not serve.
func (c *completion) need(s *side, f catalog.Flavor) {
	if s.GoldenState != NotInCatalog || c.seen[f] {
		return
	}
	if c.seen == nil {
		c.seen = map[catalog.Flavor]bool{}
	}
	c.seen[f] = true
	c.missing = append(c.missing, f)
}

// withEntries is the catalog, enabled, with an entry for every missing
// flavor, taking the catalog's own imageFactoryURL, storage and
// storageClass.
func (c *completion) withEntries() *catalog.Catalog {
	if c.done == nil {
		v := c.cat.Values()
		v.Enabled = true
		v.Images = append([]catalog.Image{}, v.Images...)
		for _, f := range c.missing {
			v.Images = append(v.Images, catalog.Image{Flavor: f})
		}
		c.done = catalog.Compile(v)
	}
	return c.done
}

// side is one pool's plan on one side, and what it renders.
type side struct {
	values PoolValues
	pool   plan.Pool
	Side
	// sum is the sha256 of the define's text, with the platform's part as
	// given or, when it is not known, the chart's, so that two sides
	// compare; rendered says whether it was. disk is the disk-system
	// entry's text.
	sum      [sha256.Size]byte
	rendered bool
	disk     string
	// steps completes the catalog the side was planned against.
	steps *completion
}

func (d *differ) diff(beforeValues, afterValues []PoolValues) Report {
	type pair struct{ before, after *side }
	index := map[[2]string]int{}
	var pairs []pair
	d.beforeSteps.cat, d.afterSteps.cat = d.before, d.after
	for _, v := range beforeValues {
		s := d.plan(v, &d.beforeSteps)
		index[[2]string{v.Namespace, v.Name}] = len(pairs)
		pairs = append(pairs, pair{before: s})
	}
	for _, v := range afterValues {
		s := d.plan(v, &d.afterSteps)
		if i, ok := index[[2]string{v.Namespace, v.Name}]; ok {
			pairs[i].after = s
			continue
		}
		pairs = append(pairs, pair{after: s})
	}
	rep := Report{Pools: make([]PoolDiff, 0, len(pairs))}
	for _, p := range pairs {
		rep.Pools = append(rep.Pools, d.compare(p.before, p.after))
	}
	// Refused after the change first, each group in order.
	slices.SortStableFunc(rep.Pools, func(a, b PoolDiff) int {
		return refusedRank(a) - refusedRank(b)
	})
	rep.Steps = steps(rep.Pools)
	rep.Transfer = transfer(rep.Pools, d.size.Value())
	return rep
}

func refusedRank(p PoolDiff) int {
	if p.After != nil && p.After.Outcome == plan.Refused {
		return 0
	}
	return 1
}

// plan plans v against steps' catalog and renders what the chart would.
func (d *differ) plan(v PoolValues, steps *completion) *side {
	s := &side{values: v, pool: plan.DecodePool(v.Namespace, v.Name, v.Spec), steps: steps}
	s.Result = d.decide(s.pool, steps.cat)
	s.KubernetesVersion = kubernetesVersion(v.Spec)
	var f catalog.Flavor
	s.NeededGolden, f = builtinGolden(&s.pool.Spec, s.Golden)
	if s.NeededGolden != "" {
		s.GoldenState, s.populated = goldenState(s.NeededGolden, f, steps.cat, d.snap)
		steps.need(s, f)
	}
	s.render(s.Result, d)
	return s
}

// decide plans pool against cat, as Input.Decide decides it.
func (d *differ) decide(pool plan.Pool, cat *catalog.Catalog) plan.Result {
	r, _ := plan.Plan(pool, cat, d.snap)
	if d.in.Decide == nil {
		return r
	}
	if dr := d.in.Decide(r); dr.Outcome == plan.Refused || r.Outcome != plan.Refused {
		return dr
	}
	return r // a refused plan stays refused whatever Decide returns
}

// render renders the define of r, a plan of s's pool (its own, or its
// plan once the steps are done).
func (s *side) render(r plan.Result, d *differ) {
	s.rendered, s.disk = false, ""
	platform := d.platform
	if p, ok := d.platforms[s.pool.Namespace]; ok {
		platform = p
	}
	t, why := template(r, s.values.Spec, s.pool.Spec.Cluster, platform.parts)
	s.disk = t.Disk
	if why != "" {
		s.Template = TemplateName{Unknown: why}
		return
	}
	s.sum, d.buf = t.Sum(d.buf)
	s.rendered = true
	if platform.why != "" {
		s.Template = TemplateName{Unknown: platform.why}
		return
	}
	s.Template = TemplateName{Name: t.Name(s.sum), From: FromValues}
}

// compare pairs a pool's two sides.
func (d *differ) compare(before, after *side) PoolDiff {
	var pd PoolDiff
	for _, s := range []*side{before, after} {
		if s != nil {
			pd.Namespace, pd.Name = s.values.Namespace, s.values.Name
		}
	}
	if n, ok := d.workers.workers(d.snap, pd.Namespace, pd.Name); ok {
		pd.Workers = &n
	}
	if before != nil {
		// Compared as the after side is, once its catalog has what it
		// needs; its template stays the one it has.
		template := before.Template
		d.stepsDone(before)
		before.Template = template
		d.live(before)
		pd.Before = &before.Side
	}
	if after != nil {
		d.stepsDone(after)
		pd.After = &after.Side
	}
	if before != nil && after != nil {
		pd.Rolls = rolls(before, after)
	}
	return pd
}

// live names the pool's template before the change from the cluster, when
// the snapshot observed the templates of its namespace
// (state.Snapshot.PoolTemplates, by the pool's CAPI labels): of several (a
// pool mid-rollout), the one its values render if it is there, else the
// newest (state.Snapshot.PoolTemplate, the one the chart last wrote). A
// pool with none (not applied yet) keeps the name its values render.
func (d *differ) live(s *side) {
	snap := d.in.Snapshot
	if snap == nil || !stateindex.Of(snap).CoversNamespace(state.KubevirtMachineTemplate, s.values.Namespace) {
		return
	}
	ts := stateindex.Of(snap).PoolTemplates(s.values.Namespace, naming.PoolCAPIName(s.values.Name))
	switch {
	case len(ts) == 0:
	case s.Template.Name != "" && slices.ContainsFunc(ts, func(t *capk.KubevirtMachineTemplate) bool { return t.Name == s.Template.Name }):
		s.Template.From = FromCluster
	default:
		s.Template = TemplateName{Name: ts[0].Name, From: FromCluster}
	}
}

// stepsDone renders a plan refused only for the catalog entry it lacks as
// it will be once the steps have added it: what the pool rolls onto then.
// Its Result stays the refused plan.
//
// A plan the steps do not fix (refused for anything but the entry, or
// still refused once they have added it: a disk smaller than the new
// golden, say) is stuck: its refusals are those of both plans, the entry's
// and what stays, and it gets no step and does not roll.
func (d *differ) stepsDone(s *side) {
	if s.Outcome != plan.Refused {
		return
	}
	if s.GoldenState != NotInCatalog || !refusedOnlyFor(s.Refusals, guard.GoldenNotInCatalog) {
		// Refused for what no step fixes.
		s.stuck = true
		return
	}
	r := d.decide(s.pool, s.steps.withEntries())
	if r.Outcome != plan.Planned {
		s.stuck = true
		s.Refusals = append(slices.Clone(s.Refusals), r.Refusals...)
		return
	}
	s.render(r, d)
}

// refusedOnlyFor reports whether every refusal is of reason.
func refusedOnlyFor(rs guard.Refusals, reason guard.Reason) bool {
	for _, r := range rs {
		if r.Reason != reason {
			return false
		}
	}
	return len(rs) > 0
}

// rolls reports whether a pool's workers are re-imaged: its template's
// text changes, or its Kubernetes version. The template is compared whole, by the sha256 of its text,
// where both sides render it (with the same platform values on both sides,
// so the platform cannot make a difference appear or vanish); against the
// pool's template in the cluster where that is known; where the pool's
// values do not render it, by the disk-system entry alone. A pool whose plan after the change is
// refused, even once the steps are done, does not roll (its release
// fails); one refused before rolls onto whatever it renders after.
func rolls(before, after *side) bool {
	switch {
	case after.disk == "" || after.stuck:
		return false
	case before.disk == "":
		return true
	case before.KubernetesVersion != after.KubernetesVersion:
		// The MachineDeployment's spec.template.spec.version is the
		// chart's kubernetes.versionMap of it (nodegroup.yaml), and CAPI
		// rolls a MachineDeployment whose template changes.
		return true
	case before.Template.From == FromCluster && after.Template.Name != "":
		return before.Template.Name != after.Template.Name
	case before.rendered && after.rendered:
		return before.sum != after.sum
	}
	return before.disk != after.disk
}

// Needs says what Diff(Input{Pools: pools, …}, ch) reads of the
// cluster, so an adapter reads exactly that: what each pool's plan reads,
// before and after the change, and every pool namespace's DataVolumes and
// PVCs, which its workers are counted from.
func Needs(pools []PoolValues, ch Change) state.Request {
	var decoded []plan.Pool
	var r state.Request
	add := func(v PoolValues) {
		decoded = append(decoded, plan.DecodePool(v.Namespace, v.Name, v.Spec))
		r.Lists = append(r.Lists, state.Ref{Kind: state.DataVolume, Namespace: v.Namespace}, state.Ref{Kind: state.PersistentVolumeClaim, Namespace: v.Namespace})
	}
	for _, v := range pools {
		add(v)
	}
	for _, v := range changed(pools, ch) {
		add(v)
	}
	return r.Merge(plan.NeedsAll(decoded)).Merge(plan.TemplateNeeds(decoded))
}

// kubernetesVersion is a pool's version value as the chart prints it, ""
// when the pool does not set it (the chart's default, the same on both
// sides of a change that moves no default at version). A null prints as
// "<nil>", apart from the default: the chart's versionMap then fails.
func kubernetesVersion(spec any) string {
	m, ok := chartvalues.Map(spec)
	if !ok {
		return ""
	}
	v, present := m["version"]
	if !present {
		return ""
	}
	if v == nil {
		return "<nil>"
	}
	return chartvalues.Print(v)
}

// orNone is s, or "" in quotes when it is empty, for a message.
func orNone(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

var (
	emptySnapshot = state.NewSnapshot(nil)
	emptyCatalog  = catalog.Compile(catalog.Values{Images: []catalog.Image{}})
)
