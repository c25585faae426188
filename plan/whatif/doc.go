// Package whatif answers what a change does to a fleet of worker pools
// before it is made.
//
// Diff plans every pool twice against one snapshot, before and after a
// Change (other pools, another catalog, new chart defaults such as the
// talos.version a Cozystack upgrade moves), and reports per pool whether it
// rolls (its KubevirtMachineTemplate's text changes, which re-images every
// worker), the golden it needs and how far that golden is, the steps in
// order (add-catalog-entry, wait-for-golden, roll-pool) and the bytes the
// rollout moves. The template's name is the chart's hash of the whole
// kubevirtmachinetemplate define, which also holds values of the
// platform's (Platform); without them the name is reported unknown, never
// guessed. Needs says what a Diff reads of the cluster, so an adapter reads
// exactly that.
package whatif
