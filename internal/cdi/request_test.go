package cdi_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/internal/cdi"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
)

const (
	fs    = corev1.PersistentVolumeFilesystem
	block = corev1.PersistentVolumeBlock
)

func quantity(s string) *resource.Quantity {
	q := resource.MustParse(s)
	return &q
}

// TestRenderedRequest states CDI v1.64.0's request for a DataVolume of the
// storage API (controller/datavolume/util.go renderPvcSpecVolumeSize,
// controller/common/util.go InflateSizeWithOverhead, GetEffectiveVolumeSize)
// in bytes, each computed by hand from CDI's formula: in Filesystem
// ceil(roundUp(size, 1MiB) × (1 + overhead)) in float64, in Block the size,
// then raised to the minimum when that is strictly larger, the minimum as
// written.
func TestRenderedRequest(t *testing.T) {
	cases := map[string]struct {
		reason   string
		size     string
		mode     corev1.PersistentVolumeMode
		overhead string
		minimum  *resource.Quantity
		want     int64
	}{
		"6400Mi Filesystem": {
			reason: "the doc comment's first example: 6400Mi × 1.06 is 6784Mi exactly",
			size:   "6400Mi", mode: fs, overhead: "0.06", want: 7113539584,
		},
		"6Gi Filesystem": {
			reason: "6442450944 × 1.06 is 6828998000.64, rounded up to the next byte",
			size:   "6Gi", mode: fs, overhead: "0.06", want: 6828998001,
		},
		"20G Filesystem, not aligned": {
			reason: "20G is first rounded up to 19074Mi (20000538624), then inflated",
			size:   "20G", mode: fs, overhead: "0.06", want: 21200570942,
		},
		"20Gi Filesystem": {
			reason: "21474836480 × 1.06 is 22763326668.8",
			size:   "20Gi", mode: fs, overhead: "0.06", want: 22763326669,
		},
		"one byte over 1Mi": {
			reason: "1048577 bytes round up to 2MiB before the overhead",
			size:   "1048577", mode: fs, overhead: "0.06", want: 2222982,
		},
		"not aligned, in bytes": {
			reason: "10000001 bytes round up to 10MiB (10485760), then × 1.06",
			size:   "10000001", mode: fs, overhead: "0.06", want: 11114906,
		},
		"overhead 0": {
			reason: "no overhead still aligns to 1MiB",
			size:   "20G", mode: fs, overhead: "0", want: 20000538624,
		},
		"overhead that does not parse": {
			reason: "CDI ignores the parse error and inflates by 0: aligned only",
			size:   "20G", mode: fs, overhead: "six percent", want: 20000538624,
		},
		"overhead empty": {
			reason: "an empty per-class entry parses to nothing: 0",
			size:   "6Gi", mode: fs, overhead: "", want: 6442450944,
		},
		"20Gi Block": {
			reason: "Block is not inflated",
			size:   "20Gi", mode: block, overhead: "0.06", want: 21474836480,
		},
		"20G Block, not aligned": {
			reason: "Block is not aligned either: the size as given",
			size:   "20G", mode: block, overhead: "0.06", want: 20000000000,
		},
		"a mode that is not Block": {
			reason: "CDI's ResolveVolumeMode: anything but Block is Filesystem",
			size:   "6Gi", mode: "", overhead: "0.06", want: 6828998001,
		},
		"minimum raises Block": {
			reason: "the doc comment's last example: 20Gi Block under a 30Gi minimum is 30Gi",
			size:   "20Gi", mode: block, overhead: "0.06", minimum: quantity("30Gi"), want: 32212254720,
		},
		"minimum is not inflated": {
			reason: "the raise comes after the inflation: a Filesystem 1Gi under a 30Gi minimum is 30Gi, not 30Gi × 1.06",
			size:   "1Gi", mode: fs, overhead: "0.06", minimum: quantity("30Gi"), want: 32212254720,
		},
		"minimum smaller": {
			reason: "a minimum under the request raises nothing",
			size:   "20Gi", mode: fs, overhead: "0.06", minimum: quantity("10Gi"), want: 22763326669,
		},
		"minimum equal to the inflated request": {
			reason: "only a strictly larger minimum raises (Cmp == -1)",
			size:   "6Gi", mode: fs, overhead: "0.06", minimum: quantity("6828998001"), want: 6828998001,
		},
		"minimum one byte over the inflated request": {
			reason: "neighbour: one byte more is the minimum",
			size:   "6Gi", mode: fs, overhead: "0.06", minimum: quantity("6828998002"), want: 6828998002,
		},
		"minimum between the size and the inflated request": {
			reason: "the minimum compares with the inflated request, not the size: 6.1Gi is under 6Gi × 1.06",
			size:   "6Gi", mode: fs, overhead: "0.06", minimum: quantity("6246Mi"), want: 6828998001,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := cdi.RenderedRequest(resource.MustParse(tc.size), tc.mode, tc.overhead, tc.minimum)
			assert.Equal(t, tc.want, got.Value(), tc.reason)
		})
	}
}

// TestRenderedRequestMinimumAsWritten: a raised request is the minimum's
// quantity itself (CDI sets the annotation's quantity), and the caller's
// minimum is not shared with the result.
func TestRenderedRequestMinimumAsWritten(t *testing.T) {
	floor := quantity("30Gi")
	got := cdi.RenderedRequest(resource.MustParse("20Gi"), block, "0.06", floor)
	assert.Equal(t, "30Gi", got.String())
	got.Add(resource.MustParse("1Gi"))
	assert.Equal(t, "30Gi", floor.String(), "the result is a copy")
}

// TestFilesystemOverhead states CDI's lookup of the overhead of a class
// (controller/common/util.go GetFilesystemOverheadForStorageClass): only
// the CDIConfig's status is read; the class's key when present, even empty;
// else the global; "0" without a status.
func TestFilesystemOverhead(t *testing.T) {
	withClass := func(global string, classes map[string]cdiv1.Percent) *cdiv1.CDIConfig {
		c := fixtures.CDIConfig(global)
		c.Status.FilesystemOverhead.StorageClass = classes
		return c
	}
	cases := map[string]struct {
		reason string
		config *cdiv1.CDIConfig
		want   string
	}{
		"no config": {
			reason: "CDIConfig not found: CDI inflates by 0",
			want:   "0",
		},
		"no status": {
			reason: "a status without filesystemOverhead is 0 (not yet reconciled)",
			config: func() *cdiv1.CDIConfig { c := fixtures.CDIConfig("0.06"); c.Status.FilesystemOverhead = nil; return c }(),
			want:   "0",
		},
		"the class's own": {
			reason: "the per-class entry wins over the global",
			config: withClass("0.06", map[string]cdiv1.Percent{"replicated": "0.1"}),
			want:   "0.1",
		},
		"the class's own, empty": {
			reason: "a key present with an empty value is still the class's (it then parses to 0)",
			config: withClass("0.06", map[string]cdiv1.Percent{"replicated": ""}),
			want:   "",
		},
		"another class's only": {
			reason: "no key for the class: the global",
			config: withClass("0.06", map[string]cdiv1.Percent{"local": "0.2"}),
			want:   "0.06",
		},
		"no per-class map": {
			reason: "a nil map: the global",
			config: withClass("0.07", nil),
			want:   "0.07",
		},
		"spec is not read": {
			reason: "an admin's spec that the config controller has not reconciled changes nothing",
			config: func() *cdiv1.CDIConfig {
				c := fixtures.CDIConfig("0.06")
				c.Spec.FilesystemOverhead = &cdiv1.FilesystemOverhead{Global: "0.5", StorageClass: map[string]cdiv1.Percent{"replicated": "0.5"}}
				return c
			}(),
			want: "0.06",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.want, cdi.FilesystemOverhead(tc.config, "replicated"), tc.reason)
		})
	}
}

// TestMinimumRequest: the StorageProfile's minimumSupportedPvcSize, nil
// when absent or unparsable, as CDI ignores it then
// (controller/common/util.go GetEffectiveVolumeSize).
func TestMinimumRequest(t *testing.T) {
	cases := map[string]struct {
		reason  string
		profile *cdiv1.StorageProfile
		want    *resource.Quantity
	}{
		"no profile": {
			reason: "no profile, no minimum",
		},
		"absent": {
			reason:  "a profile without the annotation raises nothing",
			profile: fixtures.StorageProfile("replicated").Obj(),
		},
		"set": {
			reason:  "the annotation's quantity",
			profile: fixtures.StorageProfile("replicated").Minimum("4Gi").Obj(),
			want:    quantity("4Gi"),
		},
		"unparsable": {
			reason:  "a value that is no quantity is ignored",
			profile: fixtures.StorageProfile("replicated").Minimum("lots").Obj(),
		},
		"empty": {
			reason:  "an empty value is no quantity",
			profile: fixtures.StorageProfile("replicated").Minimum("").Obj(),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := cdi.MinimumRequest(tc.profile)
			if tc.want == nil {
				assert.Nil(t, got, tc.reason)
				return
			}
			if assert.NotNil(t, got, tc.reason) {
				assert.Equal(t, 0, tc.want.Cmp(*got), "%s: %s", tc.reason, got.String())
			}
		})
	}
}
