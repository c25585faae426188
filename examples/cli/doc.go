// Package cli holds the worker-image walkthrough's example files, as plain
// YAML for the commands of the walkthroughs of the README and of docs/:
// a tenant's KubernetesNodes pools (one cloning the catalog's golden, one
// importing over HTTP as before the catalog), a pool refused for a
// StorageClassMismatch, the catalog's values, a cluster state as
// `kubectl get -o yaml` prints it, a ComputePlane's values,
// cozystack-values.yaml, the platform's values every pool release merges,
// which `worker-image diff --cozystack-values` reads to name the pools'
// KubevirtMachineTemplates; and for VM disks, vmdisks.yaml (two VMDisks
// cloned from an image, one on the wrong class), images.yaml (the image
// catalog's values) and vmstate.yaml (a cluster holding the image goldens).
//
// The CLI embeds pools.yaml, refused.yaml, catalog.yaml, state.yaml and
// computeplane.yaml of its own, so that `worker-image plan --example` runs
// them from any checkout without paths; this package's test keeps both byte
// for byte the same.
//
// Its tests run every console block of the README and of docs/*.md and
// compare what the command prints, and its exit status, with the page
// (a block they cannot run fails them), check that every relative link of
// those pages resolves, and compile the README's Go blocks.
//
// # Rules
//
//   - pools.yaml holds only pools that plan, so that the README's first
//     command, `worker-image plan --example`, exits 0; a refusal lives in
//     refused.yaml, with its way out in its comment.
//   - state.yaml is what a Cozystack cluster holds, with an object of
//     every kind the planner reads, and vmstate.yaml one of every kind a
//     VMDisk's plan reads: a --state file observes the kinds it holds an
//     object of (and those --observed names), so a kind left out would be
//     unknown, not empty.
//   - The files are the walkthroughs': a change here changes the output the
//     pages show, which the test compares, and an embedded file's change is
//     made to the CLI's copy too.
package cli
