package webhook

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/cozystack/kubernetes-worker-image/guard"
)

// Outcomes of an admission, as the metrics label them.
const (
	// Admitted: planned (or rendered), warnings may follow.
	Admitted = "admitted"
	// Refused: denied with an Invalid status whose causes are the
	// refusals.
	Refused = "refused"
	// Unchanged: refused, but admitted because the update leaves the disk
	// (or the goldens) as they were; the refusals come back as warnings.
	Unchanged = "unchanged"
	// Skipped: a HelmRelease of neither chart, admitted untouched.
	Skipped = "skipped"
	// BadRequest: the request is not what the webhook validates, or its
	// object does not decode; denied with a BadRequest status.
	BadRequest = "bad-request"
	// Failed: the cluster or the catalog could not be read; denied with an
	// InternalError status, to retry. Nothing is admitted on a guess.
	Failed = "failed"
)

// Subjects of an admission, as the metrics label them.
const (
	SubjectPool    = "pool"
	SubjectCatalog = "catalog"
	SubjectNone    = "none"
)

// decision is what the webhook decided about one request, before it is
// written as an admission response.
type decision struct {
	subject  string
	outcome  string
	refusals guard.Refusals
	warnings []string
	// warned are the reasons of the warnings, for the metrics.
	warned []guard.Reason
	status *metav1.Status
}

// target is the object a request is about, and where its values sit.
type target struct {
	gk        schema.GroupKind
	namespace string
	name      string
	// values is the API path of the chart's values: spec for a
	// KubernetesNodes, spec.values for a HelmRelease.
	values string
}

// apiField turns a values path (storageClass, images[2].storage) into the
// object's field path (spec.storageClass, spec.values.images[2].storage).
// A path that is already the object's (the planner's metadata.name, the
// webhook's spec.releaseName) stays as it is, and the decoder's spec (a
// spec that is not a map) is the values themselves.
func (t target) apiField(values string) string {
	switch {
	case values == "" || values == "spec":
		return t.values
	case strings.HasPrefix(values, "metadata.") || strings.HasPrefix(values, "spec."):
		return values
	case strings.HasPrefix(values, "["):
		return t.values + values
	}
	return t.values + "." + values
}

func (t target) String() string {
	return t.gk.Kind + " " + t.namespace + "/" + t.name
}

// warn adds a planner warning, at its field in the object.
func (d *decision) warn(t target, w guard.Warning) {
	w.Field = t.apiField(w.Field)
	d.warnings = append(d.warnings, w.Message())
	d.warned = append(d.warned, w.Reason)
}

// note adds a warning of the webhook's own.
func (d *decision) note(format string, args ...any) {
	d.warnings = append(d.warnings, fmt.Sprintf(format, args...))
}

// refuse denies the request with an Invalid status: one cause per
// refusal, its type the reason, its field the object's field and its
// message the refusal's detail. kubectl prints the status's message,
// which holds every refusal.
func (d *decision) refuse(t target, rs guard.Refusals) {
	d.outcome = Refused
	d.refusals = rs
	causes := make([]metav1.StatusCause, 0, len(rs))
	lines := make([]string, 0, len(rs))
	for _, r := range rs {
		if r == nil {
			continue
		}
		at := *r
		at.Field = t.apiField(r.Field)
		causes = append(causes, metav1.StatusCause{
			Type:    metav1.CauseType(r.Reason),
			Field:   at.Field,
			Message: r.Detail + " (" + string(r.Reason) + ")",
		})
		lines = append(lines, at.Error())
	}
	d.status = &metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusUnprocessableEntity,
		Reason:  metav1.StatusReasonInvalid,
		Message: fmt.Sprintf("%s is refused: %s", t, strings.Join(lines, "; ")),
		Details: &metav1.StatusDetails{Group: t.gk.Group, Kind: t.gk.Kind, Name: t.name, Causes: causes},
	}
}

// keep admits a refused update that leaves what the refusals are about as
// it was: each refusal comes back as a warning that says so.
func (d *decision) keep(t target, rs guard.Refusals, why string) {
	d.outcome = Unchanged
	for _, r := range rs {
		if r == nil {
			continue
		}
		at := *r
		at.Field = t.apiField(r.Field)
		d.warnings = append(d.warnings, "still refused, admitted because "+why+": "+at.Error())
		d.warned = append(d.warned, r.Reason)
	}
}

// badRequest denies a request the webhook cannot read.
func badRequest(subject, format string, args ...any) decision {
	return decision{subject: subject, outcome: BadRequest, status: &metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusBadRequest,
		Reason:  metav1.StatusReasonBadRequest,
		Message: fmt.Sprintf(format, args...),
	}}
}

// failed denies a request whose answer needed a read that failed.
func readFailure(subject string, err error, what string) decision {
	return decision{subject: subject, outcome: Failed, status: &metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusInternalServerError,
		Reason:  metav1.StatusReasonInternalError,
		Message: fmt.Sprintf("could not read %s, and nothing is admitted on a guess; retry: %v", what, err),
	}}
}

// response writes d as an admission response. Text from the object or the
// cluster reaches a terminal through kubectl: its control characters are
// escaped.
func (d decision) response() admission.Response {
	r := admission.Response{AdmissionResponse: admissionv1.AdmissionResponse{Allowed: d.status == nil}}
	if d.status != nil {
		st := *d.status
		st.Message = escape(st.Message)
		if st.Details != nil {
			details := *st.Details
			details.Causes = make([]metav1.StatusCause, len(st.Details.Causes))
			for i, c := range st.Details.Causes {
				c.Message, c.Field = escape(c.Message), escape(c.Field)
				details.Causes[i] = c
			}
			st.Details = &details
		}
		r.Result = &st
	}
	for _, w := range d.warnings {
		r.Warnings = append(r.Warnings, escape(w))
	}
	return r
}

// escape writes control characters (a newline, an ESC) as Go escapes.
func escape(s string) string {
	if strings.IndexFunc(s, unicode.IsControl) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
