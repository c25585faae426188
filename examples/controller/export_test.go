package controller

import (
	"time"

	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// Names the tests of package controller_test read; unexported because an
// importer of the example calls New, Reconcile and SetupWithManager only.
const (
	ConditionType = conditionType
	ReasonPlanned = reasonPlanned
	Name          = name
)

var PoolGVK = poolGVK

// NewReconciler is a Reconciler over what the tests give it, in place of
// a manager's client, cache and recorder; timeout 0 means defaultTimeout.
func NewReconciler(c client.Client, st state.Reader, cat *catalog.Catalog, rec events.EventRecorder, timeout time.Duration) *Reconciler {
	return &Reconciler{client: c, state: st, catalog: cat, recorder: rec, timeout: timeout}
}
