package controller

// Names the tests of package controller_test read; unexported because an
// importer of the example calls New, Reconcile and SetupWithManager only.
const (
	ConditionType = conditionType
	ReasonPlanned = reasonPlanned
	Name          = name
)

var PoolGVK = poolGVK
