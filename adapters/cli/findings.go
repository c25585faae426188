package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// printRefusals writes each refusal on a line: what was refused, its
// reason, its field and its detail, which says the way out.
func printRefusals(w io.Writer, rs guard.Refusals) {
	for _, r := range rs {
		printf(w, "%s: refused %s\n", r.Subject, finding(r.Reason, r.Field, r.Detail, ""))
	}
}

// printWarnings writes each warning on a line, as printRefusals does;
// s collects the offline StateUnverified instead (nil: print them too).
func printWarnings(w io.Writer, warnings guard.Warnings, s *offlineSummary) {
	for _, x := range warnings {
		if s.takes(x) {
			continue
		}
		printf(w, "%s: warning %s\n", x.Subject, finding(x.Reason, x.Field, x.Detail, x.Cause))
	}
}

// finding reads "StorageClassMismatch at storageClass: <detail>", and
// "(cause: …)" after a StateUnverified's detail.
func finding(reason guard.Reason, field, detail, cause string) string {
	s := string(reason) + ": " + detail
	if field != "" {
		s = string(reason) + " at " + field + ": " + detail
	}
	if cause != "" {
		s += " (cause: " + cause + ")"
	}
	return s
}

// offlineSummary gathers the StateUnverified warnings of a run that read
// no state, to say them once (one line per run
// rather than one per kind and pool).
type offlineSummary struct {
	kinds state.Kind
	of    map[string]bool // subjects
}

// takes reports whether x is an offline StateUnverified, and counts it.
func (s *offlineSummary) takes(x guard.Warning) bool {
	if s == nil || x.Reason != guard.StateUnverified || x.Cause != offlineCause {
		return false
	}
	if k, ok := kindNamed(x.Kind); ok {
		s.kinds |= k
	}
	if s.of == nil {
		s.of = map[string]bool{}
	}
	s.of[x.Subject] = true
	return true
}

// print writes the one line, when there was anything to say.
func (s *offlineSummary) print(w io.Writer) {
	if s == nil || len(s.of) == 0 {
		return
	}
	var names []string
	for _, k := range s.kinds.Each() {
		names = append(names, k.String())
	}
	subjects := make([]string, 0, len(s.of))
	for sub := range s.of {
		subjects = append(subjects, sub)
	}
	slices.Sort(subjects)
	what := subjects[0]
	if n := len(subjects) - 1; n > 0 {
		what = fmt.Sprintf("%s and %d %s", subjects[0], n, plural(n, "other"))
	}
	printf(w, "warning StateUnverified (offline): the guards that read %s did not run for %s: no cluster state was read; pass --kubeconfig (or set KUBECONFIG), --context or --state to run them\n",
		strings.Join(names, ", "), what)
}

// strictReasons are the warnings --strict refuses: a guard that could not
// look, and input the chart does not define.
var strictReasons = []guard.Reason{guard.StateUnverified, guard.UnknownField}

// strictRefusals turns the warnings --strict refuses into refusals, and
// returns the warnings that stay.
func strictRefusals(ws guard.Warnings) (guard.Warnings, guard.Refusals) {
	var keep guard.Warnings
	var out guard.Refusals
	for _, w := range ws {
		if !slices.Contains(strictReasons, w.Reason) {
			keep = append(keep, w)
			continue
		}
		detail := w.Detail
		if w.Cause != "" {
			detail += " (cause: " + w.Cause + ")"
		}
		out = append(out, &guard.Refusal{Reason: w.Reason, Field: w.Field, Subject: w.Subject, Detail: detail + "; --strict refuses it"})
	}
	return keep, out
}

// strictPlan is r as --strict decides it: a StateUnverified or an
// UnknownField refuses the pool.
func strictPlan(r plan.Result) plan.Result {
	keep, add := strictRefusals(r.Warnings)
	if len(add) == 0 {
		return r
	}
	return plan.Result{Namespace: r.Namespace, Name: r.Name, Outcome: plan.Refused, Warnings: keep, Refusals: append(slices.Clone(r.Refusals), add...)}
}
