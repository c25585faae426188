package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/plan/state/capk"
)

const noticePool = "kubernetes-demo-md0"

// clonePlan is demo-md0 of fixtures.Cluster planned as a clone of the
// default golden on "replicated", 20Gi.
func clonePlan(t *testing.T) plan.Result {
	t.Helper()
	spec := plan.DefaultPoolSpec(fixtures.ClusterName)
	spec.OSImage = &plan.OSImage{Builtin: &catalog.Flavor{}}
	v := catalog.Default()
	v.Enabled = true
	res, err := plan.Plan(plan.Pool{Namespace: fixtures.TenantNamespace, Name: fixtures.PoolName, Spec: spec},
		catalog.Compile(v), state.NewSnapshot(fixtures.State(state.AllKinds, fixtures.Cluster()...)))
	require.NoError(t, err)
	return res
}

func liveTemplate(name string, hour int, e kubevirtv1.DataVolumeTemplateSpec) *capk.KubevirtMachineTemplate {
	return fixtures.Template(fixtures.TenantNamespace, name).Pool(noticePool).
		Created(metav1.NewTime(fixtures.Created.Add(time.Duration(hour) * time.Hour))).Entries(e).Obj()
}

func withTemplates(observed state.Kind, ts ...*capk.KubevirtMachineTemplate) *state.Snapshot {
	s := &state.State{Observed: observed}
	for _, t := range ts {
		s.KubevirtMachineTemplates = append(s.KubevirtMachineTemplates, *t)
	}
	return state.NewSnapshot(s)
}

func TestReimage(t *testing.T) {
	same := fixtures.CloneEntry(noticePool, fixtures.Golden, fixtures.ReplicatedClass, fixtures.DefaultDiskSize)
	other := naming.GoldenPrefix + fixtures.DefaultSchematicID + "-v1.13.5"
	edited := func(edit func(*kubevirtv1.DataVolumeTemplateSpec)) kubevirtv1.DataVolumeTemplateSpec {
		e := *same.DeepCopy()
		edit(&e)
		return e
	}
	cases := map[string]struct {
		reason string
		snap   *state.Snapshot
		want   []string // parts of the notice; nil: no notice
	}{
		"same": {
			reason: "the live template holds exactly the planned disk-system: applying re-images nothing",
			snap:   withTemplates(state.KubevirtMachineTemplate, liveTemplate("t", 0, same)),
		},
		"same size, other units": {
			reason: "20480Mi is 20Gi: the live size is read as a quantity",
			snap:   withTemplates(state.KubevirtMachineTemplate, liveTemplate("t", 0, fixtures.Entry(plan.DiskName).WorkerOf(noticePool, fixtures.Golden).Clones(fixtures.Golden).Class(fixtures.ReplicatedClass).Size("20480Mi").Obj())),
		},
		"from HTTP": {
			reason: "the pool switches from the HTTP import to the golden: its workers roll",
			snap: withTemplates(state.KubevirtMachineTemplate, liveTemplate("t", 0,
				fixtures.HTTPEntry(naming.ImageURL(fixtures.DefaultImageFactoryURL, fixtures.DefaultSchematicID, fixtures.DefaultVersion), fixtures.ReplicatedClass, fixtures.DefaultDiskSize))),
			want: []string{"will be re-imaged", "KubevirtMachineTemplate t holds", "source: HTTP import from https://factory.talos.dev/image/", "→ clone of golden " + fixtures.Golden,
				"annotations: -cdi.kubevirt.io/storage.usePopulator, +kubernetes-worker-image.cozystack.io/golden, +kubernetes-worker-image.cozystack.io/pool"},
		},
		"another golden": {
			reason: "a new flavor",
			snap:   withTemplates(state.KubevirtMachineTemplate, liveTemplate("t", 0, fixtures.CloneEntry(noticePool, other, fixtures.ReplicatedClass, fixtures.DefaultDiskSize))),
			want:   []string{"source: clone of golden " + other + " → clone of golden " + fixtures.Golden, "annotations: ~kubernetes-worker-image.cozystack.io/golden"},
		},
		"class": {
			reason: "by text: a class the chart writes otherwise",
			snap:   withTemplates(state.KubevirtMachineTemplate, liveTemplate("t", 0, edited(func(e *kubevirtv1.DataVolumeTemplateSpec) { e.Spec.Storage.StorageClassName = nil }))),
			want:   []string{`storageClassName: (none) → "replicated"`},
		},
		"size": {
			reason: "by text: another size",
			snap: withTemplates(state.KubevirtMachineTemplate, liveTemplate("t", 0,
				fixtures.CloneEntry(noticePool, fixtures.Golden, fixtures.ReplicatedClass, "30Gi"))),
			want: []string{"size: 30Gi → 20Gi"},
		},
		"another field": {
			reason: "by text: a field the plan does not write",
			snap: withTemplates(state.KubevirtMachineTemplate, liveTemplate("t", 0, edited(func(e *kubevirtv1.DataVolumeTemplateSpec) {
				e.Spec.ContentType = "archive"
			}))),
			want: []string{"the rest of its spec"},
		},
		"no disk-system": {
			reason: "a live template without the entry",
			snap:   withTemplates(state.KubevirtMachineTemplate, liveTemplate("t", 0, fixtures.Entry("disk-data").Obj())),
			want:   []string{"(it has none)"},
		},
		"newest counts": {
			reason: "mid-rollout the newest template is the pool's live one; an older one that differs is on its way out",
			snap: withTemplates(state.KubevirtMachineTemplate,
				liveTemplate("kubernetes-demo-md0-old", 0, fixtures.CloneEntry(noticePool, other, fixtures.ReplicatedClass, fixtures.DefaultDiskSize)),
				liveTemplate("kubernetes-demo-md0-new", 1, same)),
		},
		"newest differs": {
			reason: "neighbour: the newest differs, whatever an older one holds",
			snap: withTemplates(state.KubevirtMachineTemplate,
				liveTemplate("kubernetes-demo-md0-old", 0, same),
				liveTemplate("kubernetes-demo-md0-new", 1, fixtures.CloneEntry(noticePool, other, fixtures.ReplicatedClass, fixtures.DefaultDiskSize))),
			want: []string{"KubevirtMachineTemplate kubernetes-demo-md0-new holds"},
		},
		"no template": {
			reason: "a pool not applied yet has no workers to re-image",
			snap:   withTemplates(state.KubevirtMachineTemplate),
		},
		"another pool's": {
			reason: "neighbour: another pool's template says nothing of this one",
			snap: withTemplates(state.KubevirtMachineTemplate, fixtures.Template(fixtures.TenantNamespace, "t").Pool("kubernetes-demo-md1").
				Entries(fixtures.CloneEntry("kubernetes-demo-md1", other, fixtures.ReplicatedClass, "20Gi")).Obj()),
		},
		"unobserved": {
			reason: "templates not read: no claim either way (unseenTemplates says so once)",
			snap: withTemplates(state.PlanKinds, liveTemplate("t", 0,
				fixtures.CloneEntry(noticePool, other, fixtures.ReplicatedClass, fixtures.DefaultDiskSize))),
		},
		"nil": {reason: "no state at all"},
	}
	res := clonePlan(t)
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := reimage(res, tc.snap)
			if tc.want == nil {
				assert.Empty(t, got, tc.reason)
				return
			}
			for _, w := range tc.want {
				assert.Contains(t, got, w, tc.reason)
			}
			assert.True(t, strings.HasPrefix(got, "this pool's workers will be re-imaged"), got)
		})
	}
}

func TestUnseenTemplates(t *testing.T) {
	res := []plan.Result{clonePlan(t)}
	assert.Empty(t, unseenTemplates(res, view{snap: withTemplates(state.KubevirtMachineTemplate)}), "read, none there: nothing to say")
	got := unseenTemplates(res, view{snap: withTemplates(state.PlanKinds), causes: map[state.Kind]string{state.KubevirtMachineTemplate: "forbidden: cannot list kubevirtmachinetemplates"}})
	assert.Equal(t, "KubevirtMachineTemplates were not read (forbidden: cannot list kubevirtmachinetemplates), so whether applying these plans re-images a pool's workers is not known", got)
	assert.Contains(t, unseenTemplates(res, view{offline: true}), offlineCause)
	refused := []plan.Result{{Namespace: fixtures.TenantNamespace, Name: fixtures.PoolName, Outcome: plan.Refused}}
	assert.Empty(t, unseenTemplates(refused, view{offline: true}), "a refused pool is applied by nobody")
}
