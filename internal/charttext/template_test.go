package charttext

import (
	"crypto/sha256"
	"strings"
	"testing"

	"github.com/cozystack/kubernetes-worker-image/internal/diskentry"
	"github.com/cozystack/kubernetes-worker-image/naming"
)

// chartDefaults is the kubevirtmachinetemplate define's output for a pool
// of cluster demo named demo-md0 in tenant-demo, with the chart's defaults
// and a platform that sets none of what the define reads, as Helm renders
// the pre-feature chart (cozystack/cozystack 3c780acd417f, Helm v4.1.1):
// its template is kubernetes-demo-md0-610acb. One line is 14 spaces.
var chartDefaults = `spec:
  virtualMachineBootstrapCheck:
    checkStrategy: none
  virtualMachineTemplate:
    metadata:
      namespace: tenant-demo
      labels:
    spec:
      instancetype:
        kind: VirtualMachineClusterInstancetype
        name: u1.medium
      runStrategy: Always
      dataVolumeTemplates:
      - metadata:
          name: disk-system
          annotations:
            cdi.kubevirt.io/storage.usePopulator: "false"
        spec:
          source:
            http:
              url: https://factory.talos.dev/image/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515/v1.13.6/openstack-amd64.raw.xz
          storage:
            resources:
              requests:
                storage: "20Gi"
            storageClassName: "replicated"
      template:
        metadata:
          annotations:
            kubevirt.io/allow-pod-bridge-network-live-migration: "true"
          labels:
            apps.cozystack.io/application.group: apps.cozystack.io
            apps.cozystack.io/application.kind: Kubernetes
            apps.cozystack.io/application.name: "demo"
            cluster.x-k8s.io/deployment-name: kubernetes-demo-md0
        spec:
          domain:
            devices:
              disks:
              - name: system
                disk:
                  bus: virtio
                  pciAddress: 0000:07:00.0
                blockSize:
                  custom:
                    logical: 512
                    physical: 4096
              interfaces:
              - name: default
                bridge: {}
            resources:
` + strings.Repeat(" ", 14) + `
              limits:
                ephemeral-storage: 2Gi
              requests:
                ephemeral-storage: "53687091"
          evictionStrategy: External
          volumes:
          - name: system
            dataVolume:
              name: disk-system
          networks:
          - name: default
            pod: {}`

func TestTextOfTheChartsDefaults(t *testing.T) {
	disk := diskentry.Disk{Name: "disk-system", UsePopulator: "false", Size: "20Gi", Class: "replicated",
		URL: naming.ImageURL("https://factory.talos.dev", "ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515", "v1.13.6")}
	req, ok := EphemeralRequest(40)
	if !ok {
		t.Fatal("ratio 40 does not divide")
	}
	tm := Template{Namespace: "tenant-demo", Cluster: "demo", Group: "md0", InstanceType: "u1.medium", Disk: DiskText(&disk, Indent), PodResources: PodResources(req, nil, nil)}
	got := tm.Text()
	if got != chartDefaults {
		t.Errorf("the define's text differs from the chart's\n-want:\n%s\n+got:\n%s", chartDefaults, got)
	}
	sum, _ := tm.Sum(nil)
	if sum != sha256.Sum256([]byte(got)) {
		t.Error("Sum is not the text's sha256")
	}
	if name := tm.Name(sum); name != "kubernetes-demo-md0-610acb" {
		t.Errorf("name %s, the chart names it kubernetes-demo-md0-610acb", name)
	}
}
