// Package chartrender renders a Helm chart's templates to its objects as
// Helm v3 does (helm template), for the template language and the
// functions the worker-image chart uses: text/template's own, and include,
// toYaml, nindent, default, required and list, with Helm's semantics. A
// key missing from the values renders as nothing, as in Helm; a required
// value that is missing is a *RequiredError.
//
// It is what renders the chart for `worker-image webhook manifests` and
// for the tests, so that the objects the tests assert of are the objects
// the command prints; a test runs the real Helm over the same values and
// compares object for object.
package chartrender
