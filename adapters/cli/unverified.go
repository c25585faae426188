package cli

import (
	"io"
	"strings"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// unverified is the outcome of a run or a pool that lacked a kind it
// needed of the cluster (a cluster's read, or a --state file): not
// refused, and not a plan that passed (exit 4). Offline, with no state at
// all, every guard that needs the cluster says so instead, once.
const unverified = "unverified"

// unreadKinds are the kinds the StateUnverified warnings of ws name.
func unreadKinds(ws ...guard.Warnings) state.Kind {
	var k state.Kind
	for _, list := range ws {
		for _, w := range list {
			if kind, ok := kindNamed(w.Kind); ok && w.Reason == guard.StateUnverified {
				k |= kind
			}
		}
	}
	return k
}

// isUnverified reports whether a run with the findings ws ends unverified:
// it read a state (a cluster or a file) that lacked a kind it needed, and
// --strict did not make that a refusal.
func (v view) isUnverified(o *options, ws ...guard.Warnings) bool {
	return !v.offline && !o.strict && unreadKinds(ws...) != 0
}

// printUnread says which kinds could not be read and why, each at once
// (every forbidden namespace of a kind in one line): head, then one line
// per kind, with the way out. From a cluster, every kind the run could not
// read is said, so that one run names every missing grant; from a file,
// the kinds needed.
func (v view) printUnread(w io.Writer, head string, kinds state.Kind) {
	v.sayUnread(w, head, kinds, true)
}

// sayUnread is printUnread; without causes, when the warnings printed
// before it gave each kind's, it names the kinds on one line.
func (v view) sayUnread(w io.Writer, head string, kinds state.Kind, causes bool) {
	if kinds == 0 {
		return
	}
	way := "grant these reads, or --strict refuses (exit 3)"
	if v.cluster {
		for k := range v.causes {
			kinds |= k
		}
	} else {
		way = "add them to the dump (or name them with --observed, if it covered them), or --strict refuses (exit 3)"
	}
	if !causes {
		printf(w, "unverified: %s (%s: the warnings above say why); %s\n", head, strings.ReplaceAll(kinds.String(), "|", ", "), way)
		return
	}
	printf(w, "unverified: %s; %s:\n", head, way)
	for _, k := range kinds.Each() {
		cause := v.causes[k]
		if cause == "" {
			cause = "not read"
		}
		printf(w, "  %s: %s\n", k, cause)
	}
}
