// Package charttext writes the kubernetes-nodes chart's text: the
// disk-system dataVolumeTemplates entry (which adapters/helm writes for a
// plan) and the whole kubevirtmachinetemplate define around it, whose
// sha256 names the pool's KubevirtMachineTemplate. Both are byte for byte
// what the chart renders for the same values: any drift in that text is a
// new template name, and a new template re-images every worker of the
// pool.
//
// The package holds text only: reading values as the chart reads them is
// the planner's (plan), choosing what to write is its callers'.
package charttext
