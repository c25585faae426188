// Package charttext writes the kubernetes-nodes chart's text: the
// disk-system dataVolumeTemplates entry, byte for byte what the chart
// renders for the same values, since the KubevirtMachineTemplate that
// holds it is named by a hash of its text and any drift re-images every
// worker of the pool.
//
// The package holds text only: reading values as the chart reads them is
// the planner's (plan), choosing what to write is its callers'.
package charttext
