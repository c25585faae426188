package state_test

import (
	"reflect"
	"testing"

	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

var singleKinds = []state.Kind{state.StorageClass, state.PersistentVolumeClaim, state.DataVolume, state.StorageProfile, state.CDI, state.CSIDriver,
	state.VolumeSnapshotClass, state.CDIConfig, state.PersistentVolume, state.KubevirtMachineTemplate, state.VirtualMachine, state.DataSource,
	state.KubernetesNodes, state.HelmRelease}

func TestKind(t *testing.T) {
	cases := map[string]struct {
		reason string
		k      state.Kind
		str    string
		each   []state.Kind
	}{
		"none": {"the empty set", 0, "none", nil},
		"one":  {"a single kind is named by its Kubernetes kind", state.DataVolume, "DataVolume", []state.Kind{state.DataVolume}},
		"two":  {"a set is listed in a fixed order, whatever the order it was built in", state.CDI | state.StorageClass, "StorageClass|CDI", []state.Kind{state.StorageClass, state.CDI}},
		"all": {"every kind", state.AllKinds, "StorageClass|PersistentVolumeClaim|DataVolume|StorageProfile|CDI|CSIDriver|VolumeSnapshotClass|CDIConfig|PersistentVolume|" +
			"KubevirtMachineTemplate|VirtualMachine|DataSource|KubernetesNodes|HelmRelease", singleKinds},
		"stray": {"bits beyond the known kinds are not named", state.Kind(1 << 15), "none", nil},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := tc.k.String(); got != tc.str {
				t.Errorf("%s: String = %q, want %q", tc.reason, got, tc.str)
			}
			if got := tc.k.Each(); !reflect.DeepEqual(got, tc.each) {
				t.Errorf("%s: Each = %v, want %v", tc.reason, got, tc.each)
			}
		})
	}
}

func TestKindHas(t *testing.T) {
	set := state.StorageClass | state.PersistentVolumeClaim
	cases := map[string]struct {
		reason string
		o      state.Kind
		want   bool
	}{
		"member":   {"a kind in the set", state.PersistentVolumeClaim, true},
		"subset":   {"the whole set", set, true},
		"empty":    {"the empty set is in every set", 0, true},
		"outsider": {"a kind not in the set", state.DataVolume, false},
		"overlap":  {"a set with one kind outside is not in it", state.PersistentVolumeClaim | state.DataVolume, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := set.Has(tc.o); got != tc.want {
				t.Errorf("%s: Has(%s) = %v, want %v", tc.reason, tc.o, got, tc.want)
			}
		})
	}
}

func TestKindByName(t *testing.T) {
	for _, k := range singleKinds {
		got, ok := state.KindByName(k.String())
		if !ok || got != k {
			t.Errorf("KindByName(%q) = %v, %v; want %v", k.String(), got, ok, k)
		}
	}
	for _, name := range []string{"", "Pod", "storageclass", "StorageClass|CDI"} {
		if k, ok := state.KindByName(name); ok {
			t.Errorf("KindByName(%q) = %v: only single Kubernetes kind names, exactly", name, k)
		}
	}
}
