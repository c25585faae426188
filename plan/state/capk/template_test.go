package capk_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan/state/capk"
)

// chartTemplate is a KubevirtMachineTemplate as the kubernetes-nodes chart
// renders it for pool md0 of cluster demo (trimmed to what it writes
// around what is read), with a field no version of this type names.
const chartTemplate = `
apiVersion: infrastructure.cluster.x-k8s.io/v1alpha1
kind: KubevirtMachineTemplate
metadata:
  name: kubernetes-demo-md0-610acb
  namespace: tenant-demo
spec:
  template:
    spec:
      virtualMachineBootstrapCheck:
        checkStrategy: none
      virtualMachineTemplate:
        metadata:
          namespace: tenant-demo
          labels:
            node-role.kubernetes.io/ingress-nginx: ""
        spec:
          runStrategy: Always
          futureField: {kept: nowhere}
          dataVolumeTemplates:
          - metadata:
              name: disk-system
              annotations:
                cdi.kubevirt.io/storage.usePopulator: "false"
            spec:
              source:
                http:
                  url: https://factory.talos.dev/image/ce4c/v1.13.6/openstack-amd64.raw.xz
              storage:
                resources:
                  requests:
                    storage: "20Gi"
                storageClassName: "replicated"
          template:
            metadata:
              labels:
                apps.cozystack.io/application.name: "demo"
                cluster.x-k8s.io/deployment-name: kubernetes-demo-md0
            spec:
              domain:
                devices: {}
`

func TestDecodesWhatTheChartWrites(t *testing.T) {
	var tmpl capk.KubevirtMachineTemplate
	require.NoError(t, yaml.Unmarshal([]byte(chartTemplate), &tmpl), "fields it does not name are ignored")
	assert.Equal(t, "kubernetes-demo-md0", tmpl.Pool(), "the pool is the instance template's deployment-name label")
	dvts := tmpl.Spec.Template.Spec.VirtualMachineTemplate.Spec.DataVolumeTemplates
	require.Len(t, dvts, 1)
	disk := dvts[0]
	assert.Equal(t, "disk-system", disk.Name)
	require.NotNil(t, disk.Spec.Source.HTTP)
	assert.Equal(t, "https://factory.talos.dev/image/ce4c/v1.13.6/openstack-amd64.raw.xz", disk.Spec.Source.HTTP.URL)
	assert.Equal(t, "replicated", *disk.Spec.Storage.StorageClassName)
}

func entry(name string, ann map[string]string) kubevirtv1.DataVolumeTemplateSpec {
	return kubevirtv1.DataVolumeTemplateSpec{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: ann}}
}

func withLabels(labels map[string]string, es ...kubevirtv1.DataVolumeTemplateSpec) *capk.KubevirtMachineTemplate {
	t := &capk.KubevirtMachineTemplate{}
	vm := &t.Spec.Template.Spec.VirtualMachineTemplate.Spec
	vm.DataVolumeTemplates = es
	if labels != nil {
		vm.Template = &capk.InstanceTemplate{ObjectMeta: metav1.ObjectMeta{Labels: labels}}
	}
	return t
}

func TestPool(t *testing.T) {
	label := map[string]string{naming.DeploymentNameLabel: "kubernetes-demo-md0"}
	annotated := entry("disk-system", map[string]string{naming.PoolAnnotation: "kubernetes-demo-md1"})
	cases := map[string]struct {
		reason string
		t      *capk.KubevirtMachineTemplate
		want   string
	}{
		"label":       {"the chart's label names the pool", withLabels(label), "kubernetes-demo-md0"},
		"label wins":  {"the label, which every chart render carries, wins over a disk's annotation", withLabels(label, annotated), "kubernetes-demo-md0"},
		"annotation":  {"without the label, the clone path's pool annotation on a disk", withLabels(nil, entry("disk-data", nil), annotated), "kubernetes-demo-md1"},
		"empty label": {"an empty label says nothing", withLabels(map[string]string{naming.DeploymentNameLabel: ""}, annotated), "kubernetes-demo-md1"},
		"neither":     {"a template written by hand with neither names no pool", withLabels(map[string]string{"app": "x"}, entry("disk-system", nil)), ""},
		"other label": {"only the deployment-name label counts", withLabels(map[string]string{"cluster.x-k8s.io/cluster-name": "kubernetes-demo"}), ""},
		"zero":        {"the zero template", &capk.KubevirtMachineTemplate{}, ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.t.Pool(), tc.reason)
		})
	}
}

func TestVirtualMachinePool(t *testing.T) {
	vm := &kubevirtv1.VirtualMachine{}
	assert.Equal(t, "", capk.VirtualMachinePool(vm), "a VM with no template names no pool")
	vm.Spec.DataVolumeTemplates = []kubevirtv1.DataVolumeTemplateSpec{entry("disk-system", map[string]string{naming.PoolAnnotation: "kubernetes-demo-md1"})}
	assert.Equal(t, "kubernetes-demo-md1", capk.VirtualMachinePool(vm), "the disk's annotation")
	vm.Spec.Template = &kubevirtv1.VirtualMachineInstanceTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{naming.DeploymentNameLabel: "kubernetes-demo-md0"}}}
	assert.Equal(t, "kubernetes-demo-md0", capk.VirtualMachinePool(vm), "the label CAPK copies from the template")
}

func TestDeepCopySharesNothing(t *testing.T) {
	orig := withLabels(map[string]string{naming.DeploymentNameLabel: "p"}, entry("disk-system", map[string]string{"a": "1"}))
	orig.Labels = map[string]string{"l": "1"}
	cp := orig.DeepCopyObject().(*capk.KubevirtMachineTemplate)
	assert.Equal(t, orig, cp)
	cp.Labels["l"] = "2"
	cp.Spec.Template.Spec.VirtualMachineTemplate.Spec.DataVolumeTemplates[0].Annotations["a"] = "2"
	cp.Spec.Template.Spec.VirtualMachineTemplate.Spec.Template.ObjectMeta.Labels[naming.DeploymentNameLabel] = "q"
	assert.Equal(t, "1", orig.Labels["l"])
	assert.Equal(t, "1", orig.Spec.Template.Spec.VirtualMachineTemplate.Spec.DataVolumeTemplates[0].Annotations["a"])
	assert.Equal(t, "p", orig.Pool())

	list := &capk.KubevirtMachineTemplateList{Items: []capk.KubevirtMachineTemplate{*orig}}
	lcp := list.DeepCopyObject().(*capk.KubevirtMachineTemplateList)
	lcp.Items[0].Labels["l"] = "3"
	assert.Equal(t, "1", list.Items[0].Labels["l"])
	var nilT *capk.KubevirtMachineTemplate
	assert.Nil(t, nilT.DeepCopyObject())
}

// otherTemplate stands in for CAPK's own Go type of the kind.
type otherTemplate struct{ capk.KubevirtMachineTemplate }

func (o *otherTemplate) DeepCopyObject() runtime.Object { return o }

func TestAddToScheme(t *testing.T) {
	s := runtime.NewScheme()
	require.NoError(t, capk.AddToScheme(s))
	require.NoError(t, capk.AddToScheme(s), "registering twice is harmless")
	o, err := s.New(capk.GroupVersion().WithKind("KubevirtMachineTemplate"))
	require.NoError(t, err)
	assert.IsType(t, &capk.KubevirtMachineTemplate{}, o)

	taken := runtime.NewScheme()
	taken.AddKnownTypeWithName(capk.GroupVersion().WithKind("KubevirtMachineTemplate"), &otherTemplate{})
	assert.NotPanics(t, func() { err = capk.AddToScheme(taken) })
	assert.ErrorContains(t, err, "cannot also hold", "a scheme that holds CAPK's own type is an error, never a panic")
}
