// Package renderer is an example of a renderer other than the Helm chart
// that writes a KubevirtMachineTemplate's dataVolumeTemplates through the
// library: it reads a pool's values the way Helm holds them
// (plan.DecodePool), plans the pool's disk and writes its disk-system entry
// as the kubernetes-nodes chart embeds it in one call (helm.PlanEntry, a
// renderer's way in: it never builds the DataVolume object), under the
// dataVolumeTemplates key of the template's virtualMachineTemplate.
//
// # Rules
//
//   - A pool without osImage, or with osImage.factory, renders byte for byte
//     the text the pre-feature chart rendered for the same values. The
//     KubevirtMachineTemplate is named by a hash of its rendered text, so a
//     single changed byte would roll every live worker of every pool.
//   - A pool with osImage.builtin renders the clone of its golden, with the
//     class the guards compared written on the disk.
//   - A refused pool renders nothing: the refusals come back as one error,
//     which unwraps to each *guard.Refusal (errors.Is asks for a reason,
//     errors.As finds the first), never as a degraded disk.
//     Warnings let the text stand and come back beside it.
package renderer
