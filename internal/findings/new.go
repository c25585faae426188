package findings

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/guard"
)

// NewRefusal builds a refusal at fld, without a subject: the code that
// gathers it names the subject. An importer that builds a finding of its
// own writes the guard.Refusal literal; this is the module's shorthand.
func NewRefusal(reason guard.Reason, fld *field.Path, bad any, format string, args ...any) *guard.Refusal {
	return &guard.Refusal{Reason: reason, Field: pathString(fld), BadValue: bad, Detail: fmt.Sprintf(format, args...)}
}

// NewWarning builds a warning at fld, without a subject.
func NewWarning(reason guard.Reason, fld *field.Path, format string, args ...any) guard.Warning {
	return guard.Warning{Reason: reason, Field: pathString(fld), Detail: fmt.Sprintf(format, args...)}
}

func pathString(fld *field.Path) string {
	if fld == nil {
		return ""
	}
	return fld.String()
}
