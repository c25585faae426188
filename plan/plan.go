package plan

import (
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
	"github.com/cozystack/kubernetes-worker-image/internal/chartvalues"
	"github.com/cozystack/kubernetes-worker-image/internal/cloneguard"
	"github.com/cozystack/kubernetes-worker-image/internal/diskentry"
	"github.com/cozystack/kubernetes-worker-image/internal/findings"
	"github.com/cozystack/kubernetes-worker-image/internal/memo"
	"github.com/cozystack/kubernetes-worker-image/internal/parallel"
	"github.com/cozystack/kubernetes-worker-image/internal/size"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

// Values paths of the fields the planner reads.
var (
	pathCluster      = field.NewPath("cluster")
	pathName         = field.NewPath("metadata", "name")
	pathNamespace    = field.NewPath("metadata", "namespace")
	pathDiskSize     = field.NewPath("diskSize")
	pathStorageClass = field.NewPath("storageClass")
	pathOSImage      = field.NewPath("osImage")
	pathBuiltin      = pathOSImage.Child("builtin")
	pathFactory      = pathOSImage.Child("factory")
	pathTalos        = field.NewPath("talos")

	pathBuiltinSchematicID   = pathBuiltin.Child("schematicID")
	pathBuiltinVersion       = pathBuiltin.Child("version")
	pathTalosSchematicID     = pathTalos.Child("schematicID")
	pathTalosVersion         = pathTalos.Child("version")
	pathTalosImageFactoryURL = pathTalos.Child("imageFactoryURL")
)

var (
	emptySnapshot = state.NewSnapshot(nil)
	emptyCatalog  = catalog.Compile(catalog.Values{Images: []catalog.Image{}})
)

// Plan decides a pool's disk-system DataVolume against a catalog and a
// snapshot of the cluster. It does no I/O, does not modify its inputs, is
// deterministic and safe for concurrent use. The refusals come back on the
// result (Result.Refusals) and as the error, nil when the pool is planned:
// the error is always Result.Refusals.Err(), so
// errors.Is(err, guard.StorageClassMismatch) asks for a reason and
// errors.As finds a *guard.Refusal. A nil catalog is an empty, disabled
// one; a nil snapshot knows nothing of the cluster.
func Plan(pool Pool, cat *catalog.Catalog, snap *state.Snapshot) (Result, error) {
	p := newPlanner(pool, cat, snap)
	p.run()
	return p.res, p.res.Refusals.Err()
}

func newPlanner(pool Pool, cat *catalog.Catalog, snap *state.Snapshot) planner {
	if cat == nil {
		cat = emptyCatalog
	}
	if snap == nil {
		snap = emptySnapshot
	}
	p := planner{pool: pool, cat: cat, snap: snap}
	p.res.Namespace, p.res.Name = pool.Namespace, pool.Name
	return p
}

func (p *planner) run() {
	p.plan()
	p.finish()
}

// PlanAll plans many pools against one catalog and one snapshot: its
// results are in the pools' order, each what Plan returns for its pool. A
// fleet of more than a hundred or so pools is planned on every processor
// the program may use (GOMAXPROCS): the plans share nothing but the
// catalog and the snapshot, which they only read. Plan does not panic; if
// it did (a bug), the panic reaches PlanAll's caller, with the stack of
// the goroutine it happened on.
func PlanAll(pools []Pool, cat *catalog.Catalog, snap *state.Snapshot) []Result {
	out := make([]Result, len(pools))
	parallel.For(len(pools), func(i int) {
		out[i], _ = Plan(pools[i], cat, snap)
	})
	return out
}

type planner struct {
	pool Pool
	cat  *catalog.Catalog
	snap *state.Snapshot
	c    findings.Collector
	res  Result
	// unverified collects the kinds a guard needed but could not read.
	unverified state.Kind
	// entryOnly keeps the disk's description in entry in place of the
	// DataVolume object (planEntry).
	entryOnly bool
	entry     diskentry.Disk
}

func (p *planner) finish() {
	for _, k := range p.unverified.Each() {
		w := findings.NewWarning(guard.StateUnverified, unverifiedField(k),
			"%s objects were not observed, so the guards that read them did not run; plan against the cluster's state to check them", k)
		w.Kind = k.String()
		p.c.AddWarning(w)
	}
	if !p.c.Empty() {
		// Named only now: a clean plan, the common case, builds no message.
		p.c.Stamp("pool " + p.pool.Namespace + "/" + p.pool.Name)
	}
	p.res.Warnings = p.c.Warnings()
	p.res.Refusals = p.c.Refusals()
	if p.c.Refused() {
		p.res = Result{Namespace: p.res.Namespace, Name: p.res.Name, Outcome: Refused, Warnings: p.res.Warnings, Refusals: p.res.Refusals}
		return
	}
	p.res.Outcome = Planned
}

func (p *planner) plan() {
	spec := &p.pool.Spec
	judged, refusals, warnings := spec.judged()
	*spec = judged
	p.c.Add(refusals)
	for _, w := range warnings {
		p.c.AddWarning(w)
	}
	p.checkName()
	img := spec.OSImage
	switch {
	case img != nil && img.Builtin != nil && img.Factory != nil:
		p.c.Refuse(guard.ConflictingImageSource, pathOSImage, "builtin+factory",
			"osImage sets both builtin and factory; keep builtin to clone the catalog's golden, or factory to import over HTTP")
		// Whichever is kept, its own fields must be valid: say so now.
		p.checkOwn(img.Builtin.SchematicID, img.Builtin.Version, pathBuiltinSchematicID, pathBuiltinVersion)
		p.checkOwn(img.Factory.SchematicID, img.Factory.Version, pathFactory.Child("schematicID"), pathFactory.Child("version"))
		if u := img.Factory.ImageFactoryURL; u != "" {
			p.c.Add(naming.ValidateImageFactoryURL(u, pathFactory.Child("imageFactoryURL")))
		}
	case img != nil && img.Builtin != nil:
		p.planClone(img.Builtin)
	default:
		var f *Factory
		if img != nil {
			f = img.Factory
		}
		p.planHTTP(f)
	}
}

// checkOwn validates the schematic ID and version an override sets itself.
func (p *planner) checkOwn(id, version string, idPath, versionPath *field.Path) {
	if id != "" {
		p.c.Add(naming.ValidateSchematicID(id, idPath))
	}
	if version != "" {
		p.c.Add(naming.ValidateVersion(version, versionPath))
	}
}

// checkFlavor validates the values an image URL is built from: refusals
// when refuse is set, else warnings (the pre-feature render renders them as
// given). The chart's defaults are valid and skip the patterns: most pools
// set none of them, and every pool is planned on every reconcile.
func (p *planner) checkFlavor(id, version, factory string, idPath, versionPath, urlPath *field.Path, refuse bool) {
	var rs guard.Refusals
	if id != chartdefaults.SchematicID {
		rs = append(rs, naming.ValidateSchematicID(id, idPath)...)
	}
	if version != chartdefaults.Version {
		rs = append(rs, naming.ValidateVersion(version, versionPath)...)
	}
	if factory != chartdefaults.ImageFactoryURL {
		rs = append(rs, naming.ValidateImageFactoryURL(factory, urlPath)...)
	}
	if refuse {
		p.c.Add(rs)
		return
	}
	for _, r := range rs {
		p.c.AddWarning(guard.Warning{Reason: r.Reason, Field: r.Field,
			Detail: r.Detail + "; the pre-feature chart renders it as given, so the disk is rendered that way, and it may fetch another image or none"})
	}
}

// validLabel and validSubdomain remember apimachinery's answers: a
// controller plans the same pools on every reconcile.
var (
	validLabel     = memo.New(func(s string) bool { return len(validation.IsDNS1123Label(s)) == 0 })
	validSubdomain = memo.New(func(s string) bool { return len(validation.IsDNS1123Subdomain(s)) == 0 })
)

// checkName refuses a KubernetesNodes name that is not "<cluster>-<pool>",
// as the chart does, and a namespace or name Kubernetes would not admit: a
// DNS-1123 label and a DNS-1123 subdomain. Names reach annotations, chart
// text and terminals; a name that is not one is not a pool's.
func (p *planner) checkName() {
	if !validLabel.Of(p.pool.Namespace) {
		errs := validation.IsDNS1123Label(p.pool.Namespace)
		p.c.Refuse(guard.InvalidPoolName, pathNamespace, p.pool.Namespace,
			"namespace %q is not a DNS-1123 label (%s); a pool lives in a tenant namespace such as tenant-demo", p.pool.Namespace, strings.Join(errs, "; "))
	}
	if !validSubdomain.Of(p.pool.Name) {
		errs := validation.IsDNS1123Subdomain(p.pool.Name)
		p.c.Refuse(guard.InvalidPoolName, pathName, p.pool.Name,
			"name %q is not a DNS-1123 subdomain (%s); name the pool <cluster>-<pool> in lowercase letters, digits and '-'", p.pool.Name, strings.Join(errs, "; "))
		return
	}
	cluster := p.pool.Spec.Cluster
	if cluster == "" {
		p.c.Refuse(guard.InvalidPoolName, pathCluster, "",
			"cluster is not set; set cluster to the parent cluster's name and name the pool <cluster>-<pool>")
		return
	}
	if rest, ok := strings.CutPrefix(p.pool.Name, cluster+"-"); !ok || rest == "" {
		p.c.Refuse(guard.InvalidPoolName, pathName, p.pool.Name,
			"name %q is not %q followed by the pool's name; rename it %s-<pool>", p.pool.Name, cluster+"-", cluster)
	}
}

// diskSize is the pool's diskSize with the chart's fallback for "".
func (p *planner) diskSize() string {
	if s := p.pool.Spec.DiskSize; s != "" {
		return s
	}
	return chartdefaults.DiskSize
}

// checkDiskSize refuses a diskSize the kubernetes-nodes chart's values
// schema refuses, whoever wrote it: a string off the schema's quantity
// pattern fails the release's schema validation (Helm checks it on
// install, upgrade and template, so Flux's release fails), and one past
// size.MaxLength is refused unparsed. It reports whether the size is
// refused. "" is unset (20Gi); what the decoder refused of the values
// ("", a fraction, a boolean) it has said, and left DiskSize "".
func (p *planner) checkDiskSize() bool {
	s := p.pool.Spec.DiskSize
	switch {
	case len(s) > size.MaxLength:
		p.c.Add(guard.Refusals{size.TooLong(s, pathDiskSize)})
		return true
	case s != "" && !chartvalues.IsQuantity(s):
		p.c.Refuse(guard.InvalidValue, pathDiskSize, s,
			"diskSize is %s: the kubernetes-nodes values schema holds a diskSize string to its quantity pattern (digits, an optional fraction, then a binary or decimal suffix or an exponent), so Helm refuses the release; write a size such as %s", chartvalues.Describe(s), chartdefaults.DiskSize)
		return true
	}
	return false
}

// planHTTP renders what the pre-feature chart rendered: the talos values as
// given, the factory override's own fields validated.
func (p *planner) planHTTP(f *Factory) {
	t := &p.pool.Spec.Talos
	id, ver, factory := t.SchematicID, t.Version, t.ImageFactoryURL
	idPath, verPath, urlPath := pathTalosSchematicID, pathTalosVersion, pathTalosImageFactoryURL
	if f != nil {
		if f.SchematicID != "" {
			id, idPath = f.SchematicID, pathFactory.Child("schematicID")
		}
		if f.Version != "" {
			ver, verPath = f.Version, pathFactory.Child("version")
		}
		if f.ImageFactoryURL != "" {
			factory, urlPath = f.ImageFactoryURL, pathFactory.Child("imageFactoryURL")
		}
	}
	// The factory override builds its URL from these values, its own or
	// falling back to talos.*: each is validated, refused at the field it
	// came from, so that no value can reach another host
	// or path than the Image Factory's. Without osImage the pre-feature
	// chart rendered them as given: that stays, with a warning.
	p.checkFlavor(id, ver, factory, idPath, verPath, urlPath, f != nil)
	if p.checkDiskSize() {
		return
	}
	diskSize := p.diskSize()
	p.res.Source = HTTP
	p.res.DiskSize = diskSize
	p.res.InstallerImage = naming.InstallerImage(t.InstallerRepository, id, ver)
	q, err := size.Quantity(diskSize)
	sizeOK := err == nil && q.Sign() > 0
	if !sizeOK {
		p.c.Warn(guard.InvalidQuantity, pathDiskSize,
			"diskSize %q is not a positive quantity; it is rendered as given, as the chart always did, and the API server will reject it; use a size such as %s", diskSize, chartdefaults.DiskSize)
	}
	d := diskentry.Disk{Name: DiskName, UsePopulator: "false", URL: naming.ImageURL(factory, id, ver), Size: diskSize}
	p.res.StorageClass = storage.Resolution{From: storage.Cluster}
	if c := p.pool.Spec.StorageClass; c != "" {
		p.res.StorageClass = storage.Resolution{Name: c, From: storage.Explicit}
		d.Class = c
	}
	p.writeDisk(&d, q, sizeOK)
	p.warnUnrenderable(q, sizeOK)
}

// warnUnrenderable warns, from what was observed, of an HTTP disk CDI never
// renders a PVC for: the HTTP path gains no refusal the pre-feature chart
// did not have, but such a disk never imports and its worker never boots.
func (p *planner) warnUnrenderable(size resource.Quantity, sizeOK bool) {
	if !stateindex.Of(p.snap).Observed(state.StorageClass) {
		return
	}
	class := p.pool.Spec.StorageClass
	if class == "" {
		if class = stateindex.Of(p.snap).DefaultClass().Name; class == "" {
			p.c.Warn(guard.DiskUnrenderable, pathStorageClass,
				"storageClass is empty and the cluster has no default StorageClass that CDI reads (is-default-virt-class or is-default-class \"true\"), so CDI never renders the disk's PVC; set storageClass, or mark a default class")
			return
		}
	}
	w := workerWords
	w.SizeText = p.diskSize()
	cloneguard.Render(p.snap, &p.c, class, size, sizeOK, "", &workerPaths, &w)
}

// unverifiedField is the values field whose guards needed a kind: the
// goldens and the pool's disks are read for osImage.builtin, the rest for
// the class comparison and the clone strategy.
func unverifiedField(k state.Kind) *field.Path {
	if k&(state.DataVolume|state.PersistentVolumeClaim) != 0 {
		return pathBuiltin
	}
	return pathStorageClass
}
