// Package diskscope joins package state's Request to the packages that
// narrow it (plan) and read it (the cluster readers), without an exported
// field on Request. A plan reads of its pool's namespace only the pool's
// worker disks: the DataVolumes and PVCs that carry its pool annotation
// and a golden annotation (naming.PoolAnnotation, naming.GoldenAnnotation),
// and those of the same names. Its Request says so; a reader with an index
// of that annotation lists those disks alone, and any other reader lists
// the namespace whole, which holds them too.
//
// Package state sets the functions when it is initialised.
package diskscope

// Narrow returns req, a state.Request, with its lists of DataVolumes and
// PersistentVolumeClaims in namespace kept to the disks of the pool (its
// CAPI name, as the pool annotation names it).
var Narrow func(req any, namespace, pool string) any

// Pools returns, sorted, the pools (CAPI names) whose disks are all that
// req, a state.Request, lists of namespace's DataVolumes and PVCs; nil when
// it lists namespace whole, or not at all.
var Pools func(req any, namespace string) []string
