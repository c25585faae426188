package stateindex

import (
	"cmp"
	"iter"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kubevirtv1 "kubevirt.io/api/core/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/plan/state/capk"
)

// consumerIndexes are the snapshot's indexes of the kinds that clone a
// golden besides disks: templates (by name and by pool), VirtualMachines
// and DataSources by name.
type consumerIndexes struct {
	templates   map[Key]*capk.KubevirtMachineTemplate
	poolTmpl    map[poolKey][]*capk.KubevirtMachineTemplate
	vms         map[Key]*kubevirtv1.VirtualMachine
	dataSources map[Key]*cdiv1.DataSource
	pools       map[Key]*unstructured.Unstructured
	releases    map[Key]*unstructured.Unstructured
}

type poolKey struct{ namespace, pool string }

func (x *Index) indexConsumers() {
	s, c := x.src, &x.consumers
	c.templates = make(map[Key]*capk.KubevirtMachineTemplate, len(s.KubevirtMachineTemplates))
	c.poolTmpl = map[poolKey][]*capk.KubevirtMachineTemplate{}
	c.vms = make(map[Key]*kubevirtv1.VirtualMachine, len(s.VirtualMachines))
	c.dataSources = make(map[Key]*cdiv1.DataSource, len(s.DataSources))
	for i := range s.KubevirtMachineTemplates {
		t := &s.KubevirtMachineTemplates[i]
		if x.Covers(state.KubevirtMachineTemplate, t.Namespace, t.Name) {
			c.templates[Key{t.Namespace, t.Name}] = t
		}
	}
	for t := range x.KubevirtMachineTemplates() {
		if p := t.Pool(); p != "" {
			k := poolKey{t.Namespace, p}
			c.poolTmpl[k] = append(c.poolTmpl[k], t)
		}
	}
	for _, ts := range c.poolTmpl {
		slices.SortFunc(ts, newestFirst)
	}
	for i := range s.VirtualMachines {
		vm := &s.VirtualMachines[i]
		if x.Covers(state.VirtualMachine, vm.Namespace, vm.Name) {
			c.vms[Key{vm.Namespace, vm.Name}] = vm
		}
	}
	for i := range s.DataSources {
		ds := &s.DataSources[i]
		if x.Covers(state.DataSource, ds.Namespace, ds.Name) {
			c.dataSources[Key{ds.Namespace, ds.Name}] = ds
		}
	}
	c.pools = x.indexUnstructured(state.KubernetesNodes, s.KubernetesNodes)
	c.releases = x.indexUnstructured(state.HelmRelease, s.HelmReleases)
}

func (x *Index) indexUnstructured(k state.Kind, objs []unstructured.Unstructured) map[Key]*unstructured.Unstructured {
	m := make(map[Key]*unstructured.Unstructured, len(objs))
	for i := range objs {
		o := &objs[i]
		if ns, name := o.GetNamespace(), o.GetName(); x.Covers(k, ns, name) {
			m[Key{ns, name}] = o
		}
	}
	return m
}

// KubevirtMachineTemplates yields every template the snapshot holds (those
// of observed namespaces, the later copy of a repeated one), in the State's
// order.
func (x *Index) KubevirtMachineTemplates() iter.Seq[*capk.KubevirtMachineTemplate] {
	return held(x.src.KubevirtMachineTemplates, x.consumers.templates,
		func(t *capk.KubevirtMachineTemplate) Key { return Key{t.Namespace, t.Name} })
}

// VirtualMachines yields every VirtualMachine the snapshot holds, in the
// State's order.
func (x *Index) VirtualMachines() iter.Seq[*kubevirtv1.VirtualMachine] {
	return held(x.src.VirtualMachines, x.consumers.vms,
		func(vm *kubevirtv1.VirtualMachine) Key { return Key{vm.Namespace, vm.Name} })
}

// DataSources yields every DataSource the snapshot holds, in the State's
// order.
func (x *Index) DataSources() iter.Seq[*cdiv1.DataSource] {
	return held(x.src.DataSources, x.consumers.dataSources,
		func(ds *cdiv1.DataSource) Key { return Key{ds.Namespace, ds.Name} })
}

// KubernetesNodes yields every KubernetesNodes (a pool) the snapshot
// holds, in the State's order.
func (x *Index) KubernetesNodes() iter.Seq[*unstructured.Unstructured] {
	return held(x.src.KubernetesNodes, x.consumers.pools, unstructuredKey)
}

// HelmReleases yields every HelmRelease the snapshot holds, of any chart,
// in the State's order.
func (x *Index) HelmReleases() iter.Seq[*unstructured.Unstructured] {
	return held(x.src.HelmReleases, x.consumers.releases, unstructuredKey)
}

func unstructuredKey(o *unstructured.Unstructured) Key { return Key{o.GetNamespace(), o.GetName()} }

// held yields the objects of all that index holds, in order: an object
// repeated in the State, or outside what was observed, is not yielded.
func held[T any](all []T, index map[Key]*T, key func(*T) Key) iter.Seq[*T] {
	return func(yield func(*T) bool) {
		for i := range all {
			o := &all[i]
			if index[key(o)] == o && !yield(o) {
				return
			}
		}
	}
}

// KubevirtMachineTemplate looks a template up by name.
func (x *Index) KubevirtMachineTemplate(namespace, name string) *capk.KubevirtMachineTemplate {
	return x.consumers.templates[Key{namespace, name}]
}

// PoolTemplates lists the templates in namespace whose pool
// (capk.KubevirtMachineTemplate.Pool) is poolCAPIName ("kubernetes-demo-md0",
// naming.PoolCAPIName of the KubernetesNodes name), newest first, then by
// name. The kubernetes-nodes chart writes a new template whenever the
// pool's machine changes and keeps the older ones while a MachineSet still
// uses them, so a pool mid-rollout has several. Empty when the pool has
// none, or when templates were not observed in namespace (ask
// CoversNamespace(KubevirtMachineTemplate, namespace) to tell the two
// apart). The slice is the caller's.
func (x *Index) PoolTemplates(namespace, poolCAPIName string) []*capk.KubevirtMachineTemplate {
	ts := x.consumers.poolTmpl[poolKey{namespace, poolCAPIName}]
	return append([]*capk.KubevirtMachineTemplate(nil), ts...)
}

// PoolTemplate is the pool's live template: the newest of PoolTemplates,
// the one the chart's last render wrote and the pool's MachineDeployment
// was moved onto. Nil when there is none (a pool not applied yet), or when
// templates were not observed in namespace.
func (x *Index) PoolTemplate(namespace, poolCAPIName string) *capk.KubevirtMachineTemplate {
	if ts := x.consumers.poolTmpl[poolKey{namespace, poolCAPIName}]; len(ts) > 0 {
		return ts[0]
	}
	return nil
}

// VirtualMachine looks a VirtualMachine up by name.
func (x *Index) VirtualMachine(namespace, name string) *kubevirtv1.VirtualMachine {
	return x.consumers.vms[Key{namespace, name}]
}

// DataSource looks a DataSource up by name.
func (x *Index) DataSource(namespace, name string) *cdiv1.DataSource {
	return x.consumers.dataSources[Key{namespace, name}]
}

// newestFirst orders templates newest first (by creation time), then by
// name, as slices.SortFunc takes it: the first of a pool's is the one its
// MachineDeployment was last moved onto.
func newestFirst(a, b *capk.KubevirtMachineTemplate) int {
	if c := b.CreationTimestamp.Compare(a.CreationTimestamp.Time); c != 0 {
		return c
	}
	return cmp.Compare(a.Name, b.Name)
}
