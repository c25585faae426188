package stateindex_test

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/plan/state/capk"
)

func template(ns, name, pool string, hour int) capk.KubevirtMachineTemplate {
	b := fixtures.Template(ns, name).Created(metav1.NewTime(fixtures.Created.Add(time.Duration(hour) * time.Hour)))
	if pool != "" {
		b = b.Pool(pool)
	}
	return *b.Obj()
}

func templateNames(ts []*capk.KubevirtMachineTemplate) []string {
	out := []string{}
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

func TestPoolTemplates(t *testing.T) {
	annotatedOnly := *fixtures.Template(tenant, "by-annotation").Entries(fixtures.CloneEntry("kubernetes-demo-md1", golden, "r", "20Gi")).Obj()
	s := &state.State{
		Observed: state.KubevirtMachineTemplate,
		KubevirtMachineTemplates: []capk.KubevirtMachineTemplate{
			template(tenant, "kubernetes-demo-md0-aaaaaa", pool, 1),
			template(tenant, "kubernetes-demo-md0-bbbbbb", pool, 3),
			template(tenant, "kubernetes-demo-md0-cccccc", pool, 2),
			template(tenant, "kubernetes-demo-md01-dddddd", "kubernetes-demo-md01", 9),
			template("tenant-b", "kubernetes-demo-md0-eeeeee", pool, 9),
			template(tenant, "hand-written", "", 9),
			annotatedOnly,
		},
	}
	x := index(s)
	assert.Equal(t, []string{"kubernetes-demo-md0-bbbbbb", "kubernetes-demo-md0-cccccc", "kubernetes-demo-md0-aaaaaa"},
		templateNames(x.PoolTemplates(tenant, pool)), "a pool's templates, newest first; not a neighbour whose name starts the same, nor another namespace's")
	assert.Equal(t, "kubernetes-demo-md0-bbbbbb", x.PoolTemplate(tenant, pool).Name, "the live template is the newest")
	assert.Equal(t, []string{"by-annotation"}, templateNames(x.PoolTemplates(tenant, "kubernetes-demo-md1")), "a template known by its disk's pool annotation")
	assert.Nil(t, x.PoolTemplate(tenant, "kubernetes-demo-md9"), "a pool with no template")
	assert.Equal(t, []string{}, templateNames(x.PoolTemplates(tenant, "")), "a template that names no pool is no pool's")
	assert.NotNil(t, x.KubevirtMachineTemplate(tenant, "hand-written"), "but it is held, by name")

	got := x.PoolTemplates(tenant, pool)
	got[0] = nil
	assert.NotNil(t, x.PoolTemplate(tenant, pool), "the slice is the caller's")

	scoped := index(&state.State{Observed: state.KubevirtMachineTemplate, Namespaces: []string{"tenant-b"}, KubevirtMachineTemplates: s.KubevirtMachineTemplates})
	assert.Nil(t, scoped.PoolTemplate(tenant, pool), "a namespace templates were not read in holds none")
	assert.False(t, scoped.CoversNamespace(state.KubevirtMachineTemplate, tenant), "and says so")
	assert.NotNil(t, scoped.PoolTemplate("tenant-b", pool))

	unobserved := index(&state.State{Observed: state.PlanKinds, KubevirtMachineTemplates: s.KubevirtMachineTemplates})
	assert.Nil(t, unobserved.PoolTemplate(tenant, pool), "templates that were not observed are dropped")
	assert.False(t, unobserved.Observed(state.KubevirtMachineTemplate))
}

func TestConsumerKindIterators(t *testing.T) {
	vm := func(ns, name, pool string) kubevirtv1.VirtualMachine {
		return *fixtures.VirtualMachine(ns, name).Pool(pool).Obj()
	}
	ds := func(ns, name, target string) cdiv1.DataSource { return *fixtures.DataSource(ns, name).Of(target).Obj() }
	s := &state.State{
		Observed:   state.ConsumerKinds,
		Namespaces: []string{tenant},
		KubevirtMachineTemplates: []capk.KubevirtMachineTemplate{
			template(tenant, "t1", "p1", 0), template("tenant-b", "out", "p1", 0), template(tenant, "t1", "p2", 0),
		},
		VirtualMachines: []kubevirtv1.VirtualMachine{vm(tenant, "v1", "p1"), vm("tenant-b", "out", "p1"), vm(tenant, "v1", "p2")},
		DataSources:     []cdiv1.DataSource{ds(tenant, "d1", "g1"), ds("tenant-b", "out", "g1"), ds(tenant, "d1", "g2")},
	}
	x := index(s)
	tmpls := slices.Collect(x.KubevirtMachineTemplates())
	assert.Equal(t, []*capk.KubevirtMachineTemplate{&s.KubevirtMachineTemplates[2]}, tmpls, "the later copy of a repeated template, none out of scope")
	assert.Equal(t, "p2", x.KubevirtMachineTemplate(tenant, "t1").Pool())
	vms := slices.Collect(x.VirtualMachines())
	assert.Equal(t, []*kubevirtv1.VirtualMachine{&s.VirtualMachines[2]}, vms)
	assert.Equal(t, &s.VirtualMachines[2], x.VirtualMachine(tenant, "v1"))
	assert.Nil(t, x.VirtualMachine("tenant-b", "out"))
	dss := slices.Collect(x.DataSources())
	assert.Equal(t, []*cdiv1.DataSource{&s.DataSources[2]}, dss)
	assert.Equal(t, naming.GoldenNamespace, x.DataSource(tenant, "d1").Spec.Source.PVC.Namespace)
	assert.Equal(t, "g2", x.DataSource(tenant, "d1").Spec.Source.PVC.Name)

	n := 0
	for range x.KubevirtMachineTemplates() {
		n++
		break
	}
	assert.Equal(t, 1, n, "a loop that breaks stops the iterator")

	assert.False(t, x.Observed(state.DataSource), "a namespaced kind read in some namespaces is not observed in full")
	assert.True(t, x.Covers(state.DataSource, tenant, "anything"))
	assert.False(t, x.Covers(state.VirtualMachine, "tenant-b", "out"))
}
