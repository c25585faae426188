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
	// Disk is the disk-system entry's text at Indent, each line ending in
	// "\n".
	Disk string
	// PodResources is the virt-launcher's resources as the define writes
	// them (PodResources writes them).
	PodResources string
	// Constraints is the platform's globalAppTopologySpreadConstraints as
	// the template writes them (fromYaml | toYaml, Constraints computes
	// it), "" for none.
	Constraints string
}

// ClusterName is the parent cluster's CAPI name.
func (t *Template) ClusterName() string { return "kubernetes-" + t.Cluster }

// Name is the KubevirtMachineTemplate's name for the sha256 of the
// define's output: "<clusterName>-<group>-<first 6 hex digits>", as the
// chart's `sha256sum | trunc 6` names it.
func (t *Template) Name(sum [sha256.Size]byte) string {
	return t.ClusterName() + "-" + t.Group + "-" + hex.EncodeToString(sum[:3])
}

// Sum is the sha256 of the define's output, written into buf (reused, and
// returned for reuse).
func (t *Template) Sum(buf []byte) ([sha256.Size]byte, []byte) {
	buf = t.Append(buf[:0])
	return sha256.Sum256(buf), buf
}

// Text is the define's output, byte for byte: the text the template's
// name hashes.
func (t *Template) Text() string { return string(t.Append(nil)) }

// Append appends the define's output to dst. The define renders from
// `spec:` to the networks' last line, without a final newline; its
// whitespace, a line of 14 spaces before the resources included, is the
// chart's.
func (t *Template) Append(dst []byte) []byte {
	w := textBuf{b: dst}
	w.line(0, "spec:")
	w.line(2, "virtualMachineBootstrapCheck:")
	w.line(4, "checkStrategy: none")
	w.line(2, "virtualMachineTemplate:")
	w.line(4, "metadata:")
	w.field(6, "namespace: ", t.Namespace)
	w.line(6, "labels:")
	t.roles(&w, 8)
	w.line(4, "spec:")
	if t.InstanceType != "" && (t.CPU == "" || t.Memory == "") {
		w.line(6, "instancetype:")
		w.line(8, "kind: VirtualMachineClusterInstancetype")
		w.field(8, "name: ", t.InstanceType)
	}
	w.line(6, "runStrategy: Always")
	w.line(6, "dataVolumeTemplates:")
	w.b = append(w.b, t.Disk...)
	w.line(6, "template:")
	w.line(8, "metadata:")
	w.line(10, "annotations:")
	w.line(12, `kubevirt.io/allow-pod-bridge-network-live-migration: "true"`)
	w.line(10, "labels:")
	w.line(12, "apps.cozystack.io/application.group: apps.cozystack.io")
	w.line(12, "apps.cozystack.io/application.kind: Kubernetes")
	// {{ .clusterName | trimPrefix "kubernetes-" | quote }}: the cluster.
	w.indent(12)
	w.b = append(w.b, "apps.cozystack.io/application.name: "...)
	w.b = strconv.AppendQuote(w.b, t.Cluster)
	w.b = append(w.b, '\n')
	t.roles(&w, 12)
	w.indent(12)
	w.b = append(w.b, "cluster.x-k8s.io/deployment-name: kubernetes-"...)
	w.b = append(append(append(w.b, t.Cluster...), '-'), t.Group...)
	w.b = append(w.b, "\n        spec:"...)
	if t.Constraints != "" {
		w.nindent(10, t.Constraints)
		w.b = append(w.b, "\n            labelSelector:\n              matchLabels:\n                cluster.x-k8s.io/cluster-name: kubernetes-"...)
		w.b = append(w.b, t.Cluster...)
	}
	w.b = append(w.b, '\n')
	w.line(10, "domain:")
	if t.CPU != "" {
		w.line(12, "cpu:")
		w.line(14, "threads: 1")
		w.field(14, "cores: ", t.CPU)
		w.line(14, "sockets: 1")
	}
	w.line(12, "devices:")
	if len(t.GPUs) > 0 {
		w.line(14, "gpus:")
		for i, g := range t.GPUs {
			w.indent(14)
			w.b = strconv.AppendInt(append(w.b, "- name: gpu"...), int64(i+1), 10)
			w.b = append(w.b, '\n')
			w.field(16, "deviceName: ", g)
		}
	}
	w.line(14, "disks:")
	w.line(14, "- name: system")
	w.line(16, "disk:")
	w.line(18, "bus: virtio")
	w.line(18, "pciAddress: 0000:07:00.0")
	w.line(16, "blockSize:")
	w.line(18, "custom:")
	w.line(20, "logical: 512")
	w.line(20, "physical: 4096")
	w.line(14, "interfaces:")
	w.line(14, "- name: default")
	w.line(16, "bridge: {}")
	if t.LogSerialConsole {
		w.line(14, "logSerialConsole: true")
	}
	if t.Memory != "" {
		w.line(12, "memory:")
		w.field(14, "guest: ", t.Memory)
	}
	w.line(12, "resources:")
	// The line of a template comment, "{{/* 2Gi is enough … */}}", whose
	// indentation no trim marker removes.
	w.indent(14)
	w.nindent(14, t.PodResources)
	w.b = append(w.b, '\n')
	w.line(10, "evictionStrategy: External")
	w.line(10, "volumes:")
	w.line(10, "- name: system")
	w.line(12, "dataVolume:")
	w.line(14, "name: disk-system")
	w.line(10, "networks:")
	w.line(10, "- name: default")
	w.indent(12)
	w.b = append(w.b, "pod: {}"...)
	return w.b
}

func (t *Template) roles(w *textBuf, indent int) {
	for _, r := range t.Roles {
		w.indent(indent)
		w.b = append(append(append(w.b, "node-role.kubernetes.io/"...), r...), `: ""`...)
		w.b = append(w.b, '\n')
	}
}

// textBuf appends indented lines to a byte slice, as Lines writes them, so
// that a fleet's templates are hashed in one reused buffer.
type textBuf struct{ b []byte }

func (w *textBuf) indent(n int) {
	for n > len(spaces) {
		w.b = append(w.b, spaces...)
		n -= len(spaces)
	}
	w.b = append(w.b, spaces[:n]...)
}

func (w *textBuf) line(indent int, s string) {
	w.indent(indent)
	w.b = append(append(w.b, s...), '\n')
}

func (w *textBuf) field(indent int, key, value string) {
	w.indent(indent)
	w.b = append(append(append(w.b, key...), value...), '\n')
}

// nindent is sprig's: a newline, then s with every line indented by n.
func (w *textBuf) nindent(n int, s string) {
	for {
		w.b = append(w.b, '\n')
		w.indent(n)
		line, rest, more := strings.Cut(s, "\n")
		w.b = append(w.b, line...)
		if !more {
			return
		}
		s = rest
	}
}
