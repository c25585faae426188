package plan

import (
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/charttext"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// Entry is what a renderer writes of a planned pool: the disk-system
// dataVolumeTemplates entry as the kubernetes-nodes chart renders it, and
// what the chart writes beside it.
type Entry struct {
	Namespace, Name string
	Source          Source
	// Golden is the golden's name on the clone path, "" on the HTTP path.
	Golden string
	// InstallerImage is the in-guest upgrade installer, from the pool's
	// effective flavor.
	InstallerImage string
	// Text is the entry, its "- metadata:" line at the chart's indentation
	// (6 spaces, helm.ChartIndent), each line ending in "\n".
	Text     string
	Warnings guard.Warnings
}

// PlanEntry plans a pool as Plan does and writes its disk-system entry as
// helm.DiskText writes Plan's result at the chart's indentation: the same
// guards, the same warnings, and, for a refused pool, the same error (its
// refusals) with no text. A renderer that writes the chart's text and not
// the DataVolume object calls it: it never builds the object, whose maps
// are about half of a plan's time.
func PlanEntry(pool Pool, cat *catalog.Catalog, snap *state.Snapshot) (Entry, error) {
	p := newPlanner(pool, cat, snap)
	var d charttext.Disk
	p.text = &d
	p.run()
	e := Entry{Namespace: pool.Namespace, Name: pool.Name, Warnings: p.res.Warnings}
	if p.res.Outcome != Planned {
		return e, p.res.Refusals.Err()
	}
	e.Source, e.Golden, e.InstallerImage = p.res.Source, p.res.Golden, p.res.InstallerImage
	e.Text = d.Text(charttext.Indent)
	return e, nil
}
