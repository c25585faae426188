package webhook

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/escape"
)

// Outcomes of an admission, as the metrics label them.
const (
	// Admitted: planned (or rendered), warnings may follow.
	outcomeAdmitted = "admitted"
	// Refused: denied with an Invalid status whose causes are the
	// refusals.
	outcomeRefused = "refused"
	// Unchanged: refused, but admitted because the update leaves the disk
	// (or the goldens) as they were; the refusals come back as warnings.
	outcomeUnchanged = "unchanged"
	// Skipped: a HelmRelease of neither chart, admitted untouched.
	outcomeSkipped = "skipped"
	// BadRequest: the request is not what the webhook validates, or its
	// object does not decode; denied with a BadRequest status.
	outcomeBadRequest = "bad-request"
	// Failed: the cluster or the catalog could not be read; denied with an
	// InternalError status, to retry. Nothing is admitted on a guess.
	outcomeFailed = "failed"
)

// Subjects of an admission, as the metrics label them.
const (
	subjectPool    = "pool"
	subjectCatalog = "catalog"
	subjectNone    = "none"
)

// An answer is bounded whatever the request: it reports at most
// maxFindings warnings and maxFindings refusals, each at most maxText
// bytes, and says how many more there were, by reason (the reasons are a
// fixed, small set). The API server itself keeps only the first 4,096
// characters of a response's warnings; `worker-image plan` lists every
// finding.
const (
	maxFindings = 16
	maxText     = 1024
)

// decision is what the webhook decided about one request, before it is
// written as an admission response.
type decision struct {
	subject string
	outcome string
	// refused counts the refusals by reason, warned the warnings, for the
	// metrics and for what an answer leaves out.
	refused, warned counts
	// warnings are the texts of the first maxFindings warnings (shown of
	// them) and of the webhook's notes.
	warnings []string
	shown    int
	status   *metav1.Status
}

// counts are findings by reason, in the order the reasons first came.
type counts struct {
	reasons []guard.Reason
	n       []int
	total   int
}

func (c *counts) add(r guard.Reason) {
	c.total++
	for i, seen := range c.reasons {
		if seen == r {
			c.n[i]++
			return
		}
	}
	c.reasons = append(c.reasons, r)
	c.n = append(c.n, 1)
}

// more says how many findings of each reason an answer left out, given
// that it reports the first shown of them: "459,984 more (UnknownField
// 459,984)". Only the totals are known past the first shown, so the split
// by reason is of every finding.
func (c counts) more(shown int, what string) string {
	var by []string
	for i, r := range c.reasons {
		by = append(by, string(r)+" "+strconv.Itoa(c.n[i]))
	}
	return fmt.Sprintf("%d more %s not shown (of %d: %s); `worker-image plan` lists every one",
		c.total-shown, what, c.total, strings.Join(by, ", "))
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

// warn adds a planner warning, at its field in the object; past
// maxFindings it is only counted.
func (d *decision) warn(t target, w guard.Warning) {
	d.warned.add(w.Reason)
	if d.shown < maxFindings {
		d.shown++
		w.Field = t.apiField(w.Field)
		d.warnings = append(d.warnings, w.String())
	}
}

// note adds a warning of the webhook's own; they are few, and always
// reported.
func (d *decision) note(format string, args ...any) {
	d.warnings = append(d.warnings, fmt.Sprintf(format, args...))
}

// refuse denies the request with an Invalid status: one cause per
// refusal, its type the reason, its field the object's field and its
// message the refusal's detail. kubectl prints the status's message,
// which holds every refusal.
func (d *decision) refuse(t target, rs guard.Refusals) {
	d.outcome = outcomeRefused
	causes := make([]metav1.StatusCause, 0, min(len(rs), maxFindings))
	lines := make([]string, 0, min(len(rs), maxFindings)+1)
	for _, r := range rs {
		if r == nil {
			continue
		}
		d.refused.add(r.Reason)
		if len(causes) == maxFindings {
			continue
		}
		at := *r
		at.Field = t.apiField(r.Field)
		causes = append(causes, metav1.StatusCause{
			Type:    metav1.CauseType(r.Reason),
			Field:   at.Field,
			Message: r.Detail + " (" + string(r.Reason) + ")",
		})
		lines = append(lines, truncate(at.Error()))
	}
	if d.refused.total > len(causes) {
		lines = append(lines, "and "+d.refused.more(len(causes), "refusals"))
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
	d.outcome = outcomeUnchanged
	for _, r := range rs {
		if r == nil {
			continue
		}
		d.warned.add(r.Reason)
		if d.shown < maxFindings {
			d.shown++
			at := *r
			at.Field = t.apiField(r.Field)
			d.warnings = append(d.warnings, "still refused, admitted because "+why+": "+at.Error())
		}
	}
}

// badRequest denies a request the webhook cannot read.
func badRequest(subject, format string, args ...any) decision {
	return decision{subject: subject, outcome: outcomeBadRequest, status: &metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusBadRequest,
		Reason:  metav1.StatusReasonBadRequest,
		Message: fmt.Sprintf(format, args...),
	}}
}

// failed denies a request whose answer needed a read that failed.
func readFailure(subject string, err error, what string) decision {
	return decision{subject: subject, outcome: outcomeFailed, status: &metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusInternalServerError,
		Reason:  metav1.StatusReasonInternalError,
		Message: fmt.Sprintf("could not read %s, and nothing is admitted on a guess; retry: %v", what, err),
	}}
}

// response writes d as an admission response. Text from the object or the
// cluster reaches a terminal through kubectl: it is escaped
// (escape.String), and each text is cut to maxText bytes.
func (d decision) response() admission.Response {
	r := admission.Response{AdmissionResponse: admissionv1.AdmissionResponse{Allowed: d.status == nil}}
	if d.status != nil {
		st := *d.status
		st.Message = escape.Truncate(st.Message, (maxFindings+2)*maxText)
		if st.Details != nil {
			details := *st.Details
			details.Name = truncate(details.Name)
			details.Causes = make([]metav1.StatusCause, len(st.Details.Causes))
			for i, c := range st.Details.Causes {
				c.Message, c.Field = truncate(c.Message), truncate(c.Field)
				details.Causes[i] = c
			}
			st.Details = &details
		}
		r.Result = &st
	}
	for _, w := range d.warnings {
		r.Warnings = append(r.Warnings, truncate(w))
	}
	if d.warned.total > d.shown {
		r.Warnings = append(r.Warnings, "and "+d.warned.more(d.shown, "warnings"))
	}
	return r
}

// truncate is one text of an answer: escaped, at most maxText bytes.
func truncate(s string) string { return escape.Truncate(s, maxText) }
