// Package cli holds the worker-image walkthrough's example files, as plain
// YAML for the commands of the README's walkthrough: a tenant's
// KubernetesNodes pools (one cloning the catalog's golden, one importing
// over HTTP as before the catalog), a pool refused for a
// StorageClassMismatch, the catalog's values, a cluster state as
// `kubectl get -o yaml` prints it, a ComputePlane's values, and
// cozystack-values.yaml, the platform's values every pool release merges,
// which `worker-image diff --cozystack-values` reads to name the pools'
// KubevirtMachineTemplates.
//
// The CLI embeds the same files (but cozystack-values.yaml) of its own, so
// that `worker-image plan --example` runs them from any checkout without
// paths; this package's test keeps both byte for byte the same.
//
// # Rules
//
//   - pools.yaml holds only pools that plan, so that the README's first
//     command, `worker-image plan --example`, exits 0; a refusal lives in
//     refused.yaml, with its way out in its comment.
//   - state.yaml is what a Cozystack cluster holds, with an object of every
//     kind the planner reads: a --state file observes the kinds it holds
//     an object of (and those --observed names), so a kind it left out
//     would be unknown, not empty.
//   - The files are the walkthrough's: a change here changes the README's
//     output, which its test compares, and is made to the CLI's copy too.
package cli
