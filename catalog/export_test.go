package catalog

import "github.com/cozystack/kubernetes-worker-image/guard"

// Names the tests of package catalog_test read; unexported because no
// importer needs them: a Consumer's Kind is its Kubernetes kind, as
// state.Kind names it.
const (
	KindDataVolume              = kindDataVolume
	KindPersistentVolumeClaim   = kindPersistentVolumeClaim
	KindKubevirtMachineTemplate = kindKubevirtMachineTemplate
	KindVirtualMachine          = kindVirtualMachine
	KindDataSource              = kindDataSource
	KindKubernetesNodes         = kindKubernetesNodes
	KindHelmRelease             = kindHelmRelease
	Subject                     = subject
)

func (c *Catalog) LookupGolden(name string) (Entry, bool) { return c.lookupGolden(name) }

func (c *Catalog) Len() int { return len(c.entries) }

func (r Radius) Known() bool { return r.known() }

// Findings are what decoding the values found, as Compile keeps them
// (Catalog.Unreadable, Catalog.Warnings).
func (v Values) Findings() (guard.Refusals, guard.Warnings) {
	return clone(v.refusals), append(guard.Warnings(nil), v.warnings...)
}
