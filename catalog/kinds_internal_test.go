package catalog

import (
	"testing"

	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// TestConsumerKindsAreStateKinds: a Consumer's Kind is the name state.Kind
// gives its kind, so that an importer compares it with
// state.DataVolume.String() and needs no constant of its own.
func TestConsumerKindsAreStateKinds(t *testing.T) {
	for kind, k := range map[string]state.Kind{
		kindDataVolume: state.DataVolume, kindPersistentVolumeClaim: state.PersistentVolumeClaim,
		kindKubevirtMachineTemplate: state.KubevirtMachineTemplate, kindVirtualMachine: state.VirtualMachine,
		kindDataSource: state.DataSource, kindKubernetesNodes: state.KubernetesNodes, kindHelmRelease: state.HelmRelease,
	} {
		if kind != k.String() {
			t.Errorf("consumer kind %q, state names it %q", kind, k.String())
		}
	}
}
