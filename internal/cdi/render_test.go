package cdi_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/internal/cdi"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

const (
	class = "replicated"
	prov  = "linstor.csi.linbit.com"
)

// cluster is a class of LINSTOR with its StorageProfile (one Block
// ReadWriteMany set) and CDI's config with overhead 0.06 for the class.
func cluster() []client.Object {
	return []client.Object{
		fixtures.StorageClass(class).Provisioner(prov).Obj(),
		fixtures.StorageProfile(class).VolumeMode(corev1.PersistentVolumeBlock).Obj(),
		fixtures.CDIConfig("0.06", class),
	}
}

// renderCase is what Render gives on cluster with its objects changed.
type renderCase struct {
	reason   string
	observed state.Kind
	change   func(objs []client.Object) []client.Object
	size     string
	want     cdi.Rendering
	// renders is Rendering.Renders().
	renders bool
	// unrenderable: Unrenderable is set, and Fix but for the size (their
	// text is not compared).
	unrenderable bool
}

func profileOf(objs []client.Object) *cdiv1.StorageProfile { return objs[1].(*cdiv1.StorageProfile) }

func setMode(m *corev1.PersistentVolumeMode) func([]client.Object) []client.Object {
	return func(objs []client.Object) []client.Object {
		profileOf(objs).Status.ClaimPropertySets[0].VolumeMode = m
		return objs
	}
}

func q(s string) resource.Quantity { return resource.MustParse(s) }

func bytes(n int64) resource.Quantity { return *resource.NewQuantity(n, resource.BinarySI) }

// TestRender states CDI v1.64.0's rendering of a DataVolume of the storage
// API (controller/datavolume/util.go renderPvcSpec and what it calls), one
// case a branch.
func TestRender(t *testing.T) {
	fs, block := ptr.To(corev1.PersistentVolumeFilesystem), ptr.To(corev1.PersistentVolumeBlock)
	cases := map[string]renderCase{
		"Block": {
			reason:  "set[0] is Block: not inflated",
			size:    "20Gi",
			want:    cdi.Rendering{Mode: corev1.PersistentVolumeBlock, ModeKnown: true, Request: q("20Gi"), RequestKnown: true, Raw: q("20Gi"), RawKnown: true},
			renders: true,
		},
		"Filesystem": {
			reason:  "set[0] is Filesystem: inflated by the class's overhead",
			change:  setMode(fs),
			size:    "20Gi",
			want:    cdi.Rendering{Mode: corev1.PersistentVolumeFilesystem, ModeKnown: true, Request: bytes(22763326669), RequestKnown: true, Raw: q("20Gi"), RawKnown: true},
			renders: true,
		},
		"nil volume mode": {
			reason:  "set[0] without a volume mode is Filesystem (util/util.go ResolveVolumeMode)",
			change:  setMode(nil),
			size:    "6Gi",
			want:    cdi.Rendering{Mode: corev1.PersistentVolumeFilesystem, ModeKnown: true, Request: bytes(6828998001), RequestKnown: true, Raw: q("6Gi"), RawKnown: true},
			renders: true,
		},
		"the class's own overhead": {
			reason: "the CDIConfig's per-class overhead (controller/common/util.go GetFilesystemOverheadForStorageClass)",
			change: func(objs []client.Object) []client.Object {
				setMode(fs)(objs)
				objs[2].(*cdiv1.CDIConfig).Status.FilesystemOverhead.StorageClass[class] = "0"
				return objs
			},
			size:    "20G",
			want:    cdi.Rendering{Mode: corev1.PersistentVolumeFilesystem, ModeKnown: true, Request: bytes(20000538624), RequestKnown: true, Raw: q("20G"), RawKnown: true},
			renders: true,
		},
		"minimum raises": {
			reason: "the profile's minimumSupportedPvcSize raises the request and the raw size (controller/common/util.go GetEffectiveVolumeSize)",
			change: func(objs []client.Object) []client.Object {
				objs[1] = fixtures.StorageProfile(class).VolumeMode(corev1.PersistentVolumeBlock).Minimum("30Gi").Obj()
				return objs
			},
			size:    "20Gi",
			want:    cdi.Rendering{Mode: corev1.PersistentVolumeBlock, ModeKnown: true, Request: q("30Gi"), RequestKnown: true, Raw: q("30Gi"), RawKnown: true},
			renders: true,
		},
		"minimum smaller": {
			reason: "a minimum under the size raises nothing",
			change: func(objs []client.Object) []client.Object {
				objs[1] = fixtures.StorageProfile(class).VolumeMode(corev1.PersistentVolumeBlock).Minimum("1Gi").Obj()
				return objs
			},
			size:    "20Gi",
			want:    cdi.Rendering{Mode: corev1.PersistentVolumeBlock, ModeKnown: true, Request: q("20Gi"), RequestKnown: true, Raw: q("20Gi"), RawKnown: true},
			renders: true,
		},
		"under 1MiB": {
			reason:       "CDI's webhook rejects it (apiserver/webhooks/datavolume-validate.go validateStorageSize); nothing else is read",
			size:         "1048575",
			want:         cdi.Rendering{UnrenderableSize: true, Raw: q("1048575")},
			unrenderable: true,
		},
		"exactly 1Mi": {
			reason:  "neighbour: 1Mi is admitted",
			size:    "1Mi",
			want:    cdi.Rendering{Mode: corev1.PersistentVolumeBlock, ModeKnown: true, Request: q("1Mi"), RequestKnown: true, Raw: q("1Mi"), RawKnown: true},
			renders: true,
		},
		"class missing": {
			reason: "no such class: CDI renders no PVC",
			change: func(objs []client.Object) []client.Object { return objs[1:] },
			size:   "20Gi",
			want:   cdi.Rendering{ClassMissing: true, Raw: q("20Gi")},
		},
		"classes unknown": {
			reason:   "the class rests on StorageClasses not read",
			observed: state.AllKinds &^ state.StorageClass,
			size:     "20Gi",
			want:     cdi.Rendering{Unobserved: state.StorageClass, Mode: corev1.PersistentVolumeBlock, ModeKnown: true, Request: q("20Gi"), RequestKnown: true, Raw: q("20Gi"), RawKnown: true},
		},
		"no StorageProfile": {
			reason:       "\"cannot get StorageProfile\" (controller/datavolume/util.go getDefaultVolumeAndAccessMode)",
			change:       func(objs []client.Object) []client.Object { return []client.Object{objs[0], objs[2]} },
			size:         "20Gi",
			want:         cdi.Rendering{Raw: q("20Gi")},
			unrenderable: true,
		},
		"no claim property sets": {
			reason: "\"no accessMode specified in StorageProfile\"",
			change: func(objs []client.Object) []client.Object {
				profileOf(objs).Status.ClaimPropertySets = nil
				return objs
			},
			size:         "20Gi",
			want:         cdi.Rendering{Raw: q("20Gi")},
			unrenderable: true,
		},
		"set[0] without access modes": {
			reason: "only set[0] is read, whatever set[1] has",
			change: func(objs []client.Object) []client.Object {
				sp := profileOf(objs)
				sp.Status.ClaimPropertySets = append([]cdiv1.ClaimPropertySet{{VolumeMode: block}}, sp.Status.ClaimPropertySets...)
				return objs
			},
			size:         "20Gi",
			want:         cdi.Rendering{Raw: q("20Gi")},
			unrenderable: true,
		},
		"profiles unknown": {
			reason:   "the mode rests on StorageProfiles not read: neither mode, request nor raw size is known",
			observed: state.AllKinds &^ state.StorageProfile,
			size:     "20Gi",
			want:     cdi.Rendering{Unobserved: state.StorageProfile, Raw: q("20Gi")},
		},
		"no CDIConfig": {
			reason:       "\"error getting CDIConfig\" (controller/datavolume/util.go pvcFromStorage)",
			change:       func(objs []client.Object) []client.Object { return objs[:2] },
			size:         "20Gi",
			want:         cdi.Rendering{Mode: corev1.PersistentVolumeBlock, ModeKnown: true, Raw: q("20Gi")},
			unrenderable: true,
		},
		"CDIConfig unknown, Block": {
			reason:   "a Block request needs no overhead: known",
			observed: state.AllKinds &^ state.CDIConfig,
			size:     "20Gi",
			want:     cdi.Rendering{Unobserved: state.CDIConfig, Mode: corev1.PersistentVolumeBlock, ModeKnown: true, Request: q("20Gi"), RequestKnown: true, Raw: q("20Gi"), RawKnown: true},
		},
		"CDIConfig unknown, Filesystem": {
			reason:   "a Filesystem request rests on the overhead: unknown",
			observed: state.AllKinds &^ state.CDIConfig,
			change:   setMode(fs),
			size:     "20Gi",
			want:     cdi.Rendering{Unobserved: state.CDIConfig, Mode: corev1.PersistentVolumeFilesystem, ModeKnown: true, Raw: q("20Gi"), RawKnown: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			objs := cluster()
			if tc.change != nil {
				objs = tc.change(objs)
			}
			observed := tc.observed
			if observed == 0 {
				observed = state.AllKinds
			}
			got := cdi.Render(state.NewSnapshot(fixtures.State(observed, objs...)), class, q(tc.size))
			assert.Equal(t, tc.renders, got.Renders(), "Renders; %s", tc.reason)
			if tc.unrenderable {
				assert.NotEmpty(t, got.Unrenderable, tc.reason)
				if !got.UnrenderableSize { // the size's way out is the caller's: a size of its values
					assert.NotEmpty(t, got.Fix, "the way out; %s", tc.reason)
				}
			} else {
				assert.Empty(t, got.Unrenderable, tc.reason)
			}
			// Compare what Render decides; the objects it found are
			// compared by name.
			assert.Equal(t, tc.want.Unobserved, got.Unobserved, "Unobserved; %s", tc.reason)
			assert.Equal(t, tc.want.ClassMissing, got.ClassMissing, "ClassMissing; %s", tc.reason)
			assert.Equal(t, tc.want.UnrenderableSize, got.UnrenderableSize, "UnrenderableSize; %s", tc.reason)
			assert.Equal(t, tc.want.Mode, got.Mode, "Mode; %s", tc.reason)
			assert.Equal(t, tc.want.ModeKnown, got.ModeKnown, "ModeKnown; %s", tc.reason)
			assert.Equal(t, tc.want.RequestKnown, got.RequestKnown, "RequestKnown; %s", tc.reason)
			assert.Equal(t, tc.want.RawKnown, got.RawKnown, "RawKnown; %s", tc.reason)
			if tc.want.RequestKnown {
				assert.Equal(t, tc.want.Request.Value(), got.Request.Value(), "Request; %s", tc.reason)
			}
			assert.Equal(t, tc.want.Raw.Value(), got.Raw.Value(), "Raw; %s", tc.reason)
		})
	}
}

// TestRenderKeepsWhatItFound: a rendering names the class and profile it
// read, for the causes that follow (expansion, strategy).
func TestRenderKeepsWhatItFound(t *testing.T) {
	r := cdi.Render(state.NewSnapshot(fixtures.State(state.AllKinds, cluster()...)), class, q("20Gi"))
	if assert.NotNil(t, r.Class) && assert.NotNil(t, r.Profile) {
		assert.Equal(t, class, r.Class.Name)
		assert.Equal(t, class, r.Profile.Name)
	}
}
