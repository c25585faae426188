package computeplane

import (
	"encoding/json"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
)

// withEtcd is the _namespace Cozystack injects for a tenant that has etcd,
// so that cases about something else carry no etcd finding.
const withEtcd = "_namespace: {etcd: tenant-root}\n"

// ingressGroup is a group that satisfies MissingIngressPool, for cases about
// another group.
const ingressGroup = "  ing: {roles: [ingress-nginx]}\n"

// refusalsOf lists "Reason field" of the refusals in err, in order.
func refusalsOf(err error) []string {
	var out []string
	for _, r := range fixtures.Refused(err) {
		out = append(out, string(r.Reason)+" "+r.Field)
	}
	return out
}

func warningsOf(ws guard.Warnings) []string {
	var out []string
	for _, w := range fixtures.Warned(ws) {
		out = append(out, string(w.Reason)+" "+w.Field)
	}
	return out
}

func poolNames(ps []Pool) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}

func mustDecode(t *testing.T, y string) map[string]any {
	t.Helper()
	v, err := DecodeValues([]byte(y))
	require.NoError(t, err)
	return v
}

func TestPlan(t *testing.T) {
	cases := map[string]struct {
		reason   string
		values   string
		pools    []string
		refusals []string
		warnings []string
	}{
		// Defaults.
		"NodeGroupsAbsent": {
			reason: "No groups supplied: the default md0.",
			values: withEtcd,
			pools:  []string{"md0"},
		},
		"NodeGroupsNull": {
			reason: "nodeGroups: null means no groups supplied.",
			values: withEtcd + "nodeGroups: null\n",
			pools:  []string{"md0"},
		},
		"NodeGroupsEmpty": {
			reason: "nodeGroups: {} means no groups supplied.",
			values: withEtcd + "nodeGroups: {}\n",
			pools:  []string{"md0"},
		},
		"OnlyNullGroups": {
			reason: "A null group is not supplied, as Helm removes a null key; with none left, the default md0.",
			values: withEtcd + "nodeGroups: {md1: null}\n",
			pools:  []string{"md0"},
		},
		"SuppliedGroupsAreAuthoritative": {
			reason: "Supplied groups replace md0, they are not merged with it.",
			values: withEtcd + "nodeGroups:\n  workers: {roles: [ingress-nginx]}\n",
			pools:  []string{"workers"},
		},
		"NullGroupBesideSupplied": {
			reason: "A null group beside supplied ones is skipped.",
			values: withEtcd + "nodeGroups:\n  a: null\n" + ingressGroup,
			pools:  []string{"ing"},
		},
		"PoolsSortedByName": {
			reason: "Pools come out sorted by name.",
			values: withEtcd + "nodeGroups:\n  zeta: {}\n  alpha: {}\n" + ingressGroup,
			pools:  []string{"alpha", "ing", "zeta"},
		},

		// Pool names.
		"KeyOf15Characters": {
			reason: "A 15-character key fits: its release name is exactly 53.",
			values: withEtcd + "nodeGroups:\n  abcdefghijklmno: {roles: [ingress-nginx]}\n",
			pools:  []string{"abcdefghijklmno"},
		},
		"KeyOf16Characters": {
			reason:   "A 16-character key makes a 54-character release name.",
			values:   withEtcd + "nodeGroups:\n  abcdefghijklmnop: {roles: [ingress-nginx]}\n",
			refusals: []string{"PoolNameTooLong nodeGroups.abcdefghijklmnop"},
		},
		"KeyNotALabel": {
			reason:   "Uppercase is not DNS-1123.",
			values:   withEtcd + "nodeGroups:\n  Md0: {}\n" + ingressGroup,
			refusals: []string{"InvalidPoolName nodeGroups.Md0"},
		},
		"KeyWithDash": {
			reason: "Neighbour: a dash inside a label is fine.",
			values: withEtcd + "nodeGroups:\n  md-0: {}\n" + ingressGroup,
			pools:  []string{"ing", "md-0"},
		},
		"KeyEndsWithDash": {
			reason:   "A label cannot end with a dash.",
			values:   withEtcd + "nodeGroups:\n  md0-: {}\n" + ingressGroup,
			refusals: []string{"InvalidPoolName nodeGroups.md0-"},
		},
		"KeyEmpty": {
			reason:   "An empty key names no release (field.Path writes its path nodeGroups[]).",
			values:   withEtcd + "nodeGroups:\n  \"\": {}\n" + ingressGroup,
			refusals: []string{"InvalidPoolName nodeGroups[]"},
		},
		"KeyWithDot": {
			reason:   "A dot makes a subdomain, not a label.",
			values:   withEtcd + "nodeGroups:\n  md.0: {}\n" + ingressGroup,
			refusals: []string{"InvalidPoolName nodeGroups.md.0"},
		},
		"KeyBadAndLong": {
			reason: "Both name rules are independent, and both are reported.",
			values: withEtcd + "nodeGroups:\n  Abcdefghijklmnop: {}\n" + ingressGroup,
			refusals: []string{
				"InvalidPoolName nodeGroups.Abcdefghijklmnop",
				"PoolNameTooLong nodeGroups.Abcdefghijklmnop",
			},
		},

		// Ingress.
		"OnlyIngressGroupCannotScale": {
			reason:   "maxReplicas 0 on the only ingress group: nothing can run ingress.",
			values:   withEtcd + "nodeGroups:\n  md0: {roles: [ingress-nginx], maxReplicas: 0}\n",
			refusals: []string{"MissingIngressPool nodeGroups"},
		},
		"OnlyIngressGroupScalesToOne": {
			reason: "Neighbour: maxReplicas 1 is enough.",
			values: withEtcd + "nodeGroups:\n  md0: {roles: [ingress-nginx], maxReplicas: 1}\n",
			pools:  []string{"md0"},
		},
		"OnlyIngressGroupOmitsMaxReplicas": {
			reason: "An omitted maxReplicas is the chart's 10.",
			values: withEtcd + "nodeGroups:\n  md0: {roles: [ingress-nginx], minReplicas: 0}\n",
			pools:  []string{"md0"},
		},
		"NoGroupHasTheRole": {
			reason:   "Supplied groups, none with the ingress role.",
			values:   withEtcd + "nodeGroups:\n  md0: {roles: [worker]}\n  md1: {maxReplicas: 3}\n",
			refusals: []string{"MissingIngressPool nodeGroups"},
		},
		"OmittedRolesAreNone": {
			reason:   "An omitted roles is the chart's none, not md0's ingress-nginx.",
			values:   withEtcd + "nodeGroups:\n  md0: {}\n",
			refusals: []string{"MissingIngressPool nodeGroups"},
		},
		"AnotherGroupServesIngress": {
			reason: "One ingress group that scales is enough, beside one that cannot.",
			values: withEtcd + "nodeGroups:\n  a: {roles: [ingress-nginx], maxReplicas: 0}\n  b: {roles: [worker, ingress-nginx], maxReplicas: 2}\n",
			pools:  []string{"a", "b"},
		},
		"RolesOfWrongType": {
			reason:   "Roles the chart cannot read are InvalidValue; the ingress guard waits for them to be fixed.",
			values:   withEtcd + "nodeGroups:\n  md0: {roles: ingress-nginx}\n",
			refusals: []string{"InvalidValue nodeGroups.md0.roles"},
		},
		"MaxReplicasOfWrongType": {
			reason:   "A maxReplicas the chart cannot read is InvalidValue, without a guessed MissingIngressPool.",
			values:   withEtcd + "nodeGroups:\n  md0: {roles: [ingress-nginx], maxReplicas: ten}\n",
			refusals: []string{"InvalidValue nodeGroups.md0.maxReplicas"},
		},
		"IngressGroupWithBadRoleBeside": {
			reason:   "A non-string role is refused; the ingress-nginx beside it still counts.",
			values:   withEtcd + "nodeGroups:\n  md0: {roles: [ingress-nginx, 7]}\n",
			refusals: []string{"InvalidValue nodeGroups.md0.roles[1]"},
		},

		// Resources.
		"ResourcesCPUOnly": {
			reason:   "cpu without memory.",
			values:   withEtcd + "nodeGroups:\n  md0: {resources: {cpu: 2}}\n" + ingressGroup,
			refusals: []string{"IncompleteResources nodeGroups.md0.resources"},
		},
		"ResourcesMemoryOnly": {
			reason:   "memory without cpu.",
			values:   withEtcd + "nodeGroups:\n  md0: {resources: {memory: 4Gi}}\n" + ingressGroup,
			refusals: []string{"IncompleteResources nodeGroups.md0.resources"},
		},
		"ResourcesMemoryEmpty": {
			reason:   "An empty memory is not set to the pool chart's `and` (and not forwarded), so cpu stands alone.",
			values:   withEtcd + "nodeGroups:\n  md0: {resources: {cpu: \"2\", memory: \"\"}}\n" + ingressGroup,
			refusals: []string{"IncompleteResources nodeGroups.md0.resources"},
		},
		"ResourcesMemoryZero": {
			reason:   "A memory of 0 is not set to the pool chart's `and` (no InvalidQuantity), so cpu stands alone.",
			values:   withEtcd + "nodeGroups:\n  md0: {resources: {cpu: \"2\", memory: 0}}\n" + ingressGroup,
			refusals: []string{"IncompleteResources nodeGroups.md0.resources"},
		},
		"ResourcesCPUOnlyNoInstanceType": {
			reason: "The pool chart fails a lone cpu only beside an instanceType; an empty one names none.",
			values: withEtcd + "nodeGroups:\n  md0: {resources: {cpu: 2}, instanceType: \"\"}\n" + ingressGroup,
			pools:  []string{"ing", "md0"},
		},
		"ResourcesCPUOnlyInstanceType": {
			reason:   "Neighbour: beside an instanceType that is set, a lone cpu fails.",
			values:   withEtcd + "nodeGroups:\n  md0: {resources: {cpu: 2}, instanceType: u1.large}\n" + ingressGroup,
			refusals: []string{"IncompleteResources nodeGroups.md0.resources"},
		},
		"ResourcesBoth": {
			reason: "Neighbour: both set.",
			values: withEtcd + "nodeGroups:\n  md0: {resources: {cpu: 500m, memory: 4Gi}}\n" + ingressGroup,
			pools:  []string{"ing", "md0"},
		},
		"ResourcesNeither": {
			reason: "Neighbour: neither set (the chart sizes by instanceType).",
			values: withEtcd + "nodeGroups:\n  md0: {resources: {}}\n" + ingressGroup,
			pools:  []string{"ing", "md0"},
		},

		// Quantities.
		"DiskSizeMalformed": {
			reason:   "A diskSize that is no quantity renders as the templates print it, with a warning that the values schema refuses it.",
			values:   withEtcd + "nodeGroups:\n  md0: {diskSize: twenty}\n" + ingressGroup,
			pools:    []string{"ing", "md0"},
			warnings: []string{"InvalidQuantity nodeGroups.md0.diskSize"},
		},
		"DiskSizeZero": {
			reason:   "A disk of no size is not a positive quantity, but the pre-feature chart rendered \"0\": a warning, no refusal the chart did not have.",
			values:   withEtcd + "nodeGroups:\n  md0: {diskSize: \"0\"}\n" + ingressGroup,
			pools:    []string{"ing", "md0"},
			warnings: []string{"InvalidQuantity nodeGroups.md0.diskSize"},
		},
		"DiskSizeNumberZero": {
			reason: "Neighbour: the number 0 is unset to the chart's default, which renders 20Gi.",
			values: withEtcd + "nodeGroups:\n  md0: {diskSize: 0}\n" + ingressGroup,
			pools:  []string{"ing", "md0"},
		},
		"DiskSizeNegative": {
			reason:   "A negative diskSize renders as given: a warning.",
			values:   withEtcd + "nodeGroups:\n  md0: {diskSize: -1Gi}\n" + ingressGroup,
			pools:    []string{"ing", "md0"},
			warnings: []string{"InvalidQuantity nodeGroups.md0.diskSize"},
		},
		"DiskSizeNegativeNumber": {
			reason:   "A negative number too.",
			values:   withEtcd + "nodeGroups:\n  md0: {diskSize: -5}\n" + ingressGroup,
			pools:    []string{"ing", "md0"},
			warnings: []string{"InvalidQuantity nodeGroups.md0.diskSize"},
		},
		"DiskSizeFraction": {
			reason:   "A fraction is no whole number, and no string: the values schema refuses it, the templates print it; forwarded, with a warning.",
			values:   withEtcd + "nodeGroups:\n  md0: {diskSize: 1.5}\n" + ingressGroup,
			pools:    []string{"ing", "md0"},
			warnings: []string{"InvalidQuantity nodeGroups.md0.diskSize"},
		},
		"DiskSizeBoolean": {
			reason:   "true likewise: the templates print \"true\".",
			values:   withEtcd + "nodeGroups:\n  md0: {diskSize: true}\n" + ingressGroup,
			pools:    []string{"ing", "md0"},
			warnings: []string{"InvalidQuantity nodeGroups.md0.diskSize"},
		},
		"DiskSizeMap": {
			reason:   "A map prints no size: refused.",
			values:   withEtcd + "nodeGroups:\n  md0: {diskSize: {size: 20Gi}}\n" + ingressGroup,
			refusals: []string{"InvalidValue nodeGroups.md0.diskSize"},
		},
		"DiskSizeWholeFraction": {
			reason: "Neighbour: 2.0 is whole.",
			values: withEtcd + "nodeGroups:\n  md0: {diskSize: 2.0}\n" + ingressGroup,
			pools:  []string{"ing", "md0"},
		},
		"DiskSizeOneByte": {
			reason: "Neighbour: the smallest positive size passes.",
			values: withEtcd + "nodeGroups:\n  md0: {diskSize: 1}\n" + ingressGroup,
			pools:  []string{"ing", "md0"},
		},
		"DiskSizeEmpty": {
			reason: "An empty diskSize is not set, and not forwarded: the pool chart's 20Gi.",
			values: withEtcd + "nodeGroups:\n  md0: {diskSize: \"\"}\n" + ingressGroup,
			pools:  []string{"ing", "md0"},
		},
		"DiskSizeNull": {
			reason:   "A null inside a group survives Helm's coalescing (the chart's values have no group), and the values schema refuses it.",
			values:   withEtcd + "nodeGroups:\n  md0: {diskSize: null}\n" + ingressGroup,
			refusals: []string{"InvalidValue nodeGroups.md0.diskSize"},
		},
		"StorageClassNull": {
			reason:   "storageClass: null likewise.",
			values:   withEtcd + "nodeGroups:\n  md0: {storageClass: null}\n" + ingressGroup,
			refusals: []string{"InvalidValue nodeGroups.md0.storageClass"},
		},
		"RolesNull": {
			reason:   "roles: null likewise, without a guessed MissingIngressPool.",
			values:   withEtcd + "nodeGroups:\n  md0: {roles: null, maxReplicas: 2}\n",
			refusals: []string{"InvalidValue nodeGroups.md0.roles"},
		},
		"NestedNull": {
			reason: "A null inside resources, kubelet or a gpu is refused at its path.",
			values: withEtcd + "nodeGroups:\n  md0: {resources: {cpu: null, memory: 4Gi}, kubelet: {kubeReservedCpu: null}, gpus: [{name: null}]}\n" + ingressGroup,
			refusals: []string{"InvalidValue nodeGroups.md0.gpus[0].name", "InvalidValue nodeGroups.md0.kubelet.kubeReservedCpu", "InvalidValue nodeGroups.md0.resources.cpu",
				"IncompleteResources nodeGroups.md0.resources"},
		},
		"UnknownNull": {
			reason: "Neighbour: a null the schema does not type passes it, and is dropped without a word.",
			values: withEtcd + "nodeGroups:\n  md0: {podCpuLimit: null}\n" + ingressGroup,
			pools:  []string{"ing", "md0"},
		},
		"CPUMalformed": {
			reason:   "A cpu that is no quantity; memory is set, so resources are complete.",
			values:   withEtcd + "nodeGroups:\n  md0: {resources: {cpu: two, memory: 4Gi}}\n" + ingressGroup,
			refusals: []string{"InvalidQuantity nodeGroups.md0.resources.cpu"},
		},
		"MemoryMalformed": {
			reason:   "A memory that is no quantity.",
			values:   withEtcd + "nodeGroups:\n  md0: {resources: {cpu: 2, memory: 4GB}}\n" + ingressGroup,
			refusals: []string{"InvalidQuantity nodeGroups.md0.resources.memory"},
		},
		"KubeletThresholdPercentage": {
			reason: "Kubelet thresholds are forwarded unparsed: an eviction threshold may be a percentage.",
			values: withEtcd + "nodeGroups:\n  md0: {kubelet: {evictionHardMemory: 5%}}\n" + ingressGroup,
			pools:  []string{"ing", "md0"},
		},

		// Types.
		"NodeGroupsList": {
			reason:   "nodeGroups must be a map.",
			values:   withEtcd + "nodeGroups: [md0]\n",
			refusals: []string{"InvalidValue nodeGroups"},
		},
		"GroupString": {
			reason:   "A group must be a map; the ingress guard waits for it to be fixed.",
			values:   withEtcd + "nodeGroups: {md0: big}\n",
			refusals: []string{"InvalidValue nodeGroups.md0"},
		},
		"ResourcesList": {
			reason:   "resources must be a map.",
			values:   withEtcd + "nodeGroups:\n  md0: {resources: [2, 4Gi]}\n" + ingressGroup,
			refusals: []string{"InvalidValue nodeGroups.md0.resources"},
		},
		"ResourcesCPUList": {
			reason:   "cpu must be a quantity; a wrong-typed cpu still counts as set.",
			values:   withEtcd + "nodeGroups:\n  md0: {resources: {cpu: [2], memory: 4Gi}}\n" + ingressGroup,
			refusals: []string{"InvalidValue nodeGroups.md0.resources.cpu"},
		},
		"GPUString": {
			reason:   "A gpus item must be a map.",
			values:   withEtcd + "nodeGroups:\n  md0: {gpus: [nvidia]}\n" + ingressGroup,
			refusals: []string{"InvalidValue nodeGroups.md0.gpus[0]"},
		},
		"EphemeralStorage": {
			reason:   "The wrapped chart failed a group that still had ephemeralStorage (migration 41 moves it to diskSize); dropped, the size meant would silently be 20Gi.",
			values:   withEtcd + "nodeGroups:\n  md0: {ephemeralStorage: 50Gi}\n" + ingressGroup,
			refusals: []string{"InvalidValue nodeGroups.md0.ephemeralStorage"},
		},
		"EphemeralStorageNull": {
			reason:   "A null one too: the wrapped chart asked whether the group has the key, and a null inside a group survives Helm's coalescing.",
			values:   withEtcd + "nodeGroups:\n  md0: {ephemeralStorage: null, diskSize: 50Gi}\n" + ingressGroup,
			refusals: []string{"InvalidValue nodeGroups.md0.ephemeralStorage"},
		},
		"EphemeralStorageElsewhere": {
			reason:   "Neighbour: the key inside resources is another field, dropped as any other.",
			values:   withEtcd + "nodeGroups:\n  md0: {resources: {ephemeralStorage: 10Gi}}\n" + ingressGroup,
			pools:    []string{"ing", "md0"},
			warnings: []string{"DroppedField nodeGroups.md0.resources.ephemeralStorage"},
		},
		"GPUNameMissing": {
			reason:   "The values schema requires a gpu's name.",
			values:   withEtcd + "nodeGroups:\n  md0: {gpus: [{}]}\n" + ingressGroup,
			refusals: []string{"InvalidValue nodeGroups.md0.gpus[0].name"},
		},
		"KubeletNumber": {
			reason:   "The values schemas type the kubelet reservations as strings.",
			values:   withEtcd + "nodeGroups:\n  md0: {kubelet: {kubeReservedCpu: 1}}\n" + ingressGroup,
			refusals: []string{"InvalidValue nodeGroups.md0.kubelet.kubeReservedCpu"},
		},
		"GPUNameNumber": {
			reason:   "A gpu name must be a string.",
			values:   withEtcd + "nodeGroups:\n  md0: {gpus: [{name: 10}]}\n" + ingressGroup,
			refusals: []string{"InvalidValue nodeGroups.md0.gpus[0].name"},
		},
		"InstanceTypeNumber": {
			reason:   "instanceType must be a string.",
			values:   withEtcd + "nodeGroups:\n  md0: {instanceType: 4}\n" + ingressGroup,
			refusals: []string{"InvalidValue nodeGroups.md0.instanceType"},
		},
		"MinReplicasFraction": {
			reason:   "A replica count is whole.",
			values:   withEtcd + "nodeGroups:\n  md0: {minReplicas: 1.5}\n" + ingressGroup,
			refusals: []string{"InvalidValue nodeGroups.md0.minReplicas"},
		},
		"MinReplicasNegative": {
			reason: "The values schemas' integer has no minimum: -1 is forwarded as the chart forwarded it.",
			values: withEtcd + "nodeGroups:\n  md0: {minReplicas: -1}\n" + ingressGroup,
			pools:  []string{"ing", "md0"},
		},
		"MaxReplicasNegative": {
			reason:   "A negative maxReplicas is forwarded, and scales to no ingress worker.",
			values:   withEtcd + "nodeGroups:\n  md0: {roles: [ingress-nginx], maxReplicas: -1}\n",
			refusals: []string{"MissingIngressPool nodeGroups"},
		},
		"MaxReplicasHuge": {
			reason: "1e21 is a whole number to the values schemas, though no int64 holds it: forwarded, and it scales.",
			values: withEtcd + "nodeGroups:\n  md0: {roles: [ingress-nginx], maxReplicas: 1e21}\n",
			pools:  []string{"md0"},
		},
		"MinReplicasWholeFloat": {
			reason: "Neighbour: 2.0 is a whole number.",
			values: withEtcd + "nodeGroups:\n  md0: {minReplicas: 2.0}\n" + ingressGroup,
			pools:  []string{"ing", "md0"},
		},
		"KubeletString": {
			reason:   "kubelet must be a map.",
			values:   withEtcd + "nodeGroups:\n  md0: {kubelet: fast}\n" + ingressGroup,
			refusals: []string{"InvalidValue nodeGroups.md0.kubelet"},
		},
		"KubeletThresholdBoolean": {
			reason:   "A kubelet threshold is a string or a number.",
			values:   withEtcd + "nodeGroups:\n  md0: {kubelet: {kubeReservedCpu: true}}\n" + ingressGroup,
			refusals: []string{"InvalidValue nodeGroups.md0.kubelet.kubeReservedCpu"},
		},
		"NamespaceList": {
			reason:   "_namespace must be a map.",
			values:   "_namespace: [etcd]\n",
			pools:    nil,
			refusals: []string{"InvalidValue _namespace"},
		},
		"NamespaceEtcdNumber": {
			reason:   "_namespace.etcd must be a string.",
			values:   "_namespace: {etcd: 1}\n",
			refusals: []string{"InvalidValue _namespace.etcd"},
		},

		// Etcd.
		"NamespaceAbsent": {
			reason:   "Without _namespace the etcd prerequisite is unknown.",
			values:   "",
			pools:    []string{"md0"},
			warnings: []string{"StateUnverified _namespace"},
		},
		"NamespaceNull": {
			reason:   "A null _namespace is absent.",
			values:   "_namespace: null\n",
			pools:    []string{"md0"},
			warnings: []string{"StateUnverified _namespace"},
		},
		"EtcdEmpty": {
			reason:   "A tenant without etcd: nothing will come up.",
			values:   "_namespace: {etcd: \"\", ingress: tenant-root}\n",
			pools:    []string{"md0"},
			warnings: []string{"EtcdUnavailable _namespace.etcd"},
		},
		"EtcdKeyAbsent": {
			reason:   "_namespace present without etcd is a tenant without etcd.",
			values:   "_namespace: {ingress: tenant-root}\n",
			pools:    []string{"md0"},
			warnings: []string{"EtcdUnavailable _namespace.etcd"},
		},
		"EtcdSet": {
			reason: "Neighbour: an etcd module, no warning.",
			values: "_namespace: {etcd: tenant-a}\n",
			pools:  []string{"md0"},
		},

		// Dropped fields.
		"OSImageDropped": {
			reason:   "osImage is the operator's: dropped by name, reported.",
			values:   withEtcd + "nodeGroups:\n  md0: {roles: [ingress-nginx], osImage: {builtin: {}}}\n",
			pools:    []string{"md0"},
			warnings: []string{"DroppedField nodeGroups.md0.osImage"},
		},
		"OSImageNull": {
			reason: "A null osImage is not set: nothing is dropped.",
			values: withEtcd + "nodeGroups:\n  md0: {roles: [ingress-nginx], osImage: null}\n",
			pools:  []string{"md0"},
		},
		"EverythingElseDropped": {
			reason: "talos, version, images, cluster and nested extras are dropped, each reported once at its outermost key.",
			values: withEtcd + "nodeGroups:\n  md0:\n" +
				"    roles: [ingress-nginx]\n" +
				"    talos: {version: v1.0.0}\n" +
				"    version: v1.2.3\n" +
				"    images: []\n" +
				"    cluster: other\n" +
				"    resources: {cpu: 1, memory: 1Gi, gpu: 1}\n" +
				"    gpus: [{name: a, foo: b}, {name: c}]\n" +
				"    kubelet: {maxPods: 200, kubeReservedCpu: 100m}\n",
			pools: []string{"md0"},
			warnings: []string{
				"DroppedField nodeGroups.md0.cluster",
				"DroppedField nodeGroups.md0.gpus[0].foo",
				"DroppedField nodeGroups.md0.images",
				"DroppedField nodeGroups.md0.kubelet.maxPods",
				"DroppedField nodeGroups.md0.resources.gpu",
				"DroppedField nodeGroups.md0.talos",
				"DroppedField nodeGroups.md0.version",
			},
		},
		"DroppedOnARefusedPlan": {
			reason:   "Dropped fields are reported even when the plan is refused.",
			values:   withEtcd + "nodeGroups:\n  md0: {osImage: {}}\n",
			refusals: []string{"MissingIngressPool nodeGroups"},
			warnings: []string{"DroppedField nodeGroups.md0.osImage"},
		},

		// Together.
		"AllReportedTogether": {
			reason: "Independent refusals of several groups come back together.",
			values: "_namespace: {etcd: \"\"}\n" + "nodeGroups:\n" +
				"  Bad: {diskSize: [x]}\n" +
				"  longerthanfifteen: {resources: {cpu: 1}}\n" +
				"  md0: {roles: [ingress-nginx], maxReplicas: 0, minReplicas: 1.5}\n",
			refusals: []string{
				"InvalidPoolName nodeGroups.Bad",
				"InvalidValue nodeGroups.Bad.diskSize",
				"PoolNameTooLong nodeGroups.longerthanfifteen",
				"IncompleteResources nodeGroups.longerthanfifteen.resources",
				"InvalidValue nodeGroups.md0.minReplicas",
				"MissingIngressPool nodeGroups",
			},
			warnings: []string{"EtcdUnavailable _namespace.etcd"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res, err := Plan(mustDecode(t, tc.values))
			assert.Equal(t, tc.refusals, refusalsOf(err), tc.reason)
			assert.Equal(t, res.Refusals.Err(), err, "Plan returns the refusals it records in Result.Refusals")
			assert.Equal(t, tc.warnings, warningsOf(res.Warnings), tc.reason)
			assert.Equal(t, tc.pools, poolNames(res.Pools), tc.reason)
			assert.Equal(t, contract(), res.Cluster, "the contract is the same whatever the values")
		})
	}
}

func TestPlanForwardsOnlyTheAllowlist(t *testing.T) {
	values := mustDecode(t, withEtcd+`
nodeGroups:
  md0:
    minReplicas: 1
    maxReplicas: 3
    instanceType: u1.xlarge
    diskSize: 50Gi
    storageClass: ""
    roles: [ingress-nginx, worker]
    resources: {cpu: 4, memory: 8Gi, gpu: 1}
    gpus: [{name: nvidia.com/AD102GL_L40S, count: 2}]
    kubelet:
      systemReservedMemory: 1Gi
      kubeReservedMemory: 512Mi
      systemReservedCpu: 500m
      kubeReservedCpu: 250m
      evictionHardMemory: 100Mi
      evictionSoftMemory: 5%
      maxPods: 250
    osImage: {builtin: {schematicID: evil, version: v0.0.1}}
    talos: {imageFactoryURL: https://evil.example}
`)
	res, err := Plan(values)
	require.NoError(t, err)
	require.Len(t, res.Pools, 1)

	pool := res.Pools[0]
	assert.Equal(t, "md0", pool.Name)
	assert.Equal(t, "kubernetes-nodes-computeplane-cluster-md0", pool.ReleaseName)
	got, err := pool.jsonValues()
	require.NoError(t, err)
	assert.JSONEq(t, `{
		"cluster": "computeplane-cluster",
		"minReplicas": 1,
		"maxReplicas": 3,
		"instanceType": "u1.xlarge",
		"diskSize": "50Gi",
		"roles": ["ingress-nginx", "worker"],
		"resources": {"cpu": 4, "memory": "8Gi"},
		"gpus": [{"name": "nvidia.com/AD102GL_L40S"}],
		"kubelet": {
			"systemReservedMemory": "1Gi",
			"kubeReservedMemory": "512Mi",
			"systemReservedCpu": "500m",
			"kubeReservedCpu": "250m",
			"evictionHardMemory": "100Mi",
			"evictionSoftMemory": "5%"
		}
	}`, got, "the allowlisted fields as the tenant wrote them; an empty storageClass is not set, so the pool chart's default applies")
	assert.Equal(t, []string{
		"DroppedField nodeGroups.md0.gpus[0].count",
		"DroppedField nodeGroups.md0.kubelet.maxPods",
		"DroppedField nodeGroups.md0.osImage",
		"DroppedField nodeGroups.md0.resources.gpu",
		"DroppedField nodeGroups.md0.talos",
	}, warningsOf(res.Warnings))
}

func TestPlanDefaultPool(t *testing.T) {
	res, err := Plan(mustDecode(t, withEtcd))
	require.NoError(t, err)
	require.Len(t, res.Pools, 1)
	got, err := res.Pools[0].jsonValues()
	require.NoError(t, err)
	assert.JSONEq(t, `{"cluster":"computeplane-cluster","minReplicas":0,"roles":["ingress-nginx"]}`, got,
		"md0 sets minReplicas and roles and leaves the rest, maxReplicas 10 among it, to the pool chart")
	assert.Equal(t, "kubernetes-nodes-computeplane-cluster-md0", res.Pools[0].ReleaseName)
}

func TestPlanReleaseNameBoundary(t *testing.T) {
	fits := strings.Repeat("a", maxPoolNameLength)
	res, err := Plan(map[string]any{
		"_namespace": map[string]any{"etcd": "tenant-root"},
		"nodeGroups": map[string]any{fits: map[string]any{"roles": []any{ingressRole}}},
	})
	require.NoError(t, err, "a 15-character key fits")
	require.Len(t, res.Pools, 1)
	assert.Len(t, res.Pools[0].ReleaseName, 53, "exactly Helm's limit")
	assert.Len(t, releasePrefix, 38)

	tooLong := fits + "a"
	_, err = Plan(map[string]any{
		"_namespace": map[string]any{"etcd": "tenant-root"},
		"nodeGroups": map[string]any{tooLong: map[string]any{"roles": []any{ingressRole}}},
	})
	assert.Equal(t, []string{"PoolNameTooLong nodeGroups." + tooLong}, refusalsOf(err))
	assert.Len(t, releaseName(tooLong), 54)
}

// TestPlanGoNumbers covers values a Go caller builds (int, int64) and values
// decoded without UseNumber (float64), beside DecodeValues' json.Number.
func TestPlanGoNumbers(t *testing.T) {
	cases := map[string]struct {
		reason   string
		group    map[string]any
		refusals []string
	}{
		"Int": {
			reason: "Go ints are counts and quantities.",
			group:  map[string]any{"roles": []any{ingressRole}, "maxReplicas": 3, "resources": map[string]any{"cpu": int64(2), "memory": "2Gi"}},
		},
		"Float": {
			reason: "encoding/json decodes 3 as float64 3, a whole number.",
			group:  map[string]any{"roles": []any{ingressRole}, "maxReplicas": float64(3), "diskSize": float64(21474836480)},
		},
		"Uint": {
			reason: "Unsigned counts.",
			group:  map[string]any{"roles": []any{ingressRole}, "minReplicas": uint8(1)},
		},
		"FloatZeroMaxReplicas": {
			reason:   "float64 0 on the only ingress group.",
			group:    map[string]any{"roles": []any{ingressRole}, "maxReplicas": float64(0)},
			refusals: []string{"MissingIngressPool nodeGroups"},
		},
		"FloatFraction": {
			reason:   "2.5 replicas is no count.",
			group:    map[string]any{"roles": []any{ingressRole}, "maxReplicas": 2.5},
			refusals: []string{"InvalidValue nodeGroups.md0.maxReplicas"},
		},
		"NotANumber": {
			reason:   "NaN is no quantity a chart value can hold.",
			group:    map[string]any{"roles": []any{ingressRole}, "kubelet": map[string]any{"kubeReservedCpu": math.NaN()}},
			refusals: []string{"InvalidValue nodeGroups.md0.kubelet.kubeReservedCpu"},
		},
		"TypedMap": {
			reason: "A map of another Go type is read as the map Helm holds (TestPlanGoValues compares the plans).",
			group:  map[string]any{"roles": []any{ingressRole}, "resources": map[string]string{"cpu": "1", "memory": "1Gi"}},
		},
		"TypedMapOfNoValue": {
			reason:   "Neighbour: a Go map still holds a value of the right type, or is refused.",
			group:    map[string]any{"roles": []any{ingressRole}, "resources": map[string][]string{"cpu": {"1"}, "memory": {"1Gi"}}},
			refusals: []string{"InvalidValue nodeGroups.md0.resources.cpu", "InvalidValue nodeGroups.md0.resources.memory"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res, err := Plan(map[string]any{
				"_namespace": map[string]any{"etcd": "tenant-root"},
				"nodeGroups": map[string]any{"md0": tc.group},
			})
			assert.Equal(t, tc.refusals, refusalsOf(err), tc.reason)
			if err == nil {
				_, jerr := res.Pools[0].jsonValues()
				assert.NoError(t, jerr, "forwarded values are JSON")
			}
		})
	}
}

// jsonValues is the pool's values as the release receives them.
func (p Pool) jsonValues() (string, error) {
	b, err := json.Marshal(p.Values)
	return string(b), err
}

// TestPlanConcurrent plans one set of values from many goroutines: under
// -race it shows Plan shares nothing mutable, and every answer is the same.
func TestPlanConcurrent(t *testing.T) {
	values := mustDecode(t, withEtcd+"nodeGroups:\n  md0: {roles: [ingress-nginx], osImage: {}, resources: {cpu: 1, memory: 1Gi}}\n  Bad: {}\n")
	want, _ := json.Marshal(must(Plan(values)))
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			got, _ := json.Marshal(must(Plan(values)))
			assert.Equal(t, string(want), string(got))
		})
	}
	wg.Wait()
}

func must(res Result, _ error) Result { return res }
