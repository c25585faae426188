// Package cli is the worker-image command (SPEC section 8) as a library, so
// that it runs in-process in tests: Run takes the arguments, standard input
// and outputs, and returns the exit status. The main package in
// cmd/worker-image only calls it.
//
// # Commands
//
//	worker-image plan -f POOL.yaml [--catalog CATALOG.yaml] [--state STATE.yaml [--observed KIND,…] | --kubeconfig PATH] [-o yaml|json|chart]
//	worker-image catalog render --catalog CATALOG.yaml [--state … | --kubeconfig …] [-o yaml|json]
//	worker-image catalog consumers GOLDEN --state … [-o yaml|json]
//	worker-image catalog prune --catalog CATALOG.yaml --state … [-o yaml|json]
//	worker-image computeplane -f VALUES.yaml [-o yaml|json]
//	worker-image helm-verify [--catalog …] [--state … | --kubeconfig …] < rendered.yaml
//
// Every command that reads files also takes --example, which runs it on the
// walkthrough's files embedded from examples/cli, so that the first command
// of the README works from any checkout.
//
// # What a --state file observes
//
// A --state file observes the kinds it holds at least one object of, plus
// those --observed names (or all of them: --observed all); any other kind
// is unknown, never empty (SPEC section 11). A file with no object of the
// planner's kinds is unusable input. catalog prune reports a golden safe to
// delete only when --observed names PersistentVolumeClaim and DataVolume:
// held alone, they count for the namespaces the file holds them in. The
// embedded example's state is observed whole.
//
// # Exit status
//
// 0 planned (warnings may be printed), 3 refused, 2 unusable input (an
// unreadable file, YAML that does not parse, named by file and line, a
// document that is not a Kubernetes object, a bad flag), 1 anything else
// (a cluster that cannot be read).
//
// # kubectl plugin
//
// Installed on PATH as kubectl-worker_image, the binary runs as
// `kubectl worker-image …`; its help then names itself so. kubectl passes no
// flags of its own to a plugin: give --kubeconfig to read a cluster.
package cli
