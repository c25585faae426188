package fleet

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/naming"
)

// Disks are worker disks as a cache receives them from an API server once
// CDI has cloned them and the CSI driver provisioned their volumes.
type Disks struct {
	DataVolumes []cdiv1.DataVolume
	PVCs        []corev1.PersistentVolumeClaim
	Volumes     []corev1.PersistentVolume
}

// ServedDisks is n worker disks over namespaces tenant namespaces, each a
// DataVolume cloned from its namespace's golden, the PVC CDI made for it
// and the PersistentVolume the driver provisioned, carrying what the
// server, CDI, the PV controller and the driver write and a plan never
// reads: managedFields of each writer, CDI's condition and pod
// annotations, owner references, finalizers, the volume's attributes and
// node affinity. Served as JSON a PVC is about 4 KB, a DataVolume 3 KB, a
// volume 2.5 KB.
func ServedDisks(n, namespaces int) Disks {
	st := Served(State(Size{Goldens: max(1, min(namespaces, 100)), StorageClasses: 1, PVCs: n, Namespaces: namespaces, DataVolumes: true}))
	var d Disks
	for _, dv := range st.DataVolumes {
		if dv.Namespace == naming.GoldenNamespace {
			continue
		}
		dv.ManagedFields = managed(
			entry("virt-controller", metav1.ManagedFieldsOperationUpdate, "", dataVolumeSpecFields),
			entry("cdi-controller", metav1.ManagedFieldsOperationUpdate, "status", dataVolumeStatusFields),
		)
		d.DataVolumes = append(d.DataVolumes, dv)
	}
	for _, p := range st.PersistentVolumeClaims {
		if p.Namespace == naming.GoldenNamespace {
			continue
		}
		for _, k := range cdiClaimAnnotations {
			p.Annotations[k[0]] = k[1]
		}
		p.ManagedFields = managed(
			entry("cdi-controller", metav1.ManagedFieldsOperationUpdate, "", claimFields),
			entry("kube-controller-manager", metav1.ManagedFieldsOperationUpdate, "", claimBindFields),
			entry("kube-controller-manager", metav1.ManagedFieldsOperationUpdate, "status", claimStatusFields),
		)
		d.PVCs = append(d.PVCs, p)
		d.Volumes = append(d.Volumes, volumeOf(&p))
	}
	return d
}

func volumeOf(p *corev1.PersistentVolumeClaim) corev1.PersistentVolume {
	name := p.Spec.VolumeName
	return corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, UID: p.UID + "-pv", ResourceVersion: p.ResourceVersion, CreationTimestamp: p.CreationTimestamp,
			Annotations: map[string]string{"pv.kubernetes.io/provisioned-by": provisioner, "volume.kubernetes.io/provisioner-deletion-secret-name": "",
				"volume.kubernetes.io/provisioner-deletion-secret-namespace": ""},
			Finalizers: []string{"external-provisioner.volume.kubernetes.io/finalizer", "kubernetes.io/pv-protection"},
			ManagedFields: managed(
				entry("csi-provisioner", metav1.ManagedFieldsOperationUpdate, "", volumeFields),
				entry("kube-controller-manager", metav1.ManagedFieldsOperationUpdate, "status", `{"f:status":{"f:phase":{}}}`),
			),
		},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:    p.Spec.Resources.Requests,
			AccessModes: p.Spec.AccessModes,
			PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{
				Driver: provisioner, VolumeHandle: name, FSType: "ext4",
				VolumeAttributes: map[string]string{"storage.kubernetes.io/csiProvisionerIdentity": "1767225600000-1234-" + provisioner,
					"replicated.csi.example.com/placement": "auto", "replicated.csi.example.com/replicas": "2"},
			}},
			ClaimRef: &corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: p.Namespace, Name: p.Name,
				UID: p.UID, ResourceVersion: p.ResourceVersion},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete,
			StorageClassName:              *p.Spec.StorageClassName,
			VolumeMode:                    p.Spec.VolumeMode,
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "replicated.csi.example.com/node", Operator: corev1.NodeSelectorOpIn,
					Values: []string{"node-a", "node-b"}}}}}}},
		},
		Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound},
	}
}

// cdiClaimAnnotations are annotations CDI keeps on the PVC of a cloned
// DataVolume.
var cdiClaimAnnotations = [][2]string{
	{"cdi.kubevirt.io/clonePhase", "Succeeded"},
	{"cdi.kubevirt.io/cloneType", "csi-clone"},
	{"cdi.kubevirt.io/storage.clone.token", "eyJhbGciOiJQUzI1NiJ9.eyJleHAiOjE3NjcyMjU5MDAsImlhdCI6MTc2NzIyNTYwMCwiaXNzIjoiY2RpLWFwaXNlcnZlciIsIm5hbWUiOiJnb2xkZW4iLCJuYW1lc3BhY2UiOiJjb3p5LXB1YmxpYyIsIm5iZiI6MTc2NzIyNTYwMCwib3BlcnRhdGlvbiI6IkNsb25lIiwicGFyYW1zIjp7InRhcmdldE5hbWUiOiJ3b3JrZXIiLCJ0YXJnZXROYW1lc3BhY2UiOiJ0ZW5hbnQifSwicmVzb3VyY2UiOnsiZ3JvdXAiOiIiLCJyZXNvdXJjZSI6InBlcnNpc3RlbnR2b2x1bWVjbGFpbXMiLCJ2ZXJzaW9uIjoidjEifX0.c2lnbmF0dXJl"},
	{"cdi.kubevirt.io/storage.condition.bound", "true"},
	{"cdi.kubevirt.io/storage.condition.bound.message", ""},
	{"cdi.kubevirt.io/storage.condition.bound.reason", ""},
	{"cdi.kubevirt.io/storage.condition.running.message", "Clone Complete"},
	{"cdi.kubevirt.io/storage.condition.running.reason", "Completed"},
	{"cdi.kubevirt.io/storage.contentType", "kubevirt"},
	{"cdi.kubevirt.io/storage.pod.restarts", "0"},
	{"cdi.kubevirt.io/storage.populator.progress", "100.0%"},
	{"cdi.kubevirt.io/storage.preallocation.requested", "false"},
	{"cdi.kubevirt.io/storage.usePopulator", "true"},
	{"volume.beta.kubernetes.io/storage-provisioner", provisioner},
}

func managed(es ...metav1.ManagedFieldsEntry) []metav1.ManagedFieldsEntry { return es }

func entry(manager string, op metav1.ManagedFieldsOperationType, sub, fields string) metav1.ManagedFieldsEntry {
	t := metav1.NewTime(servedAt)
	return metav1.ManagedFieldsEntry{Manager: manager, Operation: op, APIVersion: "v1", Time: &t, FieldsType: "FieldsV1",
		FieldsV1: &metav1.FieldsV1{Raw: []byte(fields)}, Subresource: sub}
}

var servedAt = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

const (
	dataVolumeSpecFields   = `{"f:metadata":{"f:annotations":{".":{},"f:kubernetes-worker-image.cozystack.io/golden":{},"f:kubernetes-worker-image.cozystack.io/pool":{}},"f:labels":{".":{},"f:kubevirt.io/created-by":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"00000000-0000-0000-0000-000000000000\"}":{}}},"f:spec":{".":{},"f:source":{".":{},"f:pvc":{".":{},"f:name":{},"f:namespace":{}}},"f:storage":{".":{},"f:resources":{".":{},"f:requests":{".":{},"f:storage":{}}},"f:storageClassName":{}}}}`
	dataVolumeStatusFields = `{"f:status":{".":{},"f:claimName":{},"f:conditions":{},"f:phase":{},"f:progress":{}}}`
	claimFields            = `{"f:metadata":{"f:annotations":{".":{},"f:cdi.kubevirt.io/clonePhase":{},"f:cdi.kubevirt.io/cloneType":{},"f:cdi.kubevirt.io/createdForDataVolume":{},"f:cdi.kubevirt.io/storage.clone.token":{},"f:cdi.kubevirt.io/storage.condition.bound":{},"f:cdi.kubevirt.io/storage.condition.bound.message":{},"f:cdi.kubevirt.io/storage.condition.bound.reason":{},"f:cdi.kubevirt.io/storage.condition.running":{},"f:cdi.kubevirt.io/storage.condition.running.message":{},"f:cdi.kubevirt.io/storage.condition.running.reason":{},"f:cdi.kubevirt.io/storage.contentType":{},"f:cdi.kubevirt.io/storage.pod.phase":{},"f:cdi.kubevirt.io/storage.pod.restarts":{},"f:cdi.kubevirt.io/storage.populator.progress":{},"f:cdi.kubevirt.io/storage.preallocation.requested":{},"f:cdi.kubevirt.io/storage.usePopulator":{},"f:kubernetes-worker-image.cozystack.io/golden":{},"f:kubernetes-worker-image.cozystack.io/pool":{}},"f:labels":{".":{},"f:app":{},"f:app.kubernetes.io/managed-by":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"00000000-0000-0000-0000-000000000000\"}":{}}},"f:spec":{"f:accessModes":{},"f:dataSourceRef":{},"f:resources":{"f:requests":{".":{},"f:storage":{}}},"f:storageClassName":{},"f:volumeMode":{}}}`
	claimBindFields        = `{"f:metadata":{"f:annotations":{"f:pv.kubernetes.io/bind-completed":{},"f:pv.kubernetes.io/bound-by-controller":{},"f:volume.beta.kubernetes.io/storage-provisioner":{},"f:volume.kubernetes.io/storage-provisioner":{}}},"f:spec":{"f:volumeName":{}}}`
	claimStatusFields      = `{"f:status":{"f:accessModes":{},"f:capacity":{".":{},"f:storage":{}},"f:phase":{}}}`
	volumeFields           = `{"f:metadata":{"f:annotations":{".":{},"f:pv.kubernetes.io/provisioned-by":{},"f:volume.kubernetes.io/provisioner-deletion-secret-name":{},"f:volume.kubernetes.io/provisioner-deletion-secret-namespace":{}},"f:finalizers":{".":{},"v:\"external-provisioner.volume.kubernetes.io/finalizer\"":{}}},"f:spec":{"f:accessModes":{},"f:capacity":{".":{},"f:storage":{}},"f:claimRef":{".":{},"f:apiVersion":{},"f:kind":{},"f:name":{},"f:namespace":{},"f:resourceVersion":{},"f:uid":{}},"f:csi":{".":{},"f:driver":{},"f:fsType":{},"f:volumeAttributes":{".":{},"f:replicated.csi.example.com/placement":{},"f:replicated.csi.example.com/replicas":{},"f:storage.kubernetes.io/csiProvisionerIdentity":{}},"f:volumeHandle":{}},"f:nodeAffinity":{".":{},"f:required":{}},"f:persistentVolumeReclaimPolicy":{},"f:storageClassName":{},"f:volumeMode":{}}}`
)
