package controller

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/catalogrelease"
)

// ungranted is a catalog release whose spec.valuesFrom names ConfigMaps
// or Secrets this identity may not get: its values, and so every plan
// against its catalog, cannot be verified until they are granted.
type ungranted struct {
	release types.NamespacedName
	// value is the chart's value that grants them, by name, in the
	// release's namespace: catalogRelease or imageCatalog.
	value string
	// objects are those it may not get; named every object the release
	// names (the platform's Secret aside), which the chart value lists,
	// since a list given to helm --set replaces the one before.
	objects, named []valuesObject
	err            error
}

func (u *ungranted) Error() string {
	return fmt.Sprintf("the HelmRelease %s: spec.valuesFrom names %s, which this identity may not get: %v", u.release, u.names(), u.err)
}

func (u *ungranted) Unwrap() error { return u.err }

// names are the objects, "Secret cozy-system/catalog-values".
func (u *ungranted) names() string {
	var out []string
	for _, o := range u.objects {
		out = append(out, o.Kind+" "+o.Namespace+"/"+o.Name)
	}
	return strings.Join(out, ", ")
}

// grant is the chart's values that grant the objects, and keep granted
// the others the release names: catalogRelease.valuesFrom.secrets={a,b},
// as helm --set takes a list, for each kind of which one is forbidden.
func (u *ungranted) grant() string {
	byKind := map[string][]string{}
	forbidden := map[string]bool{}
	for _, o := range u.objects {
		forbidden[o.Kind] = true
	}
	for _, o := range u.named {
		if !forbidden[o.Kind] {
			continue
		}
		byKind[o.Kind] = append(byKind[o.Kind], o.Name)
	}
	var out []string
	for _, k := range []struct{ kind, list string }{{"ConfigMap", "configMaps"}, {"Secret", "secrets"}} {
		if names := byKind[k.kind]; len(names) > 0 {
			out = append(out, fmt.Sprintf("%s.valuesFrom.%s={%s}", u.value, k.list, strings.Join(names, ",")))
		}
	}
	return strings.Join(out, " and ")
}

// verdict is what an unverified plan concludes: the objects are part of
// it, so that another object forbidden is told again.
func (u *ungranted) verdict() string {
	return unverified + ",ungranted:" + u.names()
}

// note is the Event's message on what is planned against the catalog.
func (u *ungranted) note(what string) string {
	return fmt.Sprintf("unverified: %s against the catalog of the HelmRelease %s, whose spec.valuesFrom names %s, which this identity may not get (forbidden), "+
		"so its values cannot be read: grant them with the worker-image chart's value %s (helm upgrade --reuse-values --set '%s'), "+
		"or a Role that grants get, list and watch on them by name",
		what, u.release, u.names(), u.grant(), u.grant())
}

// ungrantedOf is err as an *ungranted when it is a forbidden read of an
// object the release hr's spec.valuesFrom names, with every such object
// the identity may not get (each asked once more), so that one grant
// covers them all; err itself otherwise.
func (r *reconciler) ungrantedOf(ctx context.Context, hr *unstructured.Unstructured, value string, err error) error {
	if err == nil || hr == nil || !apierrors.IsForbidden(err) {
		return err
	}
	refs, rerr := catalogrelease.Refs(hr.Object)
	if rerr != nil {
		return err
	}
	u := &ungranted{release: types.NamespacedName{Namespace: hr.GetNamespace(), Name: hr.GetName()}, value: value, err: err}
	for _, ref := range refs {
		o := valuesObject{Kind: ref.Kind, Namespace: hr.GetNamespace(), Name: ref.Name}
		if slices.Contains(u.named, o) {
			continue
		}
		u.named = append(u.named, o)
		if _, _, gerr := r.values(ctx, ref.Kind, o.Namespace, o.Name); apierrors.IsForbidden(gerr) {
			u.objects = append(u.objects, o)
		}
	}
	if len(u.objects) == 0 {
		return err
	}
	return u
}

// unverifiedBy records that a pool's or a VM disk's plan cannot be
// verified because its catalog's values are not granted, with a Warning
// Event Unverified when that verdict is new. d is what a change to the
// catalog replans it by.
func (r *reconciler) unverifiedBy(req ref, obj runtime.Object, u *ungranted, d deps, what string) {
	e := &entry{outcome: unverified, reason: "Unverified", verdict: u.verdict(), deps: d}
	if changed, _ := r.record(req, e); changed {
		r.recorder.Eventf(obj, nil, corev1.EventTypeWarning, "Unverified", "Plan", "%s", note(u.note(what)))
	}
}
