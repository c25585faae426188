package plantest

import (
	"math"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"pgregory.net/rapid"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"

	"github.com/cozystack/kubernetes-worker-image/internal/cdi"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
)

// foreignDriver is a CSI driver no drawn class provisions with: a golden's
// volume made or migrated by hand, a VolumeSnapshotClass left behind.
const foreignDriver = "foreign.csi.example.com"

// missingSnapshotClass is a VolumeSnapshotClass name a drawn StorageProfile
// may carry in status.snapshotClass while no such class exists (CDI's clone
// then errors and retries).
const missingSnapshotClass = "deleted-snapshots"

var cloneStrategies = []cdiv1.CDICloneStrategy{cdiv1.CloneStrategyCsiClone, cdiv1.CloneStrategySnapshot, cdiv1.CloneStrategyHostAssisted}

// strategy draws nil (weighted by none) or one of CDI's clone strategies,
// copy the least often.
func strategy(t *rapid.T, label string, none int) *cdiv1.CDICloneStrategy {
	if pick(t, label+"Set", none, 3) == 0 {
		return nil
	}
	return ptr.To(cloneStrategies[pick(t, label, 3, 2, 1)])
}

func volumeMode(t *rapid.T, label string) *corev1.PersistentVolumeMode {
	switch pick(t, label, 3, 2, 1) {
	case 0:
		return ptr.To(corev1.PersistentVolumeBlock)
	case 1:
		return ptr.To(corev1.PersistentVolumeFilesystem)
	}
	return nil
}

// snapshotClasses draws the VolumeSnapshotClasses: for each provisioner of
// the classes none, one or two (on a healthy cluster at least one), some
// annotated the driver's default (sometimes with a value that is not
// "true"); on an unhealthy cluster sometimes one of a driver no class has.
func (d *stateDraw) snapshotClasses() {
	t := d.t
	seen := map[string]bool{}
	add := func(name, driver string) {
		v := snapshotv1.VolumeSnapshotClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Driver: driver,
			DeletionPolicy: snapshotv1.VolumeSnapshotContentDelete}
		if chance(t, "snapshotClassDefault", 3) {
			v.Annotations = map[string]string{stateindex.DefaultSnapshotClassAnnotation: rapid.SampledFrom([]string{"true", "true", "true", "false"}).Draw(t, "snapshotClassDefaultValue")}
		}
		d.st.VolumeSnapshotClasses = append(d.st.VolumeSnapshotClasses, v)
	}
	for i, sc := range d.st.StorageClasses {
		p := sc.Provisioner
		if p == noProvisioner || seen[p] {
			continue
		}
		seen[p] = true
		n := 1 + pick(t, "snapshotClasses", 3, 1)
		if d.fault("snapshotClassesMissing", 3) {
			n = 0
		}
		for j := range n {
			add("snap-"+strconv.Itoa(i)+"-"+strconv.Itoa(j), p)
		}
	}
	if d.fault("foreignSnapshotClass", 4) {
		add("snap-foreign", foreignDriver)
	}
}

// profiles draws CDI's StorageProfile of each class (an unhealthy cluster
// may lack some): the status's claim property sets, which CDI renders a
// disk from, its clone strategy and snapshot class, the spec an admin
// wrote (CDI reads none of it for a disk), and a minimumSupportedPvcSize.
func (d *stateDraw) profiles() {
	t := d.t
	for _, sc := range d.st.StorageClasses {
		if d.fault("profileMissing", 8) {
			continue
		}
		sp := cdiv1.StorageProfile{ObjectMeta: metav1.ObjectMeta{Name: sc.Name}}
		sp.Status.StorageClass = ptr.To(sc.Name)
		sp.Status.Provisioner = ptr.To(sc.Provisioner)
		sp.Status.ClaimPropertySets = d.claimPropertySets()
		if chance(t, "profileSpecSets", 6) {
			sp.Spec.ClaimPropertySets = []cdiv1.ClaimPropertySet{{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				VolumeMode:  volumeMode(t, "specVolumeMode"),
			}}
		}
		sp.Spec.CloneStrategy = strategy(t, "profileSpecCloneStrategy", 6)
		switch {
		case d.fault("profileStrategyUnknown", 16):
			// The class's cdi.kubevirt.io/clone-strategy annotation is
			// none of CDI's strategies: CDI's profile controller writes
			// "" (storageprofile-controller.go reconcileCloneStrategy),
			// and a clone fails ("unknown strategy/source").
			sp.Status.CloneStrategy = ptr.To(cdiv1.CDICloneStrategy(""))
			d.annotateClass(sc.Name, cloneStrategyAnnotation, "rsync")
		case d.unhealthy:
			sp.Status.CloneStrategy = strategy(t, "profileStatusCloneStrategy", 2)
		case chance(t, "profileStatusCloneStrategySet", 2):
			// What CDI's profile controller writes when nothing asks for
			// a copy.
			sp.Status.CloneStrategy = ptr.To(rapid.SampledFrom([]cdiv1.CDICloneStrategy{cdiv1.CloneStrategyCsiClone, cdiv1.CloneStrategySnapshot}).Draw(t, "profileStatusCloneStrategy"))
		}
		if chance(t, "profileSnapshotClass", 4) {
			if name := d.snapshotClassName(sc.Provisioner); name != "" {
				sp.Status.SnapshotClass = ptr.To(name)
			}
		}
		if chance(t, "profileMinimum", 8) {
			sp.Annotations = map[string]string{cdi.MinimumSupportedPVCSizeAnnotation: rapid.SampledFrom([]string{"1Gi", "10Gi", "30Gi", "lots"}).Draw(t, "profileMinimumValue")}
		}
		d.st.StorageProfiles = append(d.st.StorageProfiles, sp)
	}
}

// claimPropertySets draws a profile's status sets: a first set CDI renders
// from, Block or Filesystem, RWX or RWO (sometimes with another set after
// it); on an unhealthy cluster also none (a provisioner CDI does not know),
// a first set without access modes (the next one is never read), or a nil
// volume mode (Filesystem to CDI).
func (d *stateDraw) claimPropertySets() []cdiv1.ClaimPropertySet {
	t := d.t
	access := []corev1.PersistentVolumeAccessMode{rapid.SampledFrom([]corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany, corev1.ReadWriteMany, corev1.ReadWriteOnce}).Draw(t, "accessMode")}
	mode := ptr.To(corev1.PersistentVolumeBlock)
	if chance(t, "profileFilesystem", 3) {
		mode = ptr.To(corev1.PersistentVolumeFilesystem)
	}
	sets := []cdiv1.ClaimPropertySet{{AccessModes: access, VolumeMode: mode}}
	if d.unhealthy {
		switch pick(t, "claimPropertySetsFault", 18, 1, 1, 1) {
		case 1:
			return nil
		case 2:
			sets[0].AccessModes = nil
			return append(sets, cdiv1.ClaimPropertySet{AccessModes: access, VolumeMode: mode})
		case 3:
			sets[0].VolumeMode = nil
		}
	}
	if chance(t, "secondClaimPropertySet", 4) {
		sets = append(sets, cdiv1.ClaimPropertySet{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, VolumeMode: ptr.To(corev1.PersistentVolumeFilesystem)})
	}
	return sets
}

// snapshotClassName draws a VolumeSnapshotClass name a profile may carry: one
// of driver's, on an unhealthy cluster also any drawn one or one that does
// not exist; "" when there is none to draw.
func (d *stateDraw) snapshotClassName(driver string) string {
	var names []string
	for _, v := range d.st.VolumeSnapshotClasses {
		if v.Driver == driver || d.unhealthy {
			names = append(names, v.Name)
		}
	}
	if d.unhealthy {
		names = append(names, missingSnapshotClass)
	}
	if len(names) == 0 {
		return ""
	}
	return rapid.SampledFrom(names).Draw(d.t, "snapshotClassName")
}

// cdi draws the CDI resource: Cozystack's cloneStrategyOverride csi-clone,
// none, or, on an unhealthy cluster, any strategy or no CDI resource.
func (d *stateDraw) cdi() {
	t := d.t
	if d.fault("cdiMissing", 6) {
		return
	}
	c := cdiv1.CDI{ObjectMeta: metav1.ObjectMeta{Name: "cdi"}}
	if d.unhealthy {
		c.Spec.CloneStrategyOverride = strategy(t, "cloneStrategyOverride", 3)
	} else if !chance(t, "noCloneStrategyOverride", 3) {
		c.Spec.CloneStrategyOverride = ptr.To(cdiv1.CloneStrategyCsiClone)
	}
	d.st.CDIs = append(d.st.CDIs, c)
}

// cloneStrategyAnnotation on a StorageClass asks CDI's profile controller
// for a clone strategy.
const cloneStrategyAnnotation = "cdi.kubevirt.io/clone-strategy"

func (d *stateDraw) annotateClass(class, key, value string) {
	for i := range d.st.StorageClasses {
		if sc := &d.st.StorageClasses[i]; sc.Name == class {
			if sc.Annotations == nil {
				sc.Annotations = map[string]string{}
			}
			sc.Annotations[key] = value
		}
	}
}

// overheads are filesystem overheads CDI's config may state; "0.06" is its
// default.
var overheads = []cdiv1.Percent{"0.06", "0.06", "0.06", "0", "0.1", "0.055"}

// cdiConfig draws CDI's CDIConfig "config" as its controller writes the
// status: a global filesystem overhead and one entry per class. An
// unhealthy cluster may have no CDIConfig (CDI renders no disk), a status
// with no overhead (CDI reads "0"), or classes missing from the map (CDI
// takes the global).
func (d *stateDraw) cdiConfig() {
	t := d.t
	if d.fault("cdiConfigMissing", 8) {
		return
	}
	c := cdiv1.CDIConfig{ObjectMeta: metav1.ObjectMeta{Name: stateindex.CDIConfigName}}
	if !d.fault("overheadUnset", 8) {
		fo := &cdiv1.FilesystemOverhead{Global: rapid.SampledFrom(overheads).Draw(t, "globalOverhead"), StorageClass: map[string]cdiv1.Percent{}}
		for _, sc := range d.st.StorageClasses {
			if d.fault("classOverheadMissing", 4) {
				continue
			}
			o := fo.Global
			if chance(t, "classOverheadOwn", 4) {
				o = rapid.SampledFrom(overheads).Draw(t, "classOverhead")
			}
			fo.StorageClass[sc.Name] = o
		}
		c.Status.FilesystemOverhead = fo
	}
	d.st.CDIConfigs = append(d.st.CDIConfigs, c)
}

// renderedRequest is the request CDI v1.64.0 writes on the PVC of a
// DataVolume of size on class in mode, from the cluster as drawn: in
// Filesystem (nil is Filesystem) the size rounded up to 1MiB and inflated
// by the class's overhead in the CDIConfig's status (per class, else
// global, none meaning 0), ceil(aligned × (1 + overhead)) in float64; in
// Block the size; then raised to the profile's minimumSupportedPvcSize
// when that parses and is larger.
func (d *stateDraw) renderedRequest(size resource.Quantity, class string, mode *corev1.PersistentVolumeMode) resource.Quantity {
	b := size.Value()
	if mode == nil || *mode != corev1.PersistentVolumeBlock {
		overhead := 0.0
		for _, c := range d.st.CDIConfigs {
			if fo := c.Status.FilesystemOverhead; fo != nil && c.Name == stateindex.CDIConfigName {
				o, ok := fo.StorageClass[class]
				if !ok {
					o = fo.Global
				}
				overhead, _ = strconv.ParseFloat(string(o), 64)
			}
		}
		aligned := int64(math.Ceil(float64(b)/float64(mi))) * mi
		b = int64(math.Ceil(float64(aligned) * (1 + overhead)))
	}
	out := *resource.NewQuantity(b, resource.BinarySI)
	for _, sp := range d.st.StorageProfiles {
		if q, err := resource.ParseQuantity(sp.Annotations[cdi.MinimumSupportedPVCSizeAnnotation]); sp.Name == class && err == nil && out.Cmp(q) < 0 {
			out = q
		}
	}
	return out
}
