// Package guard holds the refusals and warnings of the planner: what they are
// about, how they are gathered and how a caller opens them. A Refusal is a
// plan the library will not make; a Warning is a finding that lets the plan
// stand. Each carries a stable Reason, the values field it is about (a
// k8s.io/apimachinery field path such as osImage.builtin.version or
// images[2].storage), the subject it concerns (a pool or a catalog entry) and
// a detail that names both sides of any mismatch and the supported way out.
//
// # Rules
//
//   - Reasons are exported constants whose value is their name; every one has
//     a Severity, Refuse or Warn, and nothing in between. Callers and tests
//     compare reasons and fields, never message text.
//   - All independent refusals are reported together, never only the first:
//     a Collector gathers them for one subject, in the order they were made.
//   - Exported functions return error, nil when nothing is refused (never a
//     typed nil). Join aggregates refusals with go-multierror; errors.As and
//     errors.Is find every refusal in the aggregate, also when it is wrapped
//     or nested, and Refusals and Reasons list them in order.
//   - errors.Is(err, &Refusal{Reason: r}) matches a reason anywhere in err;
//     adding a Field narrows the match to that field.
//   - A Warning is not an error, so it cannot be returned as one by mistake.
package guard
