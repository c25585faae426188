package capk

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubevirtv1 "kubevirt.io/api/core/v1"

	"github.com/cozystack/kubernetes-worker-image/naming"
)

// GroupVersion is the API of the KubevirtMachineTemplates the
// kubernetes-nodes chart writes: the Cluster API KubeVirt provider's
// infrastructure.cluster.x-k8s.io/v1alpha1.
func GroupVersion() schema.GroupVersion {
	return schema.GroupVersion{Group: "infrastructure.cluster.x-k8s.io", Version: "v1alpha1"}
}

// KubevirtMachineTemplate is a Cluster API KubeVirt provider (CAPK)
// KubevirtMachineTemplate, holding exactly what the library reads of one:
// its metadata, and, of the VirtualMachine it makes
// (spec.template.spec.virtualMachineTemplate.spec), the dataVolumeTemplates
// and the labels of the instance template. The kubernetes-nodes chart
// writes one per pool, named by a hash of its text, and a new one whenever
// that text changes (packages/apps/kubernetes-nodes/templates/nodegroup.yaml
// in cozystack/cozystack).
//
// It is this package's own type because CAPK's Go module
// (sigs.k8s.io/cluster-api-provider-kubevirt) brings Cluster API, kind and
// kubectl with it, for one struct. It decodes the same JSON as CAPK's type:
// what it does not name is ignored, never guessed at, and the entries of
// dataVolumeTemplates are KubeVirt's own DataVolumeTemplateSpec (metadata
// and a CDI DataVolumeSpec), as in a VirtualMachine.
type KubevirtMachineTemplate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              KubevirtMachineTemplateSpec `json:"spec"`
}

// KubevirtMachineTemplateSpec is a template's spec: the machine it makes.
type KubevirtMachineTemplateSpec struct {
	Template KubevirtMachineTemplateResource `json:"template"`
}

// KubevirtMachineTemplateResource is the KubevirtMachine a template makes.
type KubevirtMachineTemplateResource struct {
	Spec KubevirtMachineSpec `json:"spec"`
}

// KubevirtMachineSpec is what is read of a KubevirtMachine's spec: the
// VirtualMachine it runs.
type KubevirtMachineSpec struct {
	VirtualMachineTemplate VirtualMachineTemplate `json:"virtualMachineTemplate"`
}

// VirtualMachineTemplate is the VirtualMachine a KubevirtMachine runs.
type VirtualMachineTemplate struct {
	Spec VirtualMachineTemplateSpec `json:"spec"`
}

// VirtualMachineTemplateSpec is what is read of a kubevirtv1.VirtualMachineSpec:
// its dataVolumeTemplates (a worker's disk-system among them) and the
// metadata of its instance template.
type VirtualMachineTemplateSpec struct {
	DataVolumeTemplates []kubevirtv1.DataVolumeTemplateSpec `json:"dataVolumeTemplates,omitempty"`
	Template            *InstanceTemplate                   `json:"template,omitempty"`
}

// InstanceTemplate is what is read of a VirtualMachineInstanceTemplateSpec:
// its metadata, whose labels name the pool.
type InstanceTemplate struct {
	ObjectMeta metav1.ObjectMeta `json:"metadata,omitempty"`
}

// KubevirtMachineTemplateList is a list of templates, as the API serves it.
type KubevirtMachineTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []KubevirtMachineTemplate `json:"items"`
}

// Pool is the CAPI name of the pool the template makes workers for
// ("kubernetes-demo-md0", as naming.PoolCAPIName names it), "" when it
// says none: the instance template's label naming.DeploymentNameLabel,
// which the kubernetes-nodes chart sets to kubernetes-<cluster>-<pool>
// (nodegroup.yaml, the virtualMachineTemplate's template.metadata.labels;
// the chart puts no label on the KubevirtMachineTemplate itself), else the
// pool annotation of its dataVolumeTemplates (the clone path writes
// naming.PoolAnnotation on the disk). For example a template of pool md0 of
// cluster demo is "kubernetes-demo-md0"; a template written by hand with
// neither is "".
func (t *KubevirtMachineTemplate) Pool() string {
	vm := &t.Spec.Template.Spec.VirtualMachineTemplate.Spec
	var labels map[string]string
	if vm.Template != nil {
		labels = vm.Template.ObjectMeta.Labels
	}
	return poolOf(labels, vm.DataVolumeTemplates)
}

// VirtualMachinePool is the CAPI name of the pool a VirtualMachine is a
// worker of, read as KubevirtMachineTemplate.Pool reads a template's: CAPK
// makes the VirtualMachine from the template, its instance template's
// labels with it. "" when it says none.
func VirtualMachinePool(vm *kubevirtv1.VirtualMachine) string {
	var labels map[string]string
	if vm.Spec.Template != nil {
		labels = vm.Spec.Template.ObjectMeta.Labels
	}
	return poolOf(labels, vm.Spec.DataVolumeTemplates)
}

func poolOf(labels map[string]string, dvts []kubevirtv1.DataVolumeTemplateSpec) string {
	if p := labels[naming.DeploymentNameLabel]; p != "" {
		return p
	}
	for i := range dvts {
		if p := dvts[i].Annotations[naming.PoolAnnotation]; p != "" {
			return p
		}
	}
	return ""
}

// deepCopyInto copies t into out, sharing nothing.
func (t *KubevirtMachineTemplate) deepCopyInto(out *KubevirtMachineTemplate) {
	*out = *t
	out.TypeMeta = t.TypeMeta
	t.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	vm := &t.Spec.Template.Spec.VirtualMachineTemplate.Spec
	o := &out.Spec.Template.Spec.VirtualMachineTemplate.Spec
	if vm.DataVolumeTemplates != nil {
		o.DataVolumeTemplates = make([]kubevirtv1.DataVolumeTemplateSpec, len(vm.DataVolumeTemplates))
		for i := range vm.DataVolumeTemplates {
			vm.DataVolumeTemplates[i].DeepCopyInto(&o.DataVolumeTemplates[i])
		}
	}
	if vm.Template != nil {
		o.Template = &InstanceTemplate{}
		vm.Template.ObjectMeta.DeepCopyInto(&o.Template.ObjectMeta)
	}
}

// deepCopy returns a copy of t, sharing nothing.
func (t *KubevirtMachineTemplate) deepCopy() *KubevirtMachineTemplate {
	if t == nil {
		return nil
	}
	out := new(KubevirtMachineTemplate)
	t.deepCopyInto(out)
	return out
}

// DeepCopyObject returns a copy of t, sharing nothing, as a runtime.Object.
func (t *KubevirtMachineTemplate) DeepCopyObject() runtime.Object {
	if c := t.deepCopy(); c != nil {
		return c
	}
	return nil
}

// deepCopyInto copies l into out, sharing nothing.
func (l *KubevirtMachineTemplateList) deepCopyInto(out *KubevirtMachineTemplateList) {
	*out = *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]KubevirtMachineTemplate, len(l.Items))
		for i := range l.Items {
			l.Items[i].deepCopyInto(&out.Items[i])
		}
	}
}

// deepCopy returns a copy of l, sharing nothing.
func (l *KubevirtMachineTemplateList) deepCopy() *KubevirtMachineTemplateList {
	if l == nil {
		return nil
	}
	out := new(KubevirtMachineTemplateList)
	l.deepCopyInto(out)
	return out
}

// DeepCopyObject returns a copy of l, sharing nothing, as a runtime.Object.
func (l *KubevirtMachineTemplateList) DeepCopyObject() runtime.Object {
	if c := l.deepCopy(); c != nil {
		return c
	}
	return nil
}

var (
	_ runtime.Object = (*KubevirtMachineTemplate)(nil)
	_ runtime.Object = (*KubevirtMachineTemplateList)(nil)
)
