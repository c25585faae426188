// Package guard holds the refusals and warnings of the planner and how a
// caller opens them. A Refusal is a plan the library will not make; a
// Warning is a finding that lets the plan stand. Each carries a stable
// Reason, the values field it is about (a k8s.io/apimachinery field path
// such as osImage.builtin.version or images[2].storage), the subject it
// concerns (a pool, a catalog, a ComputePlane) and a detail that names both
// sides of any mismatch and the supported way out.
//
// # Rules
//
//   - Reasons are exported constants whose value is their name. Callers and
//     tests compare reasons and fields, never message text.
//   - Severity is the finding's, not its reason's: InvalidQuantity refuses a
//     clone and only warns on the HTTP path, which renders what the
//     pre-feature chart rendered. The rules tables of the module's
//     docs/rules.md list each reason with the severity it is emitted with.
//   - All independent refusals of a subject are reported together, in the
//     order they were made, as one Refusals list, in the manner of
//     apimachinery's field.ErrorList. The planner's results hold it as data
//     (plan.Result.Refusals) and return it as their error, Refusals.Err,
//     always of one dynamic type: nil when there are none, never a typed
//     nil. Refusals is not an error itself.
//   - One way to ask for a reason: errors.Is(err, guard.HostAssistedClone),
//     anywhere in err, however wrapped. errors.As(err, &r) with a *Refusal
//     finds the first; the error unwraps to each refusal in order, as
//     errors.Join's does, and the result that came with it lists them all.
//   - Refusals, Refusal, Warnings and Warning marshal with encoding/json to
//     {"reason","field","message"} (a StateUnverified
//     warning adds its "kind", and "cause" when a reader said why), whatever
//     their count; an empty list is [].
//   - A Warning is not an error, so it cannot be returned as one by mistake.
//   - A caller that adds a check of its own (a renderer's) builds a finding
//     as a literal, &guard.Refusal{Reason: guard.InvalidValue, Field:
//     "diskSize", BadValue: v, Detail: "…"}, with a reason of this package,
//     the set that tools switch on.
//   - Nothing here panics on a nil *Refusal or an empty list.
package guard
