package charttext

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
)

// Template is what the kubevirtmachinetemplate define of the
// kubernetes-nodes chart (templates/nodegroup.yaml) renders from: the
// pool's values as the template sees them, and the platform's, which every
// pool release merges from its tenant's cozystack-values Secret.
//
// Values are held as the template prints them: "" for a value the
// template's if treats as false, so that its block is left out.
type Template struct {
	// Namespace is the release's namespace, the pool's.
	Namespace string
	// Cluster is the values' cluster; Group the pool's name after
	// "<cluster>-". The parent cluster's CAPI name is "kubernetes-<cluster>".
	Cluster, Group string
	// Roles label the VM and its template, one node-role label each.
	Roles []string
	// InstanceType is the VM's instancetype, written unless the pool is
	// sized by resources (CPU and Memory both set).
	InstanceType string
	// CPU and Memory are resources.cpu and resources.memory as printed.
	CPU, Memory string
	// GPUs are the gpus' names, in order.
	GPUs []string
	// LogSerialConsole writes logSerialConsole: true.
	LogSerialConsole bool
	// PodCPULimit and PodCPURequest are podCpuLimit and podCpuRequest as
	// toString prints them, nil when the pool does not set them.
	PodCPULimit, PodCPURequest *string
	// Disk is the disk-system entry's text at Indent, each line ending in
	// "\n".
	Disk string
	// EphemeralRequest is the virt-launcher's ephemeral-storage request,
	// 2Gi over the platform's ephemeral-storage allocation ratio
	// (EphemeralRequest computes it).
	EphemeralRequest string
	// Constraints is the platform's globalAppTopologySpreadConstraints as
	// the template writes them (fromYaml | toYaml, Constraints computes
	// it), "" for none.
	Constraints string
}

// ClusterName is the parent cluster's CAPI name.
func (t *Template) ClusterName() string { return "kubernetes-" + t.Cluster }

// Name is the KubevirtMachineTemplate's name for text, the define's
// output: "<clusterName>-<group>-<first 6 hex digits of its sha256>", as
// the chart's `sha256sum | trunc 6` names it.
func (t *Template) Name(text string) string {
	sum := sha256.Sum256([]byte(text))
	return t.ClusterName() + "-" + t.Group + "-" + hex.EncodeToString(sum[:3])
}

// Text is the define's output, byte for byte: the text the template's
// name hashes. The define renders from `spec:` to the networks' last line,
// without a final newline; its whitespace, a line of 14 spaces before the
// resources included, is the chart's.
func (t *Template) Text() string {
	var w Lines
	w.Grow(2200 + len(t.Disk) + len(t.Constraints))
	cluster := t.ClusterName()
	w.Line(0, "spec:")
	w.Line(2, "virtualMachineBootstrapCheck:")
	w.Line(4, "checkStrategy: none")
	w.Line(2, "virtualMachineTemplate:")
	w.Line(4, "metadata:")
	w.Field(6, "namespace: ", t.Namespace)
	w.Line(6, "labels:")
	t.roles(&w, 8)
	w.Line(4, "spec:")
	if t.InstanceType != "" && (t.CPU == "" || t.Memory == "") {
		w.Line(6, "instancetype:")
		w.Line(8, "kind: VirtualMachineClusterInstancetype")
		w.Field(8, "name: ", t.InstanceType)
	}
	w.Line(6, "runStrategy: Always")
	w.Line(6, "dataVolumeTemplates:")
	w.WriteString(t.Disk)
	w.Line(6, "template:")
	w.Line(8, "metadata:")
	w.Line(10, "annotations:")
	w.Line(12, `kubevirt.io/allow-pod-bridge-network-live-migration: "true"`)
	w.Line(10, "labels:")
	w.Line(12, "apps.cozystack.io/application.group: apps.cozystack.io")
	w.Line(12, "apps.cozystack.io/application.kind: Kubernetes")
	w.Quoted(12, "apps.cozystack.io/application.name: ", strings.TrimPrefix(cluster, "kubernetes-"))
	t.roles(&w, 12)
	w.Field(12, "cluster.x-k8s.io/deployment-name: ", cluster+"-"+t.Group)
	w.WriteString("        spec:")
	if t.Constraints != "" {
		w.WriteString(nindent(10, t.Constraints))
		w.WriteString("\n            labelSelector:\n              matchLabels:\n                cluster.x-k8s.io/cluster-name: ")
		w.WriteString(cluster)
	}
	w.WriteByte('\n')
	w.Line(10, "domain:")
	if t.CPU != "" {
		w.Line(12, "cpu:")
		w.Line(14, "threads: 1")
		w.Field(14, "cores: ", t.CPU)
		w.Line(14, "sockets: 1")
	}
	w.Line(12, "devices:")
	if len(t.GPUs) > 0 {
		w.Line(14, "gpus:")
		for i, g := range t.GPUs {
			w.Field(14, "- name: gpu", strconv.Itoa(i+1))
			w.Field(16, "deviceName: ", g)
		}
	}
	w.Line(14, "disks:")
	w.Line(14, "- name: system")
	w.Line(16, "disk:")
	w.Line(18, "bus: virtio")
	w.Line(18, "pciAddress: 0000:07:00.0")
	w.Line(16, "blockSize:")
	w.Line(18, "custom:")
	w.Line(20, "logical: 512")
	w.Line(20, "physical: 4096")
	w.Line(14, "interfaces:")
	w.Line(14, "- name: default")
	w.Line(16, "bridge: {}")
	if t.LogSerialConsole {
		w.Line(14, "logSerialConsole: true")
	}
	if t.Memory != "" {
		w.Line(12, "memory:")
		w.Field(14, "guest: ", t.Memory)
	}
	w.Line(12, "resources:")
	// The line of a template comment, "{{/* 2Gi is enough … */}}", whose
	// indentation no trim marker removes.
	w.indent(14)
	w.WriteString(nindent(14, podResources(t.EphemeralRequest, t.PodCPULimit, t.PodCPURequest)))
	w.WriteByte('\n')
	w.Line(10, "evictionStrategy: External")
	w.Line(10, "volumes:")
	w.Line(10, "- name: system")
	w.Line(12, "dataVolume:")
	w.Line(14, "name: disk-system")
	w.Line(10, "networks:")
	w.Line(10, "- name: default")
	w.indent(12)
	w.WriteString("pod: {}")
	return w.String()
}

func (t *Template) roles(w *Lines, indent int) {
	for _, r := range t.Roles {
		w.Field(indent, "node-role.kubernetes.io/", r+`: ""`)
	}
}

// nindent is sprig's: a newline, then s with every line indented by n.
func nindent(n int, s string) string {
	pad := spaces[:n]
	return "\n" + pad + strings.ReplaceAll(s, "\n", "\n"+pad)
}
