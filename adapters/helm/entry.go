package helm

import (
	"encoding/json"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/charttext"
	"github.com/cozystack/kubernetes-worker-image/internal/diskentry"
	"github.com/cozystack/kubernetes-worker-image/internal/parallel"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// Entry is what a renderer writes of a pool's plan: the plan, without the
// DataVolume object (Disk is empty: its text is Text), and the disk-system
// dataVolumeTemplates entry as the kubernetes-nodes chart renders it. A
// refused pool (Refusals not empty) has only Namespace, Name, Outcome,
// Warnings and Refusals set; Refusals.Err() is the error PlanEntry
// returned. It marshals with encoding/json in the shape of plan.Result's
// fields namespace, name, outcome, source, golden, installerImage, warnings
// and refusals, the disk's text in "text".
type Entry struct {
	plan.Result
	// Text is the entry, its "- metadata:" line at ChartIndent, each line
	// ending in "\n".
	Text string
}

// MarshalJSON writes the entry: the plan's fields a renderer reads, and the
// text.
func (e Entry) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Namespace      string         `json:"namespace"`
		Name           string         `json:"name"`
		Outcome        plan.Outcome   `json:"outcome"`
		Source         plan.Source    `json:"source"`
		Golden         string         `json:"golden"`
		InstallerImage string         `json:"installerImage"`
		Text           string         `json:"text"`
		Warnings       guard.Warnings `json:"warnings"`
		Refusals       guard.Refusals `json:"refusals"`
	}{e.Namespace, e.Name, e.Outcome, e.Source, e.Golden, e.InstallerImage, e.Text, e.Warnings, e.Refusals})
}

// PlanEntry is a renderer's one call: it plans a pool as plan.Plan does
// (the same guards, the same warnings and, for a refused pool, the same
// refusals and error, with no text) and writes its disk-system entry as
// DiskText writes plan.Plan's result at ChartIndent. It never builds the
// DataVolume object, whose maps are about half of a plan's time. For
// example, a pool with no osImage gets the pre-feature chart's HTTP entry,
// byte for byte; a pool that sets both osImage.builtin and
// osImage.factory gets no text and a guard.ConflictingImageSource
// refusal.
func PlanEntry(pool plan.Pool, cat *catalog.Catalog, snap *state.Snapshot) (Entry, error) {
	r, d := diskentry.Plan[plan.Pool, *catalog.Catalog, *state.Snapshot, plan.Result](pool, cat, snap)
	if r.Outcome != plan.Planned {
		e := Entry{Result: plan.Result{Namespace: r.Namespace, Name: r.Name, Outcome: r.Outcome, Warnings: r.Warnings, Refusals: r.Refusals}}
		return e, e.Refusals.Err()
	}
	e := Entry{Result: r, Text: charttext.DiskText(&d, charttext.Indent)}
	return e, e.Refusals.Err()
}

// PlanEntries is PlanEntry for many pools, as plan.PlanAll is plan.Plan:
// the entries in the pools' order, a fleet of more than a hundred or so
// pools planned on every processor.
func PlanEntries(pools []plan.Pool, cat *catalog.Catalog, snap *state.Snapshot) []Entry {
	out := make([]Entry, len(pools))
	parallel.For(len(pools), func(i int) {
		out[i], _ = PlanEntry(pools[i], cat, snap)
	})
	return out
}
