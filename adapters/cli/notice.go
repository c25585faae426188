package cli

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	kubevirtv1 "kubevirt.io/api/core/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/internal/size"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// reimageNotice is the notice "this pool's workers will be
// re-imaged": given a planned pool and the cluster's state, it says
// (non-empty) that the disk-system the plan gives differs from the one the
// pool's live KubevirtMachineTemplate holds (state.Snapshot.PoolTemplate),
// by its source or by what else its text carries, so that applying it
// renames the template (the chart names it by a hash of its text) and
// rolls every worker. It says nothing when the two are the same, when the
// pool has no template yet (a new pool: nothing is re-imaged), or when the
// templates of the pool's namespace were not read (unseenTemplates says
// that once for the run). The human output prints it under the pool's
// warnings.
var reimageNotice = reimage

func reimage(r plan.Result, snap *state.Snapshot) string {
	if snap == nil || !stateindex.Of(snap).CoversNamespace(state.KubevirtMachineTemplate, r.Namespace) {
		return ""
	}
	t := stateindex.Of(snap).PoolTemplate(r.Namespace, naming.PoolCAPIName(r.Name))
	if t == nil {
		return ""
	}
	live := diskTemplate(t.Spec.Template.Spec.VirtualMachineTemplate.Spec.DataVolumeTemplates)
	var changes []string
	if live == nil {
		changes = []string{"it has none"}
	} else {
		changes = diskChanges(r, live)
	}
	if len(changes) == 0 {
		return ""
	}
	return fmt.Sprintf("this pool's workers will be re-imaged: its disk-system differs from the one its live KubevirtMachineTemplate %s holds (%s), "+
		"so applying this plan writes a new template and rolls every worker onto it", t.Name, strings.Join(changes, "; "))
}

// notices are the re-image notices of results, by index.
func notices(results []plan.Result, snap *state.Snapshot) map[int]string {
	out := map[int]string{}
	for i, r := range results {
		if r.Outcome == plan.Planned {
			if n := reimageNotice(r, snap); n != "" {
				out[i] = n
			}
		}
	}
	return out
}

// unseenTemplates says, once for the run, that no re-image notice could be
// given, and why: the templates of a planned pool's namespace were not
// read. "" when every planned pool's were.
func unseenTemplates(results []plan.Result, v view) string {
	for _, r := range results {
		if r.Outcome != plan.Planned || (v.snap != nil && stateindex.Of(v.snap).CoversNamespace(state.KubevirtMachineTemplate, r.Namespace)) {
			continue
		}
		cause := v.causes[state.KubevirtMachineTemplate]
		if v.offline {
			cause = offlineCause
		}
		if cause != "" {
			cause = " (" + cause + ")"
		}
		return "KubevirtMachineTemplates were not read" + cause + ", so whether applying these plans re-images a pool's workers is not known"
	}
	return ""
}

// diskChanges says how the planned disk-system differs from the live one,
// in the terms of the chart's text: its source, its class, its size, its
// annotations and labels, anything else of its spec. Sizes compare as
// quantities: the live one is read as a quantity, whose text ("20480Mi"
// for "20Gi") the cluster does not keep apart.
func diskChanges(r plan.Result, live *kubevirtv1.DataVolumeTemplateSpec) []string {
	want, have := &r.Disk.Spec, &live.Spec
	var out []string
	if !equality.Semantic.DeepEqual(want.Source, have.Source) || !equality.Semantic.DeepEqual(want.SourceRef, have.SourceRef) {
		out = append(out, "source: "+describeSource(have)+" → "+describeSource(want))
	}
	if a, b := specClass(have), specClass(want); a != b {
		out = append(out, fmt.Sprintf("storageClassName: %s → %s", orNoneQuoted(a), orNoneQuoted(b)))
	}
	if a, b := specSize(have), plannedSize(r); a != b {
		out = append(out, fmt.Sprintf("size: %s → %s", orNone(a), orNone(b)))
	}
	if d := mapChanges(live.Annotations, r.Disk.Annotations); d != "" {
		out = append(out, "annotations: "+d)
	}
	if d := mapChanges(live.Labels, r.Disk.Labels); d != "" {
		out = append(out, "labels: "+d)
	}
	if !equality.Semantic.DeepEqual(otherFields(want), otherFields(have)) {
		out = append(out, "the rest of its spec")
	}
	return out
}

// describeSource names a disk's source, as the plan's headline does.
func describeSource(s *cdiv1.DataVolumeSpec) string {
	switch src := s.Source; {
	case s.SourceRef != nil:
		ns := ""
		if s.SourceRef.Namespace != nil {
			ns = *s.SourceRef.Namespace + "/"
		}
		return fmt.Sprintf("%s %s%s", s.SourceRef.Kind, ns, s.SourceRef.Name)
	case src == nil:
		return "none"
	case src.HTTP != nil:
		return "HTTP import from " + src.HTTP.URL
	case src.PVC != nil && src.PVC.Namespace == naming.GoldenNamespace:
		return "clone of golden " + src.PVC.Name
	case src.PVC != nil:
		return "clone of PVC " + src.PVC.Namespace + "/" + src.PVC.Name
	default:
		return "another source"
	}
}

func specClass(s *cdiv1.DataVolumeSpec) string {
	return stateindex.DataVolumeClass(&cdiv1.DataVolume{Spec: *s})
}

// specSize is a spec's requested storage, canonical; "" when it has none.
func specSize(s *cdiv1.DataVolumeSpec) string {
	var req corev1.ResourceList
	switch {
	case s.Storage != nil:
		req = s.Storage.Resources.Requests
	case s.PVC != nil:
		req = s.PVC.Resources.Requests
	}
	if q, ok := req[corev1.ResourceStorage]; ok {
		return q.String()
	}
	return ""
}

// plannedSize is the planned disk's size, canonical as a live one reads;
// as the chart renders it when that is no quantity (the HTTP path renders
// a malformed diskSize as given).
func plannedSize(r plan.Result) string {
	if s := specSize(&r.Disk.Spec); s != "" {
		return s
	}
	if q, err := size.Quantity(r.DiskSize); err == nil {
		return q.String()
	}
	return r.DiskSize
}

// otherFields is a spec without what diskChanges names on its own.
func otherFields(s *cdiv1.DataVolumeSpec) cdiv1.DataVolumeSpec {
	c := *s.DeepCopy()
	c.Source, c.SourceRef = nil, nil
	if c.Storage != nil {
		c.Storage.StorageClassName, c.Storage.Resources.Requests = nil, nil
	}
	if c.PVC != nil {
		c.PVC.StorageClassName, c.PVC.Resources.Requests = nil, nil
	}
	return c
}

// mapChanges names the keys of a map that a plan removes (-), adds (+) or
// changes (~), sorted: "-cdi.kubevirt.io/storage.usePopulator,
// +kubernetes-worker-image.cozystack.io/golden"; "" when they are equal.
func mapChanges(live, planned map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(live)) {
		if v, ok := planned[k]; !ok {
			parts = append(parts, "-"+k)
		} else if v != live[k] {
			parts = append(parts, "~"+k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(planned)) {
		if _, ok := live[k]; !ok {
			parts = append(parts, "+"+k)
		}
	}
	return strings.Join(parts, ", ")
}

func orNoneQuoted(s string) string {
	if s == "" {
		return "(none)"
	}
	return fmt.Sprintf("%q", s)
}

// diskTemplate is the entry of a template's dataVolumeTemplates that is
// every worker's boot disk (plan.DiskName), nil when there is none.
func diskTemplate(dvts []kubevirtv1.DataVolumeTemplateSpec) *kubevirtv1.DataVolumeTemplateSpec {
	for i := range dvts {
		if dvts[i].Name == plan.DiskName {
			return &dvts[i]
		}
	}
	return nil
}
