package manifests

import (
	"fmt"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/kinds"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// NoteReason says why an object of the input did not make it into the State.
type NoteReason string

const (
	// KindNotRead is an object of a kind the planner does not read.
	KindNotRead NoteReason = "KindNotRead"
	// VersionNotRead is an object of a kind the planner reads, in a
	// version it does not (a storage.k8s.io/v1beta1 StorageClass): the
	// State does not observe that kind, nor does Result.Observed.
	VersionNotRead NoteReason = "VersionNotRead"
	// Superseded is an object that appears again later (in the same file
	// or a later one); the later copy is kept.
	Superseded NoteReason = "Superseded"
)

// Position is a line in a file.
type Position struct {
	File string
	Line int
}

// Note is an object left out of the State, and why. Notes are for the
// operator (the CLI prints them on standard error), never errors.
type Note struct {
	// Position is where the object is.
	Position
	Reason NoteReason
	// The object, as the input named it.
	APIVersion, Kind, Namespace, Name string
	// By is the later copy that replaced a Superseded object.
	By Position
}

func (n Note) String() string {
	obj := n.Name
	if n.Namespace != "" {
		obj = n.Namespace + "/" + n.Name
	}
	switch n.Reason {
	case Superseded:
		return fmt.Sprintf("%s:%d: %s %s %s appears again at %s:%d, which is kept", n.File, n.Line, n.APIVersion, n.Kind, obj, n.By.File, n.By.Line)
	case VersionNotRead:
		return fmt.Sprintf("%s:%d: skipped %s %s %s: the planner reads %s only as %s, so the file's %s are unknown (%s)",
			n.File, n.Line, n.APIVersion, n.Kind, obj, plural(n.Kind), readAs(n), plural(n.Kind), dumpAs(n))
	default:
		return fmt.Sprintf("%s:%d: skipped %s %s %s: the planner reads only %s", n.File, n.Line, n.APIVersion, n.Kind, obj, kinds.Read())
	}
}

// Cause says, of a VersionNotRead note, why its kind is unknown and the
// way out, for a StateUnverified warning's cause: "state.yaml:12 holds
// DataVolume t/disk in cdi.kubevirt.io/v1alpha1, a version the planner
// does not read, so no DataVolume of it counts, --observed or not (kubectl
// get datavolumes.v1beta1.cdi.kubevirt.io -o yaml prints them as read)".
// Of any other note it is "".
func (n Note) Cause() string {
	if n.Reason != VersionNotRead {
		return ""
	}
	obj := n.Name
	if n.Namespace != "" {
		obj = n.Namespace + "/" + n.Name
	}
	return fmt.Sprintf("%s:%d holds %s %s in %s, a version the planner does not read, so no %s of it counts, --observed or not (%s)",
		n.File, n.Line, n.Kind, obj, n.APIVersion, n.Kind, dumpAs(n))
}

// readAs is the group version the planner reads a VersionNotRead note's
// kind in.
func readAs(n Note) string {
	info, _ := kinds.ByGroupKind(gvkOf(n.APIVersion, n.Kind).GroupKind())
	return info.GVK.GroupVersion().String()
}

// dumpAs says how kubectl prints a VersionNotRead note's kind in the
// version read: by its resource, version and group
// ("datavolumes.v1beta1.cdi.kubevirt.io"); the core group's by its
// resource alone.
func dumpAs(n Note) string {
	info, _ := kinds.ByGroupKind(gvkOf(n.APIVersion, n.Kind).GroupKind())
	res := info.Resource
	if g := info.GVK.Group; g != "" {
		res += "." + info.GVK.Version + "." + g
	}
	return "kubectl get " + res + " -o yaml prints them as read"
}

// plural is a kind's plural as the planner spells it, the kind and "s" for
// a kind it does not read.
func plural(kind string) string {
	if k, ok := state.KindByName(kind); ok {
		return k.Plural()
	}
	return kind + "s"
}
