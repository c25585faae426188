package controller

import (
	"fmt"
	"strings"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cozystack/kubernetes-worker-image/plan"
)

const (
	// ConditionType is the pool's condition that holds the plan's outcome.
	ConditionType = "DiskPlanned"
	// ReasonPlanned is the condition's reason when the pool is planned;
	// when it is refused, the reason is its first refusal's.
	ReasonPlanned = "Planned"
	// noteLimit is the most bytes an events.k8s.io/v1 Event's note holds;
	// the API server rejects a longer one, and the event would be lost.
	noteLimit = 1024
)

// Condition records res on a pool at generation: True with reason Planned
// and what the disk is, or False with the first refusal's reason and every
// refusal's message. Warnings follow the message in both cases.
func Condition(res plan.Result, generation int64) metav1.Condition {
	c := metav1.Condition{Type: ConditionType, ObservedGeneration: generation}
	lines := []string{}
	if refusals := res.Refusals; len(refusals) > 0 {
		c.Status, c.Reason = metav1.ConditionFalse, string(refusals[0].Reason)
		for _, r := range refusals {
			lines = append(lines, r.Error())
		}
	} else {
		c.Status, c.Reason = metav1.ConditionTrue, ReasonPlanned
		lines = append(lines, summary(res))
	}
	for _, w := range res.Warnings {
		lines = append(lines, "warning: "+w.Message())
	}
	c.Message = strings.Join(lines, "\n")
	return c
}

// summary says what a planned disk is.
func summary(res plan.Result) string {
	if res.Source == plan.Clone {
		return fmt.Sprintf("disk-system clones golden %s on StorageClass %s", res.Golden, res.StorageClass)
	}
	url := ""
	if src := res.Disk.Spec.Source; src != nil && src.HTTP != nil {
		url = src.HTTP.URL
	}
	return fmt.Sprintf("disk-system imports %s over HTTP", url)
}

// Event is one event recorded on a pool.
type Event struct {
	Type   string
	Reason string
	Note   string
}

// Events record res: a Warning per refusal and per warning, under its
// reason, and a Normal Planned when the pool is planned.
func Events(res plan.Result) []Event {
	var out []Event
	for _, r := range res.Refusals {
		out = append(out, Event{corev1.EventTypeWarning, string(r.Reason), note(r.Error())})
	}
	for _, w := range res.Warnings {
		out = append(out, Event{corev1.EventTypeWarning, string(w.Reason), note(w.Message())})
	}
	if len(res.Refusals) == 0 {
		out = append(out, Event{corev1.EventTypeNormal, ReasonPlanned, note(summary(res))})
	}
	return out
}

// note cuts s to noteLimit bytes, at a character boundary.
func note(s string) string {
	if len(s) <= noteLimit {
		return s
	}
	const more = "…"
	cut := noteLimit - len(more)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + more
}
