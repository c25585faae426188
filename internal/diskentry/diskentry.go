// Package diskentry carries a planned pool's disk-system entry as data,
// from package plan, which decides it, to the writers of the chart's text
// (adapters/helm, and plan/whatif for the template name): plan describes
// the disk and never writes text.
//
// A renderer that writes only the chart's text needs no DataVolume object,
// whose maps are about half of a plan's time. Package plan registers its
// object-free plan here when it is initialised (Register), and
// adapters/helm, which imports plan, calls it (Plan): the plan stays out of
// sight of importers, and its text is written where the text lives.
package diskentry

// Disk is what the disk-system entry's text is written from.
type Disk struct {
	// Name is the entry's name, disk-system.
	Name string
	// Clone writes the clone path: the golden's pvc source and the golden
	// and pool annotations. Otherwise the HTTP path: the usePopulator
	// annotation and the URL.
	Clone bool
	// UsePopulator is the HTTP path's usePopulator annotation value.
	UsePopulator string
	// URL is the HTTP path's image URL, written as given (unquoted, as the
	// chart writes it).
	URL string
	// Golden and Pool are the clone path's golden and pool annotation
	// values; PVCNamespace and PVCName its source.
	Golden, Pool          string
	PVCNamespace, PVCName string
	// Size is diskSize as the chart renders it, through quote.
	Size string
	// Class is written through quote; "" leaves the storageClassName line
	// out, as the chart's `with` does.
	Class string
}

// Func is the object-free plan: the plan of pool P against catalog C and
// snapshot S as result R, without the DataVolume object, and the disk's
// description when it is planned (returned by value, so that it stays on
// the caller's stack). The types are parameters so that this package
// imports none of the planner's (whose tests import it).
type Func[P, C, S, R any] func(pool P, cat C, snap S) (R, Disk)

var planner any

// Register records package plan's object-free plan; plan calls it once,
// when it is initialised.
func Register[P, C, S, R any](f Func[P, C, S, R]) { planner = f }

// Plan runs the registered plan. P, C, S and R are plan.Pool,
// *catalog.Catalog, *state.Snapshot and plan.Result: any other types are a
// bug that the first call reports by panicking, which every test of
// adapters/helm makes.
func Plan[P, C, S, R any](pool P, cat C, snap S) (R, Disk) {
	return planner.(Func[P, C, S, R])(pool, cat, snap)
}
