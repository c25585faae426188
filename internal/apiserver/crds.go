package apiserver

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/cozystack/kubernetes-worker-image/plan"
)

// PoolGVK is the kind of a worker pool, KubernetesNodes, which the suite
// serves as a CRD; controllers read it as unstructured.
var PoolGVK = schema.FromAPIVersionAndKind(plan.PoolAPIVersion, plan.PoolKind)

// CRDs are the custom resources the suite installs: CDI's DataVolume and
// DataSource (namespaced), StorageProfile, CDI and CDIConfig
// (cluster-scoped) in cdi.kubevirt.io/v1beta1, the CSI snapshotter's
// VolumeSnapshotClass (cluster-scoped, snapshot.storage.k8s.io/v1, its
// fields at the top level rather than under spec), KubeVirt's
// VirtualMachine (kubevirt.io/v1), the KubeVirt Cluster API provider's
// KubevirtMachineTemplate (infrastructure.cluster.x-k8s.io/v1alpha1, with no
// status, as CAPK's CRD has none), KubernetesNodes and VMDisks (namespaced, all
// three). Their schemas keep every field (the adapters decode them into
// the Go types; the server need not know them) and their status is a
// subresource, as in the real CRDs, so a status is written through
// UpdateStatus and survives spec updates.
func CRDs() []*apiextensionsv1.CustomResourceDefinition {
	return []*apiextensionsv1.CustomResourceDefinition{
		crd("cdi.kubevirt.io", "v1beta1", "DataVolume", "datavolumes", "datavolume", apiextensionsv1.NamespaceScoped),
		crd("cdi.kubevirt.io", "v1beta1", "StorageProfile", "storageprofiles", "storageprofile", apiextensionsv1.ClusterScoped),
		crd("cdi.kubevirt.io", "v1beta1", "CDI", "cdis", "cdi", apiextensionsv1.ClusterScoped),
		crd("cdi.kubevirt.io", "v1beta1", "CDIConfig", "cdiconfigs", "cdiconfig", apiextensionsv1.ClusterScoped),
		crd("cdi.kubevirt.io", "v1beta1", "DataSource", "datasources", "datasource", apiextensionsv1.NamespaceScoped),
		crd("kubevirt.io", "v1", "VirtualMachine", "virtualmachines", "virtualmachine", apiextensionsv1.NamespaceScoped),
		withoutStatus(crd("infrastructure.cluster.x-k8s.io", "v1alpha1", "KubevirtMachineTemplate", "kubevirtmachinetemplates",
			"kubevirtmachinetemplate", apiextensionsv1.NamespaceScoped)),
		approved(topLevel(crd("snapshot.storage.k8s.io", "v1", "VolumeSnapshotClass", "volumesnapshotclasses", "volumesnapshotclass", apiextensionsv1.ClusterScoped)),
			"https://github.com/kubernetes-csi/external-snapshotter/pull/814"),
		crd(PoolGVK.Group, PoolGVK.Version, PoolGVK.Kind, "kubernetesnodes", "kubernetesnode", apiextensionsv1.NamespaceScoped),
		crd(PoolGVK.Group, PoolGVK.Version, "VMDisk", "vmdisks", "vmdisk", apiextensionsv1.NamespaceScoped),
	}
}

func crd(group, version, kind, plural, singular string, scope apiextensionsv1.ResourceScope) *apiextensionsv1.CustomResourceDefinition {
	keep := true
	anything := apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: &keep}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + "." + group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Kind: kind, ListKind: kind + "List", Plural: plural, Singular: singular,
			},
			Scope: scope,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: version, Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type:       "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": anything, "status": anything},
				}},
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
			}},
		},
	}
}

// topLevel keeps the fields a kind holds at its top level (a
// VolumeSnapshotClass's driver), which a schema of spec and status alone
// would prune; such a kind has no status subresource.
func topLevel(c *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinition {
	keep := true
	v := &c.Spec.Versions[0]
	v.Schema.OpenAPIV3Schema.XPreserveUnknownFields = &keep
	v.Subresources = nil
	return c
}

// withoutStatus is a kind whose CRD has no status subresource (and no
// status).
func withoutStatus(c *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinition {
	v := &c.Spec.Versions[0]
	delete(v.Schema.OpenAPIV3Schema.Properties, "status")
	v.Subresources = nil
	return c
}

// approved gives a CRD of a protected group (*.k8s.io, *.kubernetes.io)
// the annotation the API server requires of it: the pull request that
// approved the API, as the real CRD names it (external-snapshotter's
// client/config/crd for the snapshot group).
func approved(c *apiextensionsv1.CustomResourceDefinition, pr string) *apiextensionsv1.CustomResourceDefinition {
	c.Annotations = map[string]string{apiextensionsv1.KubeAPIApprovedAnnotation: pr}
	return c
}
