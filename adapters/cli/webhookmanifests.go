package cli

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/adapters/chart"
	"github.com/cozystack/kubernetes-worker-image/adapters/webhook"
	"github.com/cozystack/kubernetes-worker-image/internal/chartrender"
)

// manifestsNamespace is the namespace `webhook manifests` deploys to
// unless --namespace names another.
const manifestsNamespace = "cozy-worker-image"

// chartValues are the chart's values.yaml, which the manifests' flags
// default to. The chart is embedded, so they always read; were they not,
// the flags would default to zero and the render say why.
var chartValues = sync.OnceValue(func() map[string]any {
	v, err := chartrender.Values(chart.Files())
	if err != nil {
		return map[string]any{}
	}
	return v
})

// chartValue is the chart's default at path, as a string.
func chartValue(path ...string) string {
	v, ok, _ := unstructured.NestedFieldNoCopy(chartValues(), path...)
	if !ok {
		return ""
	}
	return fmt.Sprint(v)
}

// chartInt is the chart's default at path, as a number.
func chartInt(path ...string) int {
	v, _, _ := unstructured.NestedFieldNoCopy(chartValues(), path...)
	f, _ := v.(float64)
	return int(f)
}

// webhookManifests renders the chart's webhook, its controller and
// monitoring left out, for the --values files and the flags, as YAML to
// kubectl apply: the namespace first, which Helm leaves to
// --create-namespace.
func (a *app) webhookManifests(o *options, w *webhookOptions) error {
	if o.catalog != "" || o.kubeconfig != "" || o.context != "" || w.certDir != "" {
		return badUsage("manifests takes no --catalog, --kubeconfig, --context or --cert-dir: they are the server's")
	}
	set, policy, err := a.manifestValues(o, w)
	if err != nil {
		return err
	}
	objs, err := chartrender.Render(chart.Files(), chartrender.Release{Name: "worker-image", Namespace: o.namespace, Service: "worker-image"}, set)
	var required *chartrender.RequiredError
	if errors.As(err, &required) {
		return unusable("the chart needs a value: %s (give it in a --values file)", required.Message)
	}
	if err != nil && len(w.values) > 0 {
		// The flags alone always render: a value of a file made it fail.
		return unusable("the chart cannot render with these values (%v): fix the --values files", err)
	}
	if err != nil {
		return failed("render the chart: %v", err)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, manifestsHeader, policy, policyMeaning[policy], webhook.DisableLabel)
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace"}}
	ns.SetName(o.namespace)
	for _, obj := range objs {
		if obj.GetKind() == "ServiceAccount" {
			ns.SetLabels(obj.GetLabels()) // the webhook's, as on every object of it
		}
	}
	for _, obj := range append([]*unstructured.Unstructured{ns}, objs...) {
		text, err := yaml.Marshal(obj.Object)
		if err != nil {
			return failed("write the manifests: %v", err)
		}
		b.WriteString("---\n")
		b.Write(text)
	}
	_, err = a.stdout.Write(b.Bytes())
	return err
}

// manifestFlags are the flags that set chart values, in the order they
// are applied.
var manifestFlags = []string{"image", "catalog-release", "replicas", "failure-policy", "timeout", "pool-resource", "port"}

// chartValues are the chart's values each flag sets (by the flag's name):
// the webhook alone, in namespace. Each flag is checked first, since the
// chart writes it into YAML and CEL as it is.
func (w *webhookOptions) chartValues(namespace string) (map[string]map[string]any, error) {
	if errs := validation.IsDNS1123Label(namespace); len(errs) > 0 {
		return nil, badUsage("--namespace %q is not a namespace name: %s", namespace, strings.Join(errs, "; "))
	}
	if _, ok := policyMeaning[w.failurePolicy]; !ok {
		return nil, badUsage("--failure-policy %q is neither Fail nor Ignore", w.failurePolicy)
	}
	if w.timeout < 1 || w.timeout > 30 {
		return nil, badUsage("--timeout %d is not between 1 and 30 seconds, which the API server allows", w.timeout)
	}
	if w.replicas < 1 {
		return nil, badUsage("--replicas %d: at least one replica must serve", w.replicas)
	}
	if w.port < 1 || w.port > 65535 {
		return nil, badUsage("--port %d is not a port", w.port)
	}
	if errs := validation.IsDNS1123Label(w.poolResource); len(errs) > 0 {
		return nil, badUsage("--pool-resource %q is not a resource name (the plural the API serves, such as kubernetesnodeses): %s", w.poolResource, strings.Join(errs, "; "))
	}
	repository, tag, ok := imageParts(w.image)
	if !ok {
		return nil, badUsage("--image %q is not an image reference: give [REGISTRY/]PATH[:TAG][@DIGEST], such as ghcr.io/cozystack/kubernetes-worker-image:v1", w.image)
	}
	key, err := w.catalogRelease()
	if err != nil {
		return nil, err
	}
	if key.Name != "" {
		if errs := append(validation.IsDNS1123Label(key.Namespace), validation.IsDNS1123Subdomain(key.Name)...); len(errs) > 0 {
			return nil, badUsage("--catalog-release %q is not a HelmRelease's NAMESPACE/NAME: %s", w.release, strings.Join(errs, "; "))
		}
	}
	hook := func(k string, v any) map[string]any { return map[string]any{"webhook": map[string]any{k: v}} }
	return map[string]map[string]any{
		"image":           {"image": map[string]any{"repository": repository, "tag": tag}},
		"catalog-release": {"catalogRelease": map[string]any{"namespace": key.Namespace, "name": key.Name}},
		"replicas":        hook("replicas", w.replicas),
		"failure-policy":  hook("failurePolicy", w.failurePolicy),
		"timeout":         hook("timeoutSeconds", w.timeout),
		"pool-resource":   hook("poolResource", w.poolResource),
		"port":            hook("port", w.port),
	}, nil
}

// imageRef is an image reference as the distribution registry's grammar
// has it: [domain[:port]/]path[:tag][@algorithm:hex].
var imageRef = regexp.MustCompile(`^` +
	`(?:(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*(?::[0-9]+)?/)?` +
	`[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*` +
	`(?::[\w][\w.-]{0,127})?` +
	`(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?$`)

// imageParts splits an image reference into the chart's image.repository
// and image.tag, which it writes back as repository:tag: the tag is what
// follows the last colon after the last slash, so a digest's hex is the
// "tag" of the rest. An image without a tag or digest is :latest, as the
// kubelet pulls it. For example, "registry:5000/wi:v1" is "registry:5000/wi"
// and "v1"; "wi@sha256:ab…" is "wi@sha256" and "ab…".
func imageParts(image string) (repository, tag string, ok bool) {
	if len(image) > 512 || !imageRef.MatchString(image) {
		return "", "", false
	}
	slash := strings.LastIndex(image, "/")
	colon := strings.LastIndex(image, ":")
	if colon <= slash {
		return image, "latest", true
	}
	return image[:colon], image[colon+1:], true
}

const manifestsHeader = `# The worker-image admission webhook, rendered from the worker-image Helm
# chart (its webhook alone: helm install of the chart adds the controller and
# its monitoring). It plans each KubernetesNodes pool and each kubernetes-nodes
# HelmRelease against the cluster, renders each kubernetes-worker-image
# (catalog) HelmRelease and each VMDisk, and denies what the planner refuses,
# with the refusals' fields; warnings come back as kubectl warnings.
#
# KubernetesNodes are served by cozystack-api, an aggregated API server: it runs
# this configuration's webhooks itself (k8s.io/apiserver's admission chain, with
# the webhook plugins), so its service account must read
# validatingwebhookconfigurations, as Cozystack's own RBAC grants.
#
# failurePolicy: %s.
# %s
# Label a namespace %s=disabled
# to take it out of the webhook.
`

var policyMeaning = map[string]string{
	"Fail": "While the webhook is down, no pool and no catalog release can be\n" +
		"# created or changed (other HelmReleases are not matched and never wait on\n" +
		"# it). Fail keeps every pool checked; Ignore would let pools through\n" +
		"# unchecked, to be refused only when the chart renders.",
	"Ignore": "While the webhook is down, pools and the catalog are admitted\n" +
		"# unchecked, as before it existed, and a refusal shows only when the chart\n" +
		"# renders. Fail would keep them out until the webhook answers.",
}
