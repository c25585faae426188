package manifests_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubevirtv1 "kubevirt.io/api/core/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"pgregory.net/rapid"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"

	"github.com/cozystack/kubernetes-worker-image/adapters/manifests"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/plantest"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/plan/state/capk"
)

var formats = []fleet.Format{fleet.YAMLList, fleet.YAMLDocuments, fleet.JSONList, fleet.JSONDocuments}

// TestReadRoundTrip: a state built in Go, printed as kubectl prints it
// (-o yaml and -o json, a List or documents), reads back as the State it
// was, field by field, and plans as it did; the four printings read back
// to the same State.
func TestReadRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var s plantest.Scenario
		if rapid.Bool().Draw(t, "served") {
			// The fleet of the benchmarks, with what a server adds.
			size := fleet.Size{Goldens: rapid.IntRange(1, 3).Draw(t, "goldens"), StorageClasses: rapid.IntRange(1, 3).Draw(t, "classes"),
				PVCs: rapid.IntRange(0, 12).Draw(t, "pvcs"), Namespaces: rapid.IntRange(1, 3).Draw(t, "namespaces"), DataVolumes: rapid.Bool().Draw(t, "dataVolumes"),
				Templates: rapid.IntRange(0, 4).Draw(t, "templates")}
			s = plantest.Scenario{Pools: fleet.Pools(size, 3), Catalog: fleet.Catalog(size), State: fleet.Served(fleet.State(size))}
		} else {
			opts := plantest.Options{FullyObserved: true, Inconsistent: rapid.Bool().Draw(t, "inconsistent")}
			s = plantest.Scenarios(opts).Draw(t, "scenario")
		}
		want := asRead(s.State)
		var first *state.State
		for _, f := range formats {
			data, err := fleet.Print(s.State, f)
			if err != nil {
				t.Fatal(err)
			}
			res, err := manifests.Read("state", bytes.NewReader(data))
			if err != nil {
				t.Fatalf("%s: %v\n%s", f, err, data)
			}
			if diff := differ(want, res.State); diff != "" {
				t.Fatalf("%s reads back otherwise: %s\n%s", f, diff, data)
			}
			if got, want := plans(s, res.State), plans(s, want); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s plans otherwise:\n%v\nbuilt in Go:\n%v", f, got, want)
			}
			if first == nil {
				first = res.State
			} else if !reflect.DeepEqual(first, res.State) {
				t.Fatalf("%s reads otherwise than %s", f, formats[0])
			}
			if held := heldKinds(want); res.Held != held || manifests.Objects(res) != objects(want) {
				t.Fatalf("%s: held %v (%d objects), want %v (%d)", f, res.Held, manifests.Objects(res), held, objects(want))
			}
		}
	})
}

// asRead is what a file of st reads back as: every kind observed in every
// namespace, an object repeated kept as its last copy, as Read trims and
// orders objects.
func asRead(st *state.State) *state.State {
	out := &state.State{Observed: state.AllKinds}
	out.StorageClasses = lastOf(st.StorageClasses, func(o *storagev1.StorageClass) *metav1.ObjectMeta { return &o.ObjectMeta })
	out.PersistentVolumeClaims = lastOf(st.PersistentVolumeClaims, func(o *corev1.PersistentVolumeClaim) *metav1.ObjectMeta { return &o.ObjectMeta })
	out.DataVolumes = lastOf(st.DataVolumes, func(o *cdiv1.DataVolume) *metav1.ObjectMeta { return &o.ObjectMeta })
	out.StorageProfiles = lastOf(st.StorageProfiles, func(o *cdiv1.StorageProfile) *metav1.ObjectMeta { return &o.ObjectMeta })
	out.CDIs = lastOf(st.CDIs, func(o *cdiv1.CDI) *metav1.ObjectMeta { return &o.ObjectMeta })
	out.CSIDrivers = lastOf(st.CSIDrivers, func(o *storagev1.CSIDriver) *metav1.ObjectMeta { return &o.ObjectMeta })
	out.VolumeSnapshotClasses = lastOf(st.VolumeSnapshotClasses, func(o *snapshotv1.VolumeSnapshotClass) *metav1.ObjectMeta { return &o.ObjectMeta })
	out.CDIConfigs = lastOf(st.CDIConfigs, func(o *cdiv1.CDIConfig) *metav1.ObjectMeta { return &o.ObjectMeta })
	out.PersistentVolumes = lastOf(st.PersistentVolumes, func(o *corev1.PersistentVolume) *metav1.ObjectMeta { return &o.ObjectMeta })
	out.KubevirtMachineTemplates = lastOf(st.KubevirtMachineTemplates, func(o *capk.KubevirtMachineTemplate) *metav1.ObjectMeta { return &o.ObjectMeta })
	out.VirtualMachines = lastOf(st.VirtualMachines, func(o *kubevirtv1.VirtualMachine) *metav1.ObjectMeta { return &o.ObjectMeta })
	out.DataSources = lastOf(st.DataSources, func(o *cdiv1.DataSource) *metav1.ObjectMeta { return &o.ObjectMeta })
	return out
}

// lastOf copies objs, trimmed as Read trims them, keeping the last of
// each name, sorted by namespace and name.
func lastOf[T any, P interface {
	*T
	DeepCopyObject() runtime.Object
}](objs []T, meta func(*T) *metav1.ObjectMeta) []T {
	byKey := map[[2]string]int{}
	var out []T
	for i := range objs {
		o := *P(&objs[i]).DeepCopyObject().(P)
		m := meta(&o)
		m.ManagedFields, m.OwnerReferences, m.Finalizers, m.UID, m.ResourceVersion = nil, nil, nil, "", ""
		k := [2]string{m.Namespace, m.Name}
		if j, ok := byKey[k]; ok {
			out[j] = o
			continue
		}
		byKey[k] = len(out)
		out = append(out, o)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && less(meta(&out[j]), meta(&out[j-1])); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func less(a, b *metav1.ObjectMeta) bool {
	if a.Namespace != b.Namespace {
		return a.Namespace < b.Namespace
	}
	return a.Name < b.Name
}

// differ says how got differs from want in any field, apiVersion and kind
// aside (typed objects built in Go lack them): quantities compare by
// value, times by instant, an empty map or slice as absent.
func differ(want, got *state.State) string {
	w, g := *want, *got
	for _, p := range []struct {
		name        string
		want, got   any
		wantN, gotN int
	}{
		{"StorageClasses", untyped(w.StorageClasses), untyped(g.StorageClasses), len(w.StorageClasses), len(g.StorageClasses)},
		{"PersistentVolumeClaims", untyped(w.PersistentVolumeClaims), untyped(g.PersistentVolumeClaims), len(w.PersistentVolumeClaims), len(g.PersistentVolumeClaims)},
		{"DataVolumes", untyped(w.DataVolumes), untyped(g.DataVolumes), len(w.DataVolumes), len(g.DataVolumes)},
		{"StorageProfiles", untyped(w.StorageProfiles), untyped(g.StorageProfiles), len(w.StorageProfiles), len(g.StorageProfiles)},
		{"CDIs", untyped(w.CDIs), untyped(g.CDIs), len(w.CDIs), len(g.CDIs)},
		{"CSIDrivers", untyped(w.CSIDrivers), untyped(g.CSIDrivers), len(w.CSIDrivers), len(g.CSIDrivers)},
		{"VolumeSnapshotClasses", untyped(w.VolumeSnapshotClasses), untyped(g.VolumeSnapshotClasses), len(w.VolumeSnapshotClasses), len(g.VolumeSnapshotClasses)},
		{"CDIConfigs", untyped(w.CDIConfigs), untyped(g.CDIConfigs), len(w.CDIConfigs), len(g.CDIConfigs)},
		{"PersistentVolumes", untyped(w.PersistentVolumes), untyped(g.PersistentVolumes), len(w.PersistentVolumes), len(g.PersistentVolumes)},
		{"KubevirtMachineTemplates", untyped(w.KubevirtMachineTemplates), untyped(g.KubevirtMachineTemplates), len(w.KubevirtMachineTemplates), len(g.KubevirtMachineTemplates)},
		{"VirtualMachines", untyped(w.VirtualMachines), untyped(g.VirtualMachines), len(w.VirtualMachines), len(g.VirtualMachines)},
		{"DataSources", untyped(w.DataSources), untyped(g.DataSources), len(w.DataSources), len(g.DataSources)},
	} {
		if p.wantN != p.gotN {
			return fmt.Sprintf("%d %s, want %d", p.gotN, p.name, p.wantN)
		}
		if !equality.Semantic.DeepEqual(p.want, p.got) {
			return fmt.Sprintf("%s:\n got %+v\nwant %+v", p.name, p.got, p.want)
		}
	}
	if g.Observed != w.Observed || g.Namespaces != nil || g.Objects != nil {
		return fmt.Sprintf("observed %v %v %v", g.Observed, g.Namespaces, g.Objects)
	}
	return ""
}

// untyped copies objs without their apiVersion and kind.
func untyped[T any](objs []T) []T {
	out := make([]T, len(objs))
	for i := range objs {
		out[i] = objs[i]
		reflect.ValueOf(&out[i]).Elem().FieldByName("TypeMeta").Set(reflect.ValueOf(metav1.TypeMeta{}))
	}
	return out
}

// plans is what each pool of s plans to with st: outcome, refusals,
// warnings and the disk's spec as text.
func plans(s plantest.Scenario, st *state.State) []string {
	var out []string
	for _, r := range plan.PlanAll(s.Pools, catalog.Compile(s.Catalog), state.NewSnapshot(st)) {
		line := fmt.Sprintf("%s/%s %s %s %s", r.Namespace, r.Name, r.Outcome, r.Source, r.Golden)
		for _, f := range r.Refusals {
			line += fmt.Sprintf(" refused %s at %s: %s;", f.Reason, f.Field, f.Detail)
		}
		for _, w := range r.Warnings {
			line += fmt.Sprintf(" warning %s at %s: %s;", w.Reason, w.Field, w.Detail)
		}
		if len(r.Refusals) == 0 {
			disk, err := json.Marshal(r.Disk)
			if err != nil {
				panic(err)
			}
			line += " disk " + string(disk)
		}
		out = append(out, line)
	}
	return out
}

func heldKinds(st *state.State) state.Kind {
	var k state.Kind
	for kind, n := range map[state.Kind]int{
		state.StorageClass: len(st.StorageClasses), state.PersistentVolumeClaim: len(st.PersistentVolumeClaims),
		state.DataVolume: len(st.DataVolumes), state.StorageProfile: len(st.StorageProfiles),
		state.CDI: len(st.CDIs), state.CSIDriver: len(st.CSIDrivers),
		state.VolumeSnapshotClass: len(st.VolumeSnapshotClasses), state.CDIConfig: len(st.CDIConfigs),
		state.PersistentVolume: len(st.PersistentVolumes), state.KubevirtMachineTemplate: len(st.KubevirtMachineTemplates),
		state.VirtualMachine: len(st.VirtualMachines), state.DataSource: len(st.DataSources),
	} {
		if n > 0 {
			k |= kind
		}
	}
	return k
}

func objects(st *state.State) int {
	return len(st.StorageClasses) + len(st.PersistentVolumeClaims) + len(st.DataVolumes) +
		len(st.StorageProfiles) + len(st.CDIs) + len(st.CSIDrivers) +
		len(st.VolumeSnapshotClasses) + len(st.CDIConfigs) + len(st.PersistentVolumes) +
		len(st.KubevirtMachineTemplates) + len(st.VirtualMachines) + len(st.DataSources)
}
