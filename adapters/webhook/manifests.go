package webhook

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/kinds"
	"github.com/cozystack/kubernetes-worker-image/plan"
)

// The deployment's defaults.
const (
	DefaultNamespace = "cozy-worker-image"
	DefaultName      = "worker-image-webhook"
	// DefaultImage is the image of the worker-image command; this
	// repository builds no image, so an operator names the one they built
	// (ManifestOptions.Image, worker-image webhook manifests --image).
	DefaultImage = "ghcr.io/cozystack/kubernetes-worker-image:latest"
	// DefaultPoolResource is the resource cozystack-api serves
	// KubernetesNodes as: the ApplicationDefinition's plural.
	DefaultPoolResource   = "kubernetesnodeses"
	DefaultPort           = 9443
	DefaultTimeoutSeconds = 5
	// DisableLabel opts a namespace out of the webhook: label the
	// namespace with it set to "disabled". It is the way around the
	// webhook when it is down and failurePolicy is Fail, and an
	// administrator's act: a namespace's labels are not its tenant's to
	// set. A KubernetesNodes or a HelmRelease carrying it is validated as
	// any other: no object opts itself out.
	DisableLabel = "kubernetes-worker-image.cozystack.io/admission"

	certDir     = "/tmp/k8s-webhook-server/serving-certs"
	metricsPort = 8080
	healthPort  = 8081
)

// ManifestOptions say how to deploy the webhook; every zero field takes
// its default.
type ManifestOptions struct {
	Namespace string
	Name      string
	Image     string
	Replicas  int32
	// FailurePolicy is what the API server does when it cannot reach the
	// webhook. Fail (the default) keeps the door shut: no pool and no
	// catalog release is created or changed until the webhook answers,
	// since a pool admitted unchecked is refused only when its chart
	// renders, after kubectl said "created". Ignore keeps the door open:
	// while the webhook is down, pools and the catalog are admitted as
	// they were before it existed. Only the pool and catalog releases are
	// matched (matchConditions), so other HelmReleases never wait on it.
	FailurePolicy admissionregistrationv1.FailurePolicyType
	// TimeoutSeconds is how long the API server waits for an answer (the
	// reads are bounded below it by Options.ReadTimeout).
	TimeoutSeconds int32
	// CABundle is the CA of the serving certificate, for operators who
	// make the Secret <name>-tls themselves; without it cert-manager
	// (which Cozystack runs) issues the certificate from a self-signed
	// Issuer and injects its CA.
	CABundle []byte
	// PoolResource is the resource KubernetesNodes are served as.
	PoolResource string
	Port         int32
	// Options are the webhook's: where the catalog release is and how the
	// charts are recognised (Options.Catalog has no manifest: serve a
	// fixed catalog with the command's --catalog).
	Options Options
	// ReadBack deploys the webhook without a catalog release: it reads the
	// catalog back from the goldens in cozy-public. Otherwise a zero
	// Options.CatalogRelease is DefaultCatalogRelease().
	ReadBack bool
}

func (o ManifestOptions) withDefaults() ManifestOptions {
	def := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	def(&o.Namespace, DefaultNamespace)
	def(&o.Name, DefaultName)
	def(&o.Image, DefaultImage)
	def(&o.PoolResource, DefaultPoolResource)
	if o.Replicas == 0 {
		o.Replicas = 2
	}
	if o.FailurePolicy == "" {
		o.FailurePolicy = admissionregistrationv1.Fail
	}
	if o.TimeoutSeconds == 0 {
		o.TimeoutSeconds = DefaultTimeoutSeconds
	}
	if o.Port == 0 {
		o.Port = DefaultPort
	}
	if o.Options.CatalogRelease.Name == "" && !o.ReadBack {
		o.Options.CatalogRelease = DefaultCatalogRelease()
	}
	if o.ReadBack {
		o.Options.CatalogRelease.Name = ""
	}
	o.Options = o.Options.withDefaults()
	return o
}

// Manifests are the objects that deploy the webhook, in the order to apply
// them: its namespace, service account and least-privilege RBAC (get, list
// and watch on exactly the kinds an admission reads, and on the
// catalog release by name), the serving certificate (cert-manager) unless
// a CABundle is given, the Service, the Deployment and its
// PodDisruptionBudget, and the ValidatingWebhookConfiguration.
func Manifests(o ManifestOptions) []client.Object {
	o = o.withDefaults()
	labels := map[string]string{"app.kubernetes.io/name": o.Name, "app.kubernetes.io/part-of": "kubernetes-worker-image"}
	meta := func(name, namespace string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: labels}
	}
	typed := func(apiVersion, kind string) metav1.TypeMeta {
		return metav1.TypeMeta{APIVersion: apiVersion, Kind: kind}
	}
	account := rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: o.Name, Namespace: o.Namespace}

	objs := []client.Object{
		&corev1.Namespace{TypeMeta: typed("v1", "Namespace"), ObjectMeta: meta(o.Namespace, "")},
		&corev1.ServiceAccount{TypeMeta: typed("v1", "ServiceAccount"), ObjectMeta: meta(o.Name, o.Namespace)},
		&rbacv1.ClusterRole{TypeMeta: typed("rbac.authorization.k8s.io/v1", "ClusterRole"), ObjectMeta: meta(o.Name, ""), Rules: stateRules()},
		&rbacv1.ClusterRoleBinding{
			TypeMeta: typed("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"), ObjectMeta: meta(o.Name, ""),
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: o.Name},
			Subjects: []rbacv1.Subject{account},
		},
	}
	if key := o.Options.CatalogRelease; key.Name != "" {
		objs = append(objs,
			&rbacv1.Role{
				TypeMeta: typed("rbac.authorization.k8s.io/v1", "Role"), ObjectMeta: meta(o.Name, key.Namespace),
				Rules: []rbacv1.PolicyRule{releaseRule(key.Name)},
			},
			&rbacv1.RoleBinding{
				TypeMeta: typed("rbac.authorization.k8s.io/v1", "RoleBinding"), ObjectMeta: meta(o.Name, key.Namespace),
				RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: o.Name},
				Subjects: []rbacv1.Subject{account},
			})
	}
	// The image catalog's release, read by name when a VMDisk is judged.
	objs = append(objs,
		&rbacv1.Role{
			TypeMeta: typed("rbac.authorization.k8s.io/v1", "Role"), ObjectMeta: meta(o.Name+"-images", imagesRelease.Namespace),
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{helmReleaseGVK.Group}, Resources: []string{"helmreleases"},
				ResourceNames: []string{imagesRelease.Name}, Verbs: []string{"get"}}},
		},
		&rbacv1.RoleBinding{
			TypeMeta: typed("rbac.authorization.k8s.io/v1", "RoleBinding"), ObjectMeta: meta(o.Name+"-images", imagesRelease.Namespace),
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: o.Name + "-images"},
			Subjects: []rbacv1.Subject{account},
		})
	secret := o.Name + "-tls"
	if len(o.CABundle) == 0 {
		objs = append(objs, certManager(o, labels, secret)...)
	}
	objs = append(objs,
		&corev1.Service{
			TypeMeta: typed("v1", "Service"), ObjectMeta: meta(o.Name, o.Namespace),
			Spec: corev1.ServiceSpec{
				Selector: labels,
				Ports: []corev1.ServicePort{
					{Name: "webhook", Port: 443, TargetPort: intstr.FromString("webhook")},
					{Name: "metrics", Port: metricsPort, TargetPort: intstr.FromString("metrics")},
				},
			},
		},
		deployment(o, labels, secret),
		&policyv1.PodDisruptionBudget{
			TypeMeta: typed("policy/v1", "PodDisruptionBudget"), ObjectMeta: meta(o.Name, o.Namespace),
			Spec: policyv1.PodDisruptionBudgetSpec{
				MinAvailable: ptr.To(intstr.FromInt32(1)),
				Selector:     &metav1.LabelSelector{MatchLabels: labels},
			},
		},
		configuration(o, labels))
	return objs
}

// stateRules grant get, list and watch on every kind an admission reads,
// cluster-wide: a pool's disks are in its own namespace, any namespace.
func stateRules() []rbacv1.PolicyRule {
	byGroup := map[string][]string{}
	for _, k := range kinds.AdmissionReads().Each() {
		i := kinds.Of(k)
		byGroup[i.GVK.Group] = append(byGroup[i.GVK.Group], i.Resource)
	}
	groups := make([]string, 0, len(byGroup))
	for g := range byGroup {
		groups = append(groups, g)
	}
	slices.Sort(groups)
	rules := make([]rbacv1.PolicyRule, 0, len(groups))
	for _, g := range groups {
		resources := byGroup[g]
		slices.Sort(resources)
		rules = append(rules, rbacv1.PolicyRule{APIGroups: []string{g}, Resources: resources, Verbs: []string{"get", "list", "watch"}})
	}
	return rules
}

// releaseRule grants get, list and watch on the catalog release alone: the
// cache lists and watches it by its name (CacheOptions), which RBAC
// authorizes by resourceNames.
func releaseRule(name string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{
		APIGroups: []string{helmReleaseGVK.Group}, Resources: []string{"helmreleases"},
		ResourceNames: []string{name}, Verbs: []string{"get", "list", "watch"},
	}
}

func certManager(o ManifestOptions, labels map[string]string, secret string) []client.Object {
	issuer := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cert-manager.io/v1", "kind": "Issuer",
		"metadata": map[string]any{"name": o.Name, "namespace": o.Namespace, "labels": anyMap(labels)},
		"spec":     map[string]any{"selfSigned": map[string]any{}},
	}}
	cert := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cert-manager.io/v1", "kind": "Certificate",
		"metadata": map[string]any{"name": o.Name, "namespace": o.Namespace, "labels": anyMap(labels)},
		"spec": map[string]any{
			"secretName": secret,
			"dnsNames":   []any{o.Name + "." + o.Namespace + ".svc", o.Name + "." + o.Namespace + ".svc.cluster.local"},
			"issuerRef":  map[string]any{"kind": "Issuer", "name": o.Name},
		},
	}}
	return []client.Object{issuer, cert}
}

func anyMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func deployment(o ManifestOptions, labels map[string]string, secret string) *appsv1.Deployment {
	release := ""
	if key := o.Options.CatalogRelease; key.Name != "" {
		release = key.String()
	}
	probe := func(path string) *corev1.Probe {
		return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromString("health")}}, PeriodSeconds: 10}
	}
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: o.Name, Namespace: o.Namespace, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(o.Replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					ServiceAccountName: o.Name,
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot:   ptr.To(true),
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					},
					Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
						PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
							Weight: 100,
							PodAffinityTerm: corev1.PodAffinityTerm{
								LabelSelector: &metav1.LabelSelector{MatchLabels: labels},
								TopologyKey:   corev1.LabelHostname,
							},
						}},
					}},
					Containers: []corev1.Container{{
						Name:  "webhook",
						Image: o.Image,
						Args: []string{
							"webhook",
							"--cert-dir=" + certDir,
							fmt.Sprintf("--port=%d", o.Port),
							"--catalog-release=" + release,
							fmt.Sprintf("--metrics-bind-address=:%d", metricsPort),
							fmt.Sprintf("--health-probe-bind-address=:%d", healthPort),
						},
						Ports: []corev1.ContainerPort{
							{Name: "webhook", ContainerPort: o.Port},
							{Name: "metrics", ContainerPort: metricsPort},
							{Name: "health", ContainerPort: healthPort},
						},
						ReadinessProbe: probe("/readyz"),
						LivenessProbe:  probe("/healthz"),
						Resources: corev1.ResourceRequirements{
							Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("50m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
							Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("512Mi")},
						},
						SecurityContext: &corev1.SecurityContext{
							AllowPrivilegeEscalation: ptr.To(false),
							ReadOnlyRootFilesystem:   ptr.To(true),
							Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
						},
						VolumeMounts: []corev1.VolumeMount{{Name: "certs", MountPath: certDir, ReadOnly: true}},
					}},
					Volumes: []corev1.Volume{{
						Name:         "certs",
						VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: secret}},
					}},
				},
			},
		},
	}
}

// configuration is the ValidatingWebhookConfiguration: one webhook for
// KubernetesNodes, one for the pools' HelmReleases and one for the
// catalog's. The HelmRelease webhooks are matched by matchConditions that
// recognise the charts as Validator does, so no other HelmRelease is ever
// sent to the webhook, nor waits on it when it is down.
func configuration(o ManifestOptions, labels map[string]string) *admissionregistrationv1.ValidatingWebhookConfiguration {
	none := admissionregistrationv1.SideEffectClassNone
	optOut := metav1.LabelSelectorRequirement{Key: DisableLabel, Operator: metav1.LabelSelectorOpNotIn, Values: []string{"disabled"}}
	tenants := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpNotIn, Values: []string{"kube-system", "kube-public", "kube-node-lease", o.Namespace}},
		optOut,
	}}
	rule := func(group, version, resource string) []admissionregistrationv1.RuleWithOperations {
		return []admissionregistrationv1.RuleWithOperations{{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
			Rule: admissionregistrationv1.Rule{
				APIGroups: []string{group}, APIVersions: []string{version}, Resources: []string{resource},
				Scope: ptr.To(admissionregistrationv1.NamespacedScope),
			},
		}}
	}
	hook := func(name, path string) admissionregistrationv1.ValidatingWebhook {
		return admissionregistrationv1.ValidatingWebhook{
			Name: name,
			ClientConfig: admissionregistrationv1.WebhookClientConfig{
				Service:  &admissionregistrationv1.ServiceReference{Namespace: o.Namespace, Name: o.Name, Path: ptr.To(path), Port: ptr.To(int32(443))},
				CABundle: o.CABundle,
			},
			FailurePolicy:           ptr.To(o.FailurePolicy),
			MatchPolicy:             ptr.To(admissionregistrationv1.Equivalent),
			SideEffects:             &none,
			TimeoutSeconds:          ptr.To(o.TimeoutSeconds),
			AdmissionReviewVersions: []string{"v1"},
			NamespaceSelector:       tenants,
		}
	}

	pools := hook("kubernetesnodes.worker-image.cozystack.io", PoolsPath)
	pools.Rules = rule(poolGVK.Group, poolGVK.Version, o.PoolResource)

	poolReleases := hook("pools.helmreleases.worker-image.cozystack.io", ReleasesPath)
	poolReleases.Rules = rule(helmReleaseGVK.Group, helmReleaseGVK.Version, "helmreleases")
	poolReleases.MatchConditions = []admissionregistrationv1.MatchCondition{{
		Name:       "kubernetes-nodes-release",
		Expression: anyOf(append(chartConditions(o.Options.PoolChart), labelConditions()...)...),
	}}

	catalogReleases := hook("catalog.helmreleases.worker-image.cozystack.io", ReleasesPath)
	catalogReleases.Rules = rule(helmReleaseGVK.Group, helmReleaseGVK.Version, "helmreleases")
	conditions := chartConditions(o.Options.CatalogChart)
	if key := o.Options.CatalogRelease; key.Name != "" {
		conditions = append(conditions, fmt.Sprintf("request.namespace == %q && request.name == %q", key.Namespace, key.Name))
		catalogReleases.NamespaceSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpIn, Values: []string{key.Namespace}},
			optOut,
		}}
	}
	catalogReleases.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "kubernetes-worker-image-release", Expression: anyOf(conditions...)}}

	vmDisks := hook("vmdisks.worker-image.cozystack.io", VMDisksPath)
	vmDisks.Rules = rule(vmDiskGK.Group, "v1alpha1", "vmdisks")

	vmDiskReleases := hook("vmdisks.helmreleases.worker-image.cozystack.io", ReleasesPath)
	vmDiskReleases.Rules = rule(helmReleaseGVK.Group, helmReleaseGVK.Version, "helmreleases")
	vmDiskReleases.MatchConditions = []admissionregistrationv1.MatchCondition{{
		Name: "vm-disk-release",
		Expression: fmt.Sprintf("object.metadata.name.startsWith(%q) && has(object.metadata.labels) && %[2]q in object.metadata.labels && object.metadata.labels[%[2]q] == %[3]q && "+
			"%[4]q in object.metadata.labels && object.metadata.labels[%[4]q] == %[5]q",
			vmDiskReleasePrefix, applicationKindLabel, vmDiskGK.Kind, applicationGroupLabel, vmDiskGK.Group),
	}}

	cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration"},
		ObjectMeta: metav1.ObjectMeta{Name: o.Name, Labels: labels},
		Webhooks:   []admissionregistrationv1.ValidatingWebhook{pools, poolReleases, catalogReleases, vmDisks, vmDiskReleases},
	}
	if len(o.CABundle) == 0 {
		cfg.Annotations = map[string]string{"cert-manager.io/inject-ca-from": o.Namespace + "/" + o.Name}
	}
	return cfg
}

// chartConditions are CEL conditions that hold for a HelmRelease of chart
// c, as Chart.matches decides.
func chartConditions(c Chart) []string {
	var out []string
	if c.Ref.Name != "" {
		out = append(out, fmt.Sprintf("has(object.spec.chartRef) && object.spec.chartRef.kind == %q && object.spec.chartRef.name == %q && "+
			"(has(object.spec.chartRef.namespace) && object.spec.chartRef.namespace != '' ? object.spec.chartRef.namespace : object.metadata.namespace) == %q",
			c.Ref.Kind, c.Ref.Name, c.Ref.Namespace))
	}
	if c.Name != "" {
		out = append(out, fmt.Sprintf("has(object.spec.chart) && has(object.spec.chart.spec) && has(object.spec.chart.spec.chart) && object.spec.chart.spec.chart == %q", c.Name))
	}
	return out
}

// labelConditions hold for a HelmRelease cozystack-api made for a
// KubernetesNodes.
func labelConditions() []string {
	return []string{fmt.Sprintf("has(object.metadata.labels) && %[1]q in object.metadata.labels && object.metadata.labels[%[1]q] == %[2]q && "+
		"%[3]q in object.metadata.labels && object.metadata.labels[%[3]q] == %[4]q",
		applicationKindLabel, plan.PoolKind, applicationGroupLabel, poolGVK.Group)}
}

func anyOf(conditions ...string) string {
	if len(conditions) == 0 {
		return "false"
	}
	return "(" + strings.Join(conditions, ") || (") + ")"
}

// ManifestsYAML writes Manifests as YAML documents an operator applies,
// after a comment that says what the webhook refuses and what its
// failurePolicy means.
func ManifestsYAML(o ManifestOptions) ([]byte, error) {
	o = o.withDefaults()
	var b bytes.Buffer
	fmt.Fprintf(&b, header, o.FailurePolicy, policyMeaning[o.FailurePolicy], DisableLabel)
	for _, obj := range Manifests(o) {
		var m map[string]any
		if u, ok := obj.(*unstructured.Unstructured); ok {
			m = u.Object
		} else {
			var err error
			if m, err = runtime.DefaultUnstructuredConverter.ToUnstructured(obj); err != nil {
				return nil, err
			}
			tidy(m)
		}
		text, err := yaml.Marshal(m)
		if err != nil {
			return nil, err
		}
		b.WriteString("---\n")
		b.Write(text)
	}
	return b.Bytes(), nil
}

const header = `# The worker-image admission webhook: it plans each KubernetesNodes pool and
# each kubernetes-nodes HelmRelease against the cluster, and renders each
# kubernetes-worker-image (catalog) HelmRelease, and denies what the planner
# refuses, with the refusals' fields; warnings come back as kubectl warnings.
#
# KubernetesNodes are served by cozystack-api, an aggregated API server: it runs
# this configuration's webhooks itself (k8s.io/apiserver's admission chain, with
# the webhook plugins), so its service account must read
# validatingwebhookconfigurations, as Cozystack's own RBAC grants.
#
# failurePolicy: %s.
# %s
# Label a namespace or an object %s=disabled
# to take it out of the webhook.
`

var policyMeaning = map[admissionregistrationv1.FailurePolicyType]string{
	admissionregistrationv1.Fail: "While the webhook is down, no pool and no catalog release can be\n" +
		"# created or changed (other HelmReleases are not matched and never wait on\n" +
		"# it). Fail keeps every pool checked; Ignore would let pools through\n" +
		"# unchecked, to be refused only when the chart renders.",
	admissionregistrationv1.Ignore: "While the webhook is down, pools and the catalog are admitted\n" +
		"# unchecked, as before it existed, and a refusal shows only when the chart\n" +
		"# renders. Fail would keep them out until the webhook answers.",
}

// tidy drops what a typed object writes but a manifest need not say: its
// status, and the empty maps and nulls of fields left unset.
func tidy(m map[string]any) {
	delete(m, "status")
	prune(m)
}

func prune(m map[string]any) {
	for k, v := range m {
		switch v := v.(type) {
		case nil:
			delete(m, k)
		case map[string]any:
			prune(v)
			if len(v) == 0 {
				delete(m, k)
			}
		case []any:
			for _, item := range v {
				if im, ok := item.(map[string]any); ok {
					prune(im)
				}
			}
		}
	}
}
