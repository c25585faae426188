package plan

import (
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/charttext"
	"github.com/cozystack/kubernetes-worker-image/internal/parallel"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// Entry is what a renderer writes of a pool's plan: the disk-system
// dataVolumeTemplates entry as the kubernetes-nodes chart renders it, and
// what the chart writes beside it. A refused pool (Refusals not empty) has
// only Namespace, Name, Outcome, Warnings and Refusals set. It marshals
// with encoding/json in the shape of Result's fields of the same names,
// the disk's text in "text".
type Entry struct {
	Namespace string  `json:"namespace"`
	Name      string  `json:"name"`
	Outcome   Outcome `json:"outcome"`
	Source    Source  `json:"source"`
	// Golden is the golden's name on the clone path, "" on the HTTP path.
	Golden string `json:"golden"`
	// InstallerImage is the in-guest upgrade installer, from the pool's
	// effective flavor.
	InstallerImage string `json:"installerImage"`
	// Text is the entry, its "- metadata:" line at the chart's indentation
	// (6 spaces, helm.ChartIndent), each line ending in "\n".
	Text     string         `json:"text"`
	Warnings guard.Warnings `json:"warnings"`
	// Refusals are every refusal, nil when planned; Refusals.Err() is the
	// error PlanEntry returned.
	Refusals guard.Refusals `json:"refusals"`
}

// PlanEntry plans a pool as Plan does and writes its disk-system entry as
// helm.DiskText writes Plan's result at the chart's indentation: the same
// guards, the same warnings, and, for a refused pool, the same refusals
// (and error) with no text. A renderer that writes the chart's text and
// not the DataVolume object calls it: it never builds the object, whose
// maps are about half of a plan's time.
func PlanEntry(pool Pool, cat *catalog.Catalog, snap *state.Snapshot) (Entry, error) {
	p := newPlanner(pool, cat, snap)
	p.textOnly = true
	p.run()
	r := &p.res
	e := Entry{Namespace: r.Namespace, Name: r.Name, Outcome: r.Outcome, Warnings: r.Warnings, Refusals: r.Refusals}
	if r.Outcome == Planned {
		e.Source, e.Golden, e.InstallerImage = r.Source, r.Golden, r.InstallerImage
		e.Text = p.text.Text(charttext.Indent)
	}
	return e, e.Refusals.Err()
}

// PlanEntries is PlanEntry for many pools, as PlanAll is Plan: the
// entries in the pools' order, a fleet planned on every processor.
func PlanEntries(pools []Pool, cat *catalog.Catalog, snap *state.Snapshot) []Entry {
	out := make([]Entry, len(pools))
	parallel.For(len(pools), func(i int) {
		out[i], _ = PlanEntry(pools[i], cat, snap)
	})
	return out
}
