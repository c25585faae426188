package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/catalogrelease"
	"github.com/cozystack/kubernetes-worker-image/catalog/vmimages"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/plan/vmdisk"
	"github.com/cozystack/kubernetes-worker-image/plan/whatif"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

// vmDiskResource is where cozystack-api serves VMDisks.
var vmDiskResource = schema.GroupVersionResource{Group: "apps.cozystack.io", Version: "v1alpha1", Resource: "vmdisks"}

// vmDiskResourceNames are the names `plan TYPE/NAME` takes for it.
var vmDiskResourceNames = []string{"vmdisks", "vmdisk", "vmdisks.apps.cozystack.io", "vmdisks.v1alpha1.apps.cozystack.io"}

// imagesRelease is the image catalog's HelmRelease.
var imagesRelease = catalogrelease.Images

// isVMDiskType reports whether s names the VMDisk resource.
func isVMDiskType(s string) bool {
	for _, n := range vmDiskResourceNames {
		if strings.EqualFold(s, n) {
			return true
		}
	}
	return false
}

// vmDiskArgs reads `plan vmdisks/NAME …`, `plan vmdisks NAME …` and `plan
// vmdisks` (every VMDisk of the namespace, or of every one with -A): ok
// reports that args name VMDisks at all.
func vmDiskArgs(args []string) (names []string, ok bool, err error) {
	if len(args) == 0 {
		return nil, false, nil
	}
	if isVMDiskType(args[0]) {
		for _, a := range args[1:] {
			if strings.Contains(a, "/") {
				return nil, true, badUsage("there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (%q)", a)
			}
		}
		return args[1:], true, nil
	}
	typ, _, _ := strings.Cut(args[0], "/")
	if !isVMDiskType(typ) {
		return nil, false, nil
	}
	for _, a := range args {
		typ, name, cut := strings.Cut(a, "/")
		if !cut || !isVMDiskType(typ) || name == "" {
			return nil, true, badUsage("%q is not a VMDisk of the cluster: name it vmdisks/NAME, and plan pools in a run of their own", a)
		}
		names = append(names, name)
	}
	return names, true, nil
}

// vmDiskDocuments are the VMDisks (and vm-disk HelmReleases) of inputs;
// ok reports that the inputs hold at least one and no KubernetesNodes.
func (a *app) vmDiskDocuments(inputs []input) (disks []vmdisk.VMDisk, ok bool, err error) {
	pools := 0
	for _, in := range inputs {
		docs, err := a.documents(in.name, in.data)
		if err != nil {
			return nil, false, nil // the pool path reports it
		}
		for _, d := range docs {
			if _, perr := whatif.PoolValuesFromObject(d.Object.Object); perr == nil {
				pools++
				continue
			}
			if disk, derr := vmdisk.Decode(d.Object.Object); derr == nil {
				disks = append(disks, disk)
			}
		}
	}
	switch {
	case len(disks) == 0:
		return nil, false, nil
	case pools > 0:
		return nil, true, badUsage("the files hold %d %s and %d %s: plan pools and VMDisks in runs of their own", pools, plural(pools, plan.PoolKind), len(disks), plural(len(disks), "VMDisk"))
	}
	return disks, true, nil
}

// vmDiskReport is what `plan` prints of VMDisks.
type vmDiskReport struct {
	Images *catalogSource  `json:"images,omitempty"`
	Disks  []vmdisk.Result `json:"vmdisks"`
	// unverified are the planned disks, by index, whose plan could not
	// read a kind it needed.
	unverified map[int]state.Kind
}

// runPlanVMDisks plans VMDisks: those of the -f inputs (disks), or the
// cluster's named by names, of -n, or of every namespace with -A.
func (a *app) runPlanVMDisks(o *options, names []string, disks []vmdisk.VMDisk) error {
	switch {
	case o.output == chartOut:
		return badUsage("-o chart prints a pool's dataVolumeTemplates entry; a VMDisk has none: use -o yaml")
	case o.output == wideOut:
		return badUsage("-o wide prints pools; for VMDisks use the default output, -o yaml or -o json")
	case o.name != "":
		return badUsage("--name reads a pool's bare values; a VMDisk is read from its documents")
	case disks == nil && o.state != "":
		return badUsage("the cluster's VMDisks are read against the cluster's state; --state goes with -f")
	case disks == nil && len(names) > 0 && o.allNamespaces:
		return badUsage("a VMDisk's name goes with -n NAMESPACE, not with -A")
	}
	if disks == nil {
		var err error
		if disks, err = a.clusterVMDisks(o, names); err != nil {
			return err
		}
	}
	v, err := a.snapshot(o, func() state.Request { return vmdisk.NeedsAll(disks) }, false)
	if err != nil {
		return err
	}
	images, src, err := a.loadImages(o, v)
	if err != nil {
		return err
	}
	rep := vmDiskReport{Images: src, Disks: make([]vmdisk.Result, len(disks)), unverified: map[int]state.Kind{}}
	refused := false
	for i, d := range disks {
		r, _ := vmdisk.Plan(d, images, v.snap)
		v.explain(r.Warnings)
		if o.strict {
			var rs guard.Refusals
			if r.Warnings, rs = strictRefusals(r.Warnings); len(rs) > 0 {
				r.Refusals = append(r.Refusals, rs...)
				r.Outcome, r.DataVolume = plan.Refused, nil
			}
		}
		if r.Outcome == plan.Planned && v.cluster {
			var kinds state.Kind
			for _, w := range r.Warnings {
				if k, ok := kindNamed(w.Kind); ok && w.Reason == guard.StateUnverified {
					kinds |= k
				}
			}
			if kinds != 0 {
				rep.unverified[i] = kinds
			}
		}
		refused = refused || r.Outcome == plan.Refused
		rep.Disks[i] = r
	}
	if err := a.writeVMDisks(o, &rep); err != nil {
		return err
	}
	switch {
	case refused:
		return errRefused
	case len(rep.unverified) > 0:
		return errUnverified
	}
	return nil
}

// clusterVMDisks reads VMDisks from the cluster: by name in the
// namespace, every one of the namespace, or of every namespace (-A), in
// pages as clusterPoolObjects reads pools.
func (a *app) clusterVMDisks(o *options, names []string) ([]vmdisk.VMDisk, error) {
	if a.conn == nil {
		var err error
		if a.conn, err = a.connect(o); err != nil {
			return nil, err
		}
	}
	c := a.conn
	served, why, err := c.served.Serves(vmDiskResource)
	if err != nil {
		return nil, failed("read %s: %v", c.name, err)
	}
	if !served {
		return nil, failed("%s serves no VMDisk (%s): %s", c.name, vmDiskResource.GroupVersion(), why)
	}
	ns := c.namespace
	if o.namespace != "" {
		ns = o.namespace
	}
	res := c.dyn.Resource(vmDiskResource)
	ctx := context.Background()
	var objs []unstructured.Unstructured
	if len(names) > 0 {
		for _, n := range names {
			obj, err := res.Namespace(ns).Get(ctx, n, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return nil, failed("%s %q not found in namespace %s", vmDiskResource.GroupResource(), n, ns)
			}
			if err != nil {
				return nil, failed("read VMDisk %s/%s of %s: %v", ns, n, c.name, err)
			}
			objs = append(objs, *obj)
		}
	} else {
		where := "in namespace " + ns
		if o.allNamespaces {
			ns, where = metav1.NamespaceAll, "in every namespace"
		}
		opts := metav1.ListOptions{Limit: listPage}
		for {
			l, err := res.Namespace(ns).List(ctx, opts)
			if err != nil {
				return nil, failed("list %s %s of %s: %v", vmDiskResource.GroupResource(), where, c.name, err)
			}
			objs = append(objs, l.Items...)
			if opts.Continue = l.GetContinue(); opts.Continue == "" {
				break
			}
		}
		if len(objs) == 0 {
			printf(a.stderr, "note: no VMDisk %s of %s\n", where, c.name)
		}
	}
	disks := make([]vmdisk.VMDisk, 0, len(objs))
	for i := range objs {
		d, err := vmdisk.Decode(objs[i].Object)
		if err != nil {
			return nil, failed("VMDisk %s/%s: %v", objs[i].GetNamespace(), objs[i].GetName(), err)
		}
		disks = append(disks, d)
	}
	return disks, nil
}

// loadImages is the image catalog: the --images values (or the
// vm-default-images HelmRelease object it holds), else that release read
// from the cluster; none when neither can be had, which the output says
// (a VMDisk that clones an image then clones whatever golden the cluster
// holds).
func (a *app) loadImages(o *options, v view) (*vmimages.Catalog, *catalogSource, error) {
	if o.images != "" {
		data, name, err := a.readFile(o.images)
		if err != nil {
			return nil, nil, err
		}
		m, err := values(name, data)
		if err != nil {
			return nil, nil, err
		}
		src := &catalogSource{Source: fromFile, File: name}
		if catalogrelease.IsHelmRelease(m) {
			var from catalogrelease.Source
			if v.cluster {
				from = a.conn.releaseSource()
			}
			rel, err := catalogrelease.Values(context.Background(), m, from)
			if errors.Is(err, catalogrelease.ErrOffline) {
				return nil, nil, unusable("%s holds a HelmRelease whose %v: pass --kubeconfig (or --context) to read them from the cluster, or give --images the merged values", name, err)
			}
			if err != nil {
				return nil, nil, unusable("%s: the HelmRelease's %v", name, err)
			}
			meta, _ := m["metadata"].(map[string]any)
			ns, _ := meta["namespace"].(string)
			n, _ := meta["name"].(string)
			src = &catalogSource{Source: fromReleaseFile, File: name, Release: ns + "/" + n, Notes: rel.Notes}
			for _, r := range rel.Read {
				src.ValuesFrom = append(src.ValuesFrom, r.String())
			}
			m = rel.Values
		}
		return vmimages.Decode(m), src, nil
	}
	if !v.cluster {
		return nil, &catalogSource{Source: fromReadBack, Release: imagesRelease.String(), Fallback: "no cluster was read"}, nil
	}
	m, src, why, err := a.conn.readRelease(imagesRelease)
	if err != nil {
		return nil, nil, err
	}
	if m == nil {
		return nil, &catalogSource{Source: fromReadBack, Release: imagesRelease.String(), Fallback: why}, nil
	}
	if src.Deployed != nil && !*src.Deployed {
		return nil, src, nil
	}
	return vmimages.Decode(m), src, nil
}

// imagesText says where the image catalog came from, in a sentence.
func imagesText(s *catalogSource) string {
	if s == nil || s.Source == fromFile {
		return "" // a values file is the user's own word
	}
	switch {
	case s.Source == fromReadBack:
		return "images: no image catalog, since the HelmRelease " + s.Release + " could not be read: " + s.Fallback +
			"; an image clones whatever golden the cluster holds (pass --images VALUES.yaml)"
	case s.Deployed != nil && !*s.Deployed:
		return "images: the HelmRelease " + s.Release + " does not exist, so no image catalog is deployed"
	}
	return "images: " + strings.TrimPrefix(s.text(), "catalog: ")
}

// writeVMDisks prints the report: -o yaml or json whole, else a headline
// per disk with its warnings and refusals, and a count.
func (a *app) writeVMDisks(o *options, rep *vmDiskReport) error {
	switch o.output {
	case yamlOut, jsonOut:
		shape := map[string]any{"vmdisks": rep.Disks}
		if rep.Images != nil {
			shape["images"] = rep.Images
		}
		if len(rep.unverified) > 0 {
			out := make([]map[string]any, len(rep.Disks))
			for i, r := range rep.Disks {
				m, err := jsonObject(r)
				if err != nil {
					return err
				}
				if k, ok := rep.unverified[i]; ok {
					m["outcome"] = string(unverified)
					m["unread"] = strings.Split(k.String(), "|")
				}
				out[i] = m
			}
			shape["vmdisks"] = out
		}
		return writeData(a.stdout, o.output, shape)
	}
	w := a.stdout
	if t := imagesText(rep.Images); t != "" {
		printf(a.stderr, "%s\n", t)
	}
	planned := 0
	for i, r := range rep.Disks {
		if i > 0 {
			fmt.Fprintln(w)
		}
		head := vmDiskHeadline(r)
		if k, ok := rep.unverified[i]; ok {
			head = "unverified (could not read " + strings.ReplaceAll(k.String(), "|", ", ") + "), " + head
		}
		printf(w, "%s/%s: %s\n", r.Namespace, r.Name, head)
		for _, x := range r.Warnings {
			printf(w, "%swarning %s\n", humanIndent, finding(x.Reason, x.Field, x.Detail, x.Cause))
		}
		if r.Outcome != plan.Planned {
			for _, x := range r.Refusals {
				printf(w, "%srefused %s\n", humanIndent, finding(x.Reason, x.Field, x.Detail, ""))
			}
			continue
		}
		planned++
	}
	n, u := len(rep.Disks), len(rep.unverified)
	printf(w, "\n%d %s: %d planned, %d unverified, %d refused\n", n, plural(n, "VMDisk"), planned-u, u, n-planned)
	return nil
}

// vmDiskHeadline is a disk's outcome in a line: what the chart creates,
// from what, on which class.
func vmDiskHeadline(r vmdisk.Result) string {
	if r.Outcome != plan.Planned {
		n := len(r.Refusals)
		return fmt.Sprintf("refused (%d %s)", n, plural(n, "refusal"))
	}
	var b strings.Builder
	b.WriteString("planned, ")
	dv := r.DataVolume
	switch {
	case r.Exists:
		fmt.Fprintf(&b, "DataVolume %s exists: the chart keeps its spec", dv.Name)
	case r.Clones != "":
		fmt.Fprintf(&b, "DataVolume %s clones %s", dv.Name, r.Clones)
	default:
		fmt.Fprintf(&b, "DataVolume %s, %s", dv.Name, r.Source)
	}
	switch sc := r.StorageClass; sc.From {
	case storage.Cluster:
		b.WriteString(", on the cluster's default class when applied")
	default:
		fmt.Fprintf(&b, ", on class %q", sc.Name)
	}
	return b.String()
}
