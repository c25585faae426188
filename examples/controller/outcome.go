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
	// conditionType is the pool's condition that holds the plan's outcome.
	conditionType = "DiskPlanned"
	// reasonPlanned is the condition's reason when the pool is planned;
	// when it is refused, the reason is its first refusal's.
	reasonPlanned = "Planned"
	// noteLimit is the most bytes an events.k8s.io/v1 Event's note holds;
	// the API server rejects a longer one, and the event would be lost.
	noteLimit = 1024
)

// condition records res on a pool at generation: True with reason Planned
// and what the disk is, or False with the first refusal's reason and every
// refusal's message. Warnings follow the message in both cases.
func condition(res plan.Result, generation int64) metav1.Condition {
	c := metav1.Condition{Type: conditionType, ObservedGeneration: generation}
	lines := []string{}
	if refusals := res.Refusals; len(refusals) > 0 {
		c.Status, c.Reason = metav1.ConditionFalse, string(refusals[0].Reason)
		for _, r := range refusals {
			lines = append(lines, r.Error())
		}
	} else {
		c.Status, c.Reason = metav1.ConditionTrue, reasonPlanned
		lines = append(lines, summary(res))
	}
	for _, w := range res.Warnings {
		lines = append(lines, "warning: "+w.String())
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

// event is one event recorded on a pool.
type event struct {
	Type   string
	Reason string
	Note   string
}

// eventsOf records res: a Warning per refusal and per warning, under its
// reason, and a Normal Planned when the pool is planned.
func eventsOf(res plan.Result) []event {
	var out []event
	for _, r := range res.Refusals {
		out = append(out, event{corev1.EventTypeWarning, string(r.Reason), note(r.Error())})
	}
	for _, w := range res.Warnings {
		out = append(out, event{corev1.EventTypeWarning, string(w.Reason), note(w.String())})
	}
	if len(res.Refusals) == 0 {
		out = append(out, event{corev1.EventTypeNormal, reasonPlanned, note(summary(res))})
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
