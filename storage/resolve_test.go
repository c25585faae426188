package storage_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/cozystack/kubernetes-worker-image/storage"
)

func TestResolve(t *testing.T) {
	cases := map[string]struct {
		reason   string
		in       storage.Input
		want     storage.Resolution
		err      error
		conflict []string
	}{
		"explicit": {
			reason: "an explicit class always wins, over bound disks and the default",
			in:     storage.Input{Named: "replicated", Bound: []string{"local"}, BoundKnown: true, Default: "local", DefaultKnown: true},
			want:   storage.Resolution{Name: "replicated", From: storage.Explicit},
		},
		"explicit offline": {
			reason: "an explicit class needs no state at all",
			in:     storage.Input{Named: "replicated"},
			want:   storage.Resolution{Name: "replicated", From: storage.Explicit},
		},
		"explicit over conflict": {
			reason: "an explicit class is not refused for disks on several classes: the comparison with the golden decides",
			in:     storage.Input{Named: "replicated", Bound: []string{"a", "b"}, BoundKnown: true},
			want:   storage.Resolution{Name: "replicated", From: storage.Explicit},
		},
		"frozen": {
			reason: "an empty class is frozen from the disks already bound, whatever the default became",
			in:     storage.Input{Bound: []string{"replicated", "replicated"}, BoundKnown: true, Default: "local", DefaultKnown: true},
			want:   storage.Resolution{Name: "replicated", From: storage.Frozen},
		},
		"frozen, default unknown": {
			reason: "a frozen class needs no default: moving or losing it never fails the pool",
			in:     storage.Input{Bound: []string{"replicated"}, BoundKnown: true},
			want:   storage.Resolution{Name: "replicated", From: storage.Frozen},
		},
		"frozen, no default": {
			reason: "a frozen class needs no default: a cluster without one does not fail the pool",
			in:     storage.Input{Bound: []string{"replicated"}, BoundKnown: true, Default: "", DefaultKnown: true},
			want:   storage.Resolution{Name: "replicated", From: storage.Frozen},
		},
		"frozen ignores empty": {
			reason: "a disk without a class does not conflict with one that has a class",
			in:     storage.Input{Bound: []string{"", "replicated"}, BoundKnown: true, Default: "local", DefaultKnown: true},
			want:   storage.Resolution{Name: "replicated", From: storage.Frozen},
		},
		"two bound classes": {
			reason:   "disks on two classes are a conflict, never resolved by list order",
			in:       storage.Input{Bound: []string{"b", "a", "b"}, BoundKnown: true, Default: "a", DefaultKnown: true},
			conflict: []string{"a", "b"},
		},
		"two bound classes, reversed": {
			reason:   "the same conflict whatever the order of the disks",
			in:       storage.Input{Bound: []string{"a", "b"}, BoundKnown: true, Default: "a", DefaultKnown: true},
			conflict: []string{"a", "b"},
		},
		"conflict, default unknown": {
			reason:   "a conflict is reported before an unknown default: it is proven",
			in:       storage.Input{Bound: []string{"a", "b"}, BoundKnown: true},
			conflict: []string{"a", "b"},
		},
		"default": {
			reason: "no class, no disks: the cluster default, the class a first disk gets",
			in:     storage.Input{BoundKnown: true, Default: "replicated", DefaultKnown: true},
			want:   storage.Resolution{Name: "replicated", From: storage.Default},
		},
		"default, disks unknown": {
			reason: "with the disks unknown the default is still resolved; the caller knows BoundKnown",
			in:     storage.Input{Default: "replicated", DefaultKnown: true},
			want:   storage.Resolution{Name: "replicated", From: storage.Default},
		},
		"only empty bound": {
			reason: "disks without a class freeze nothing: the default applies",
			in:     storage.Input{Bound: []string{""}, BoundKnown: true, Default: "replicated", DefaultKnown: true},
			want:   storage.Resolution{Name: "replicated", From: storage.Default},
		},
		"no default": {
			reason: "classes observed and none is a default: ErrNoDefault",
			in:     storage.Input{BoundKnown: true, Default: "", DefaultKnown: true},
			want:   storage.Resolution{From: storage.Default},
			err:    storage.ErrNoDefault,
		},
		"default unknown": {
			reason: "classes not observed: ErrDefaultUnknown, never treated as no default",
			in:     storage.Input{BoundKnown: true},
			want:   storage.Resolution{From: storage.Default},
			err:    storage.ErrDefaultUnknown,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := storage.Resolve(tc.in)
			if tc.conflict != nil {
				var ce *storage.ConflictError
				if !errors.As(err, &ce) || !reflect.DeepEqual(ce.Classes, tc.conflict) {
					t.Fatalf("%s: want *ConflictError on %v, got %v", tc.reason, tc.conflict, err)
				}
				return
			}
			if !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
				t.Fatalf("%s: error %v, want %v", tc.reason, err, tc.err)
			}
			if got != tc.want {
				t.Errorf("%s: got %v, want %v", tc.reason, got, tc.want)
			}
		})
	}
}

func TestResolveDoesNotMutateBound(t *testing.T) {
	bound := []string{"b", "a"}
	_, _ = storage.Resolve(storage.Input{Bound: bound, BoundKnown: true})
	if bound[0] != "b" || bound[1] != "a" {
		t.Errorf("Resolve sorted the caller's slice: %v", bound)
	}
}

// TestConflictClassesAreDistinct: a conflict lists each class once,
// sorted, without the empty class of a disk that has none; disks that name
// no class, or one class only, are no conflict at all.
func TestConflictClassesAreDistinct(t *testing.T) {
	cases := map[string]struct {
		reason string
		in     []string
		want   []string
	}{
		"nil":        {"nothing bound, no conflict", nil, nil},
		"only empty": {"empty classes are dropped: no conflict", []string{"", ""}, nil},
		"repeats":    {"repeats collapse, empty is dropped and the list is sorted", []string{"b", "a", "b", "", "a"}, []string{"a", "b"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := storage.Resolve(storage.Input{Bound: tc.in, BoundKnown: true, Default: "d", DefaultKnown: true})
			var ce *storage.ConflictError
			if tc.want == nil {
				if errors.As(err, &ce) {
					t.Fatalf("%s: got a conflict on %v", tc.reason, ce.Classes)
				}
				return
			}
			if !errors.As(err, &ce) || !reflect.DeepEqual(ce.Classes, tc.want) {
				t.Errorf("%s: got %v, want a conflict on %v", tc.reason, err, tc.want)
			}
		})
	}
}
