package naming

// Annotations and the label the goldens and the worker disks carry. These are
// the values the Helm implementation writes, so disks it made are recognised.
const (
	// GoldenAnnotation on a worker disk names the golden it was cloned from.
	GoldenAnnotation = "kubernetes-worker-image.cozystack.io/golden"
	// PoolAnnotation on a worker disk names its pool's CAPI name
	// (PoolCAPIName).
	PoolAnnotation = "kubernetes-worker-image.cozystack.io/pool"
	// SchematicIDAnnotation and VersionAnnotation on a golden name its flavor.
	SchematicIDAnnotation = "kubernetes-worker-image.cozystack.io/schematic-id"
	VersionAnnotation     = "kubernetes-worker-image.cozystack.io/talos-version"
	// ManagedByLabel with value ManagedBy marks a golden.
	ManagedByLabel = "app.kubernetes.io/managed-by"
	ManagedBy      = "cozystack"
	// UsePopulatorAnnotation is CDI's switch between populators and the
	// legacy import path.
	UsePopulatorAnnotation = "cdi.kubevirt.io/storage.usePopulator"
	// BindImmediateAnnotation asks CDI to bind a golden without a consumer.
	BindImmediateAnnotation = "cdi.kubevirt.io/storage.bind.immediate.requested"
	// ResourcePolicyAnnotation with "keep" stops Helm deleting a dropped golden.
	ResourcePolicyAnnotation = "helm.sh/resource-policy"
	// ImportEndpointAnnotation on a PVC records the URL CDI imported from.
	ImportEndpointAnnotation = "cdi.kubevirt.io/storage.import.endpoint"
	// DeploymentNameLabel is Cluster API's label of a MachineDeployment's
	// machines. The kubernetes-nodes chart sets it, on the instance
	// template of a pool's KubevirtMachineTemplate, to the pool's CAPI name
	// (PoolCAPIName): kubernetes-<cluster>-<pool>
	// (packages/apps/kubernetes-nodes/templates/nodegroup.yaml).
	DeploymentNameLabel = "cluster.x-k8s.io/deployment-name"
)

// PoolCAPIName is the CAPI name of a pool: a KubernetesNodes "demo-md0" is
// "kubernetes-demo-md0".
func PoolCAPIName(kubernetesNodesName string) string { return "kubernetes-" + kubernetesNodesName }
