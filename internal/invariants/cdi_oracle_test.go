package invariants_test

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// This file is an independent statement of what CDI v1.64.0
// (kubevirt/containerized-data-importer, the version Cozystack ships) does
// with a worker disk's DataVolume: spec.source.pvc the golden in
// cozy-public, spec.storage with a size and a class (or none), no access
// or volume mode, no annotation of CDI's. It is written from CDI's code
// (paths under pkg/)
// and reads the raw state, never the planner or the packages it uses, so
// that a property can hold the planner to it. It assumes what a drawn
// state cannot say: a Filesystem golden cloned to a Block disk passes the
// size-detection pod CDI runs (the image fits the disk), a
// WaitForFirstConsumer disk gets scheduled, and a golden that is importing
// eventually is populated.

// cdiOutcome is what becomes of the disk's DataVolume.
type cdiOutcome string

const (
	cdiRejected     cdiOutcome = "rejected"      // the webhook refuses the DataVolume
	cdiNeverRenders cdiOutcome = "never-renders" // the DataVolume never gets a PVC
	cdiWaits        cdiOutcome = "waits"         // CDI retries; the clone has not been decided
	cdiHostAssisted cdiOutcome = "host-assisted" // copied over the pod network
	cdiFails        cdiOutcome = "fails"         // the clone fails for good
	cdiCSIClone     cdiOutcome = "csi-clone"
	cdiSnapshot     cdiOutcome = "snapshot"
)

// The reasons CDI gives for a host-assisted copy, as the planner's
// HostAssistedClone messages carry them; a copy asked for by the strategy
// has none in CDI, and the planner says "cloneStrategy copy".
const (
	causeNoPopulator          = "NoPopulator"
	causeCopyStrategy         = "cloneStrategy copy"
	causeNoSnapshotClass      = "NoVolumeSnapshotClass"
	causeIncompatibleDrivers  = "IncompatibleProvisioners"
	causeIncompatibleModes    = "IncompatibleVolumeModes"
	causeNoVolumeExpansion    = "NoVolumeExpansion"
	waitSnapshotClassNotFound = "volumesnapshotclass not found"
	waitClaimRef              = "pvc does not match volume claim ref"
	waitActiveCDI             = "no single active CDI resource"
	waitNoSource              = "CloneWithoutSource"
	waitSizeInfo              = "source/target size info missing"
)

// hostAssistedCauses lists every cause in the order CDI meets them.
var hostAssistedCauses = []string{causeNoPopulator, causeCopyStrategy, causeNoSnapshotClass,
	causeIncompatibleDrivers, causeIncompatibleModes, causeNoVolumeExpansion}

// cdiVerdict is CDI's outcome for a disk, with the reason it gives, and the
// host-assisted causes that hold, each on its own, in CDI's order: what
// would make CDI copy, whatever comes first. First is the cause CDI
// reports: the first in its order, the waits on the way skipped (CDI
// retries until they are resolved, then goes on).
type cdiVerdict struct {
	Outcome cdiOutcome
	Reason  string
	Causes  []string
	First   string
	// Renders: the disk gets a PVC (not rejected, not unrenderable).
	Renders bool
	// GoldenComes: the golden's PVC exists, or its DataVolume (or its
	// catalog entry) renders one. Otherwise the disk waits for it for ever,
	// and no cause is stated.
	GoldenComes bool
	// Class is the class the disk renders on, "" when none.
	Class string
	// UnknownStrategy: the strategy CDI picks (once it picks one) is none
	// it knows, and the clone fails for good.
	UnknownStrategy bool
	// ImageMayNotFit: a Block disk of a Filesystem golden whose rendered
	// request is below the golden's. The oracle assumes the image fits
	// (CDI's size-detection pod passes); the planner, which cannot measure
	// the image, bounds it by the golden's request and refuses.
	ImageMayNotFit bool
}

// workerDisk is the DataVolume CDI is given: its class (nil: the field is
// absent) and size, and the golden it clones.
type workerDisk struct {
	Class  *string
	Size   resource.Quantity
	Golden string
}

// goldenSource is what the golden's PVC will be made from when it does not
// exist yet: its DataVolume's (or its catalog entry's) class, nil for none,
// and size. Nothing (nil) when no golden is coming.
type goldenSource struct {
	Class *string
	Size  resource.Quantity
}

const mebibyte = 1 << 20

// cluster answers lookups on a raw State, as CDI's client would.
type cluster struct{ st *state.State }

func (c cluster) storageClass(name string) *storagev1.StorageClass {
	for i := range c.st.StorageClasses {
		if c.st.StorageClasses[i].Name == name {
			return &c.st.StorageClasses[i]
		}
	}
	return nil
}

func (c cluster) profile(name string) *cdiv1.StorageProfile {
	for i := range c.st.StorageProfiles {
		if c.st.StorageProfiles[i].Name == name {
			return &c.st.StorageProfiles[i]
		}
	}
	return nil
}

func (c cluster) config() *cdiv1.CDIConfig {
	for i := range c.st.CDIConfigs {
		if c.st.CDIConfigs[i].Name == "config" {
			return &c.st.CDIConfigs[i]
		}
	}
	return nil
}

func (c cluster) csiDriverExists(name string) bool {
	for _, d := range c.st.CSIDrivers {
		if d.Name == name {
			return true
		}
	}
	return false
}

func (c cluster) claim(ns, name string) *corev1.PersistentVolumeClaim {
	for i := range c.st.PersistentVolumeClaims {
		if p := &c.st.PersistentVolumeClaims[i]; p.Namespace == ns && p.Name == name {
			return p
		}
	}
	return nil
}

func (c cluster) volume(name string) *corev1.PersistentVolume {
	for i := range c.st.PersistentVolumes {
		if c.st.PersistentVolumes[i].Name == name {
			return &c.st.PersistentVolumes[i]
		}
	}
	return nil
}

// defaultClass is the class a DataVolume without one gets
// (controller/common/util.go getFallbackStorageClass): of the classes whose
// annotation is exactly "true", the virt tier first, then the Kubernetes
// one (virt false: only the latter, as CDI's clone planner looks a claim's
// class up); within a tier the newest, then the first name.
func (c cluster) defaultClass(virt bool) *storagev1.StorageClass {
	tiers := []string{"storageclass.kubernetes.io/is-default-class"}
	if virt {
		tiers = append([]string{"storageclass.kubevirt.io/is-default-virt-class"}, tiers...)
	}
	for _, a := range tiers {
		var in []*storagev1.StorageClass
		for i := range c.st.StorageClasses {
			if sc := &c.st.StorageClasses[i]; sc.Annotations[a] == "true" {
				in = append(in, sc)
			}
		}
		if len(in) == 0 {
			continue
		}
		sort.Slice(in, func(i, j int) bool {
			ti, tj := in[i].CreationTimestamp.UnixNano(), in[j].CreationTimestamp.UnixNano()
			if ti != tj {
				return ti > tj
			}
			return in[i].Name < in[j].Name
		})
		return in[0]
	}
	return nil
}

// rendering is a PVC CDI renders for a DataVolume of the storage API.
type rendering struct {
	Class   *storagev1.StorageClass
	Profile *cdiv1.StorageProfile
	Block   bool
	Request int64 // inflated and raised
	Raw     int64 // the size raised to the profile's minimum, not inflated
	Failure string
}

// render is CDI's controller/datavolume/util.go renderPvcSpec for a
// DataVolume with a class (nil: none) and a size: CDI's config must exist;
// the class (or the default) must exist; its StorageProfile must exist and
// the first of its status's claim property sets must carry access modes,
// whose volume mode (nil is Filesystem) the PVC takes. In Filesystem the
// size is rounded up to whole MiB and grown by the filesystem overhead of
// the config's status (the class's entry, else the global; no status is
// "0"; what does not parse is 0), in float64 and rounded up; then the
// profile's minimumSupportedPvcSize, when it parses and is larger, replaces
// it. (A class that does not exist may still render from an Available
// volume of that class name; drawn states have none, and it is left out.)
func (c cluster) render(class *string, size resource.Quantity) rendering {
	cfg := c.config()
	if cfg == nil {
		return rendering{Failure: "error getting CDIConfig"}
	}
	var sc *storagev1.StorageClass
	if class == nil {
		sc = c.defaultClass(true)
	} else {
		sc = c.storageClass(*class)
	}
	if sc == nil {
		return rendering{Failure: "PVC spec is missing accessMode and no storageClass to choose profile"}
	}
	r := rendering{Class: sc, Profile: c.profile(sc.Name)}
	if r.Profile == nil {
		return rendering{Class: sc, Failure: "cannot get StorageProfile"}
	}
	sets := r.Profile.Status.ClaimPropertySets
	if len(sets) == 0 || len(sets[0].AccessModes) == 0 {
		return rendering{Class: sc, Profile: r.Profile, Failure: "no accessMode specified in StorageProfile " + sc.Name}
	}
	r.Block = sets[0].VolumeMode != nil && *sets[0].VolumeMode == corev1.PersistentVolumeBlock
	bytes := size.Value()
	r.Request = bytes
	if !r.Block {
		pct := "0"
		if fo := cfg.Status.FilesystemOverhead; fo != nil {
			pct = string(fo.Global)
			if v, ok := fo.StorageClass[sc.Name]; ok {
				pct = string(v)
			}
		}
		o, err := strconv.ParseFloat(pct, 64)
		if err != nil {
			o = 0
		}
		mib := int64(math.Ceil(float64(bytes)/float64(mebibyte))) * mebibyte
		r.Request = int64(math.Ceil(float64(mib) * (1 + o)))
	}
	r.Raw = bytes
	if m, err := resource.ParseQuantity(r.Profile.Annotations["cdi.kubevirt.io/minimumSupportedPvcSize"]); err == nil {
		r.Request = max(r.Request, m.Value())
		r.Raw = max(r.Raw, m.Value())
	}
	return r
}

// sourceClaim is the golden's PVC as CDI's clone reads it: the one that
// exists, or the one CDI will render from the golden's DataVolume.
type sourceClaim struct {
	Class       *string
	Block       bool
	Request     resource.Quantity
	HasRequest  bool
	Capacity    resource.Quantity
	HasCapacity bool
	// Unbound: the PVC is not bound yet, or not created yet (rendered from
	// its source).
	Unbound     bool
	ContentType string
	VolumeName  string
	Namespace   string
	Name        string
}

// goldenClaim is the golden's PVC, or the one its source will render; ok
// is false when no PVC of the golden will ever exist.
func (c cluster) goldenClaim(name string, src *goldenSource) (sourceClaim, bool) {
	if p := c.claim(naming.GoldenNamespace, name); p != nil {
		g := sourceClaim{Class: p.Spec.StorageClassName, VolumeName: p.Spec.VolumeName, Namespace: p.Namespace, Name: p.Name,
			Block: p.Spec.VolumeMode != nil && *p.Spec.VolumeMode == corev1.PersistentVolumeBlock,
			// CDI reads a missing content type as kubevirt
			// (controller/common/util.go GetContentType).
			ContentType: p.Annotations[contentTypeAnnotation]}
		if g.ContentType == "" {
			g.ContentType = "kubevirt"
		}
		g.Request, g.HasRequest = p.Spec.Resources.Requests[corev1.ResourceStorage]
		g.Capacity, g.HasCapacity = p.Status.Capacity[corev1.ResourceStorage]
		g.Unbound = p.Status.Phase != corev1.ClaimBound
		return g, true
	}
	if src == nil {
		return sourceClaim{}, false
	}
	r := c.render(src.Class, src.Size)
	if r.Failure != "" || src.Size.Value() < mebibyte {
		return sourceClaim{}, false
	}
	class := r.Class.Name
	return sourceClaim{Class: &class, Block: r.Block, Request: *resource.NewQuantity(r.Request, resource.BinarySI), HasRequest: true,
		ContentType: "kubevirt", Namespace: naming.GoldenNamespace, Name: name, Unbound: true}, true
}

// driverOf is the CSI driver CDI's clone planner takes a claim to be on
// (controller/clone/common.go GetDriverFromVolume, GetStorageClassForClaim):
// its volume's spec.csi.driver when it has a volume that points back at
// it; a volume that points at another claim is an error (wait true); else
// the provisioner of the class it names (none for no class, "", or a class
// that does not exist).
func (c cluster) driverOf(g sourceClaim) (driver string, wait bool) {
	if g.VolumeName != "" {
		if pv := c.volume(g.VolumeName); pv != nil && pv.Spec.ClaimRef != nil {
			if pv.Spec.ClaimRef.Namespace != g.Namespace || pv.Spec.ClaimRef.Name != g.Name {
				return "", true
			}
			if pv.Spec.CSI != nil {
				return pv.Spec.CSI.Driver, false
			}
		}
	}
	if g.Class == nil || *g.Class == "" {
		return "", false
	}
	if sc := c.storageClass(*g.Class); sc != nil {
		return sc.Provisioner, false
	}
	return "", false
}

// snapshotClassNamed is the status.snapshotClass of the profile of a
// claim's class (the Kubernetes default for a claim naming none), nil when
// there is none (controller/clone/common.go getSnapshotClassForClaim).
func (c cluster) snapshotClassNamed(class *string) *string {
	var sc *storagev1.StorageClass
	if class == nil {
		sc = c.defaultClass(false)
	} else {
		sc = c.storageClass(*class)
	}
	if sc == nil {
		return nil
	}
	if p := c.profile(sc.Name); p != nil {
		return p.Status.SnapshotClass
	}
	return nil
}

// snapshotClassFor is the VolumeSnapshotClass CDI's snapshot clone uses
// for driver (controller/clone/common.go GetCompatibleVolumeSnapshotClass,
// controller/common/util.go GetVolumeSnapshotClass): the one both claims'
// profiles name, if they name the same one, which must then exist (else an
// error: wait) and be of the driver (else none, and nothing else is
// tried); otherwise one of the driver's annotated default, else the first
// of the driver's by name.
func (c cluster) snapshotClassFor(driver string, golden, disk *string) (found, wait bool) {
	sg, sd := c.snapshotClassNamed(golden), c.snapshotClassNamed(disk)
	if sg != nil && sd != nil && *sg == *sd {
		for _, v := range c.st.VolumeSnapshotClasses {
			if v.Name == *sg {
				return v.Driver == driver, false
			}
		}
		return false, true
	}
	for _, v := range c.st.VolumeSnapshotClasses {
		if v.Driver == driver {
			return true, false
		}
	}
	return false, false
}

// activeCDIs counts the CDI resources CDI can use
// (controller/common/util.go GetActiveCDI): the only one, or those not in
// phase Error.
func (c cluster) activeCDIs() []cdiv1.CDI {
	if len(c.st.CDIs) == 1 {
		return c.st.CDIs
	}
	var out []cdiv1.CDI
	for _, x := range c.st.CDIs {
		if x.Status.Phase != "Error" {
			out = append(out, x)
		}
	}
	return out
}

// cdiDecide is CDI's decision for the disk, in CDI's order: the webhook,
// the render, the path (populator or legacy), the DataVolume's checks of
// its source, then the clone populator's size check and strategy.
func cdiDecide(st *state.State, d workerDisk, src *goldenSource) cdiVerdict {
	c := cluster{st}
	v := cdiVerdict{}
	done := func(o cdiOutcome, reason string) cdiVerdict {
		if v.Outcome == "" {
			v.Outcome, v.Reason = o, reason
		}
		return v
	}
	// Admission (apiserver/webhooks/datavolume-validate.go validateStorageSize).
	if d.Size.Value() < mebibyte {
		return done(cdiRejected, "Storage size should be at least 1MiB")
	}
	// Render (controller/datavolume/util.go renderPvcSpec).
	r := c.render(d.Class, d.Size)
	if r.Failure != "" {
		return done(cdiNeverRenders, r.Failure)
	}
	v.Renders, v.Class = true, r.Class.Name
	// The path: the populator only for a class whose provisioner has a
	// CSIDriver (controller/datavolume/controller-base.go
	// shouldUseCDIPopulator, util.go storageClassCSIDriverExists).
	populator := c.csiDriverExists(r.Class.Provisioner)

	g, ok := c.goldenClaim(d.Golden, src)
	if !ok {
		// No PVC of the golden exists, and none will: CDI waits for it
		// for ever.
		return done(cdiWaits, waitNoSource)
	}
	v.GoldenComes = true
	// Every cause, each on its own. With no single active CDI resource
	// CDI waits before it picks a strategy; the causes are stated as CDI
	// picks it once there is one, without an override.
	strategy := cdiv1.CloneStrategySnapshot
	cdis := c.activeCDIs()
	var override *cdiv1.CDICloneStrategy
	if len(cdis) == 1 {
		override = cdis[0].Spec.CloneStrategyOverride
	}
	switch {
	case override != nil:
		strategy = *override
	case r.Profile.Status.CloneStrategy != nil:
		strategy = *r.Profile.Status.CloneStrategy
	}
	switch strategy {
	case cdiv1.CloneStrategyHostAssisted, cdiv1.CloneStrategyCsiClone, cdiv1.CloneStrategySnapshot:
	default:
		v.UnknownStrategy = true
	}
	goldenDriver, driverWait := c.driverOf(g)
	common := ""
	if !driverWait && goldenDriver != "" && goldenDriver == r.Class.Provisioner {
		common = goldenDriver
	}
	vscFound, vscWait := false, false
	if common != "" {
		vscFound, vscWait = c.snapshotClassFor(common, g.Class, &v.Class)
	}
	// A golden PVC not bound yet counts, for the causes, as bound at the
	// size it requests: the copy CDI makes once it binds (the outcome
	// still waits for the bind).
	capacity, hasCapacity := g.Capacity, g.HasCapacity
	if g.Unbound && g.HasRequest && !g.Request.IsZero() {
		capacity, hasCapacity = g.Request, true
	}
	capacityShort := hasCapacity && capacity.Value() < r.Request &&
		(r.Class.AllowVolumeExpansion == nil || !*r.Class.AllowVolumeExpansion)
	if !populator {
		v.Causes = append(v.Causes, causeNoPopulator)
	}
	if strategy == cdiv1.CloneStrategyHostAssisted {
		v.Causes = append(v.Causes, causeCopyStrategy)
	}
	if strategy == cdiv1.CloneStrategySnapshot && common != "" && !vscFound && !vscWait {
		v.Causes = append(v.Causes, causeNoSnapshotClass)
	}
	if !driverWait && common == "" {
		v.Causes = append(v.Causes, causeIncompatibleDrivers)
	}
	if g.Block != r.Block {
		v.Causes = append(v.Causes, causeIncompatibleModes)
	}
	if capacityShort {
		v.Causes = append(v.Causes, causeNoVolumeExpansion)
	}

	// What CDI reports, in its order (controller/clone/planner.go
	// computeStrategyForSourcePVC, validateAdvancedClonePVC).
	advanced := strategy == cdiv1.CloneStrategySnapshot || strategy == cdiv1.CloneStrategyCsiClone
	switch {
	case !populator:
		v.First = causeNoPopulator
	case strategy == cdiv1.CloneStrategyHostAssisted:
		v.First = causeCopyStrategy
	case strategy == cdiv1.CloneStrategySnapshot && !driverWait && (common == "" || !vscFound && !vscWait):
		// A snapshot needs a common driver first: without one, CDI says
		// it found no snapshot class.
		v.First = causeNoSnapshotClass
	case advanced && !driverWait && common == "":
		v.First = causeIncompatibleDrivers
	case advanced && g.Block != r.Block:
		v.First = causeIncompatibleModes
	case advanced && capacityShort:
		v.First = causeNoVolumeExpansion
	}

	// The DataVolume's checks of its source
	// (controller/datavolume/pvc-clone-controller.go validateClone): the
	// content types, and for a Block golden its request against the disk's
	// size raised to the minimum, not inflated.
	if g.ContentType != "kubevirt" {
		return done(cdiFails, "Source contentType and target contentType do not match")
	}
	if g.Block && (!g.HasRequest || g.Request.Value() > r.Raw) {
		return done(cdiFails, "target resources requests storage size is smaller than the source")
	}
	// A Block disk of a Filesystem golden: CDI measures the image and
	// skips the populator's size check (pvc-clone-controller.go
	// detectCloneSize, cdi.kubevirt.io/permissiveClone); assumed to fit.
	permissive := r.Block && !g.Block
	v.ImageMayNotFit = permissive && g.HasRequest && g.Request.Value() > r.Request

	if !populator {
		return done(cdiHostAssisted, causeNoPopulator)
	}
	// The clone populator (controller/clone/planner.go validateSourcePVC):
	// the golden's request against the disk's rendered one.
	if !permissive && (!g.HasRequest || g.Request.Value() > r.Request) {
		return done(cdiFails, "target resources requests storage size is smaller than the source")
	}
	if len(cdis) != 1 {
		return done(cdiWaits, waitActiveCDI)
	}
	if strategy == cdiv1.CloneStrategySnapshot {
		switch {
		case driverWait:
			return done(cdiWaits, waitClaimRef)
		case common == "":
			return done(cdiHostAssisted, causeNoSnapshotClass)
		case vscWait:
			return done(cdiWaits, waitSnapshotClassNotFound)
		case !vscFound:
			return done(cdiHostAssisted, causeNoSnapshotClass)
		}
	}
	if advanced {
		switch {
		case driverWait:
			return done(cdiWaits, waitClaimRef)
		case common == "":
			return done(cdiHostAssisted, causeIncompatibleDrivers)
		case g.Block != r.Block:
			return done(cdiHostAssisted, causeIncompatibleModes)
		case !g.HasCapacity:
			return done(cdiWaits, waitSizeInfo)
		case capacityShort:
			return done(cdiHostAssisted, causeNoVolumeExpansion)
		}
	}
	switch strategy {
	case cdiv1.CloneStrategyHostAssisted:
		return done(cdiHostAssisted, causeCopyStrategy)
	case cdiv1.CloneStrategyCsiClone:
		return done(cdiCSIClone, "")
	case cdiv1.CloneStrategySnapshot:
		return done(cdiSnapshot, "")
	}
	return done(cdiFails, "unknown strategy/source")
}

// refuses reports whether the outcome is one a plan must refuse: CDI
// copies, never renders, rejects or fails the disk.
func (o cdiOutcome) refuses() bool {
	return o == cdiHostAssisted || o == cdiNeverRenders || o == cdiRejected || o == cdiFails
}

// clones reports whether CDI clones the golden at the storage layer.
func (o cdiOutcome) clones() bool { return o == cdiCSIClone || o == cdiSnapshot }

// causeDeps are the kinds a cause rests on, besides those the disk's render
// reads (StorageClass, StorageProfile, CDIConfig): what a plan must have
// observed to prove it. A golden's driver reads its PersistentVolume only
// when its PVC names one.
func causeDeps(cause string, volumeNamed bool) state.Kind {
	k := state.StorageClass | state.StorageProfile | state.CDIConfig
	pv := state.Kind(0)
	if volumeNamed {
		pv = state.PersistentVolume
	}
	switch cause {
	case causeNoPopulator:
		k |= state.CSIDriver
	case causeCopyStrategy:
		k |= state.CDI
	case causeNoSnapshotClass:
		k |= state.CDI | state.VolumeSnapshotClass | pv
	case causeIncompatibleDrivers:
		k |= pv
	}
	return k
}

// plannerCauses are the causes of the HostAssistedClone refusals of a plan,
// in its order, read from their messages. A driver mismatch under the
// snapshot strategy carries the reason CDI reports for it,
// NoVolumeSnapshotClass (CDI looks for a snapshot class of the common
// driver first); it is still the driver cause, IncompatibleProvisioners.
func plannerCauses(details []string) []string {
	out := plannerReasons(details)
	for i, c := range out {
		if c == causeNoSnapshotClass && (strings.Contains(details[i], "has no CSI driver") || strings.Contains(details[i], "is on CSI driver")) {
			out[i] = causeIncompatibleDrivers
		}
	}
	return out
}

// plannerReasons are the CDI reasons the HostAssistedClone refusals of a
// plan carry, one per refusal, in its order.
func plannerReasons(details []string) []string {
	out := make([]string, 0, len(details))
	for _, d := range details {
		for _, c := range hostAssistedCauses {
			if strings.Contains(d, "("+c) {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// sameSet reports whether a and b hold the same causes.
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
