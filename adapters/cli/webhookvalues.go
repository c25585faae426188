package cli

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/cozystack/kubernetes-worker-image/internal/chartvalues"
)

// valuesFile is one --values file, read.
type valuesFile struct {
	name   string
	values map[string]any
}

// manifestValues are the values the chart renders with, as Helm merges
// them: the --values files in order, each over the ones before (maps key
// by key, anything else replaces, a null drops the chart's default), and
// the flags given on the command line over every file; a flag left to its
// default sets nothing. The controller and the monitoring stay out
// whatever a file says: this is the webhook alone. policy is the
// failurePolicy the webhook gets.
func (a *app) manifestValues(o *options, w *webhookOptions) (set map[string]any, policy string, err error) {
	flags, err := w.chartValues(o.namespace)
	if err != nil {
		return nil, "", err
	}
	var files []valuesFile
	set = map[string]any{}
	for _, path := range w.values {
		data, name, err := a.readFile(path)
		if err != nil {
			return nil, "", err
		}
		m, err := values(name, data)
		if err != nil {
			return nil, "", err
		}
		if err := checkShape(name, m, chartValues(), nil); err != nil {
			return nil, "", err
		}
		files = append(files, valuesFile{name, m})
		set = coalesce(set, m, true)
	}
	changed := o.changed
	if changed == nil {
		changed = func(string) bool { return true }
	}
	for _, f := range manifestFlags {
		if changed(f) {
			set = coalesce(set, flags[f], true)
		}
	}
	if w.caBundle != "" {
		data, _, err := a.readFile(w.caBundle)
		if err != nil {
			return nil, "", err
		}
		if len(bytes.TrimSpace(data)) == 0 {
			return nil, "", badUsage("--ca-bundle %s is empty: give the CA certificate (PEM) of the Secret worker-image-webhook-tls, or leave --ca-bundle out for cert-manager to issue it", w.caBundle)
		}
		set = coalesce(set, map[string]any{"webhook": map[string]any{"tls": map[string]any{
			"certManager": false, "caBundle": base64.StdEncoding.EncodeToString(data)}}}, true)
	}
	set = coalesce(set, map[string]any{
		"controller": map[string]any{"enabled": false},
		"monitoring": map[string]any{"serviceMonitor": false, "prometheusRule": false, "grafanaDashboard": false},
	}, true)
	effective := coalesce(chartValues(), set, false)
	if err := checkWritten(effective, files); err != nil {
		return nil, "", err
	}
	policy, _, _ = unstructured.NestedString(effective, "webhook", "failurePolicy")
	return set, policy, nil
}

// coalesce is over merged onto base as Helm coalesces values, neither
// changed: maps merge key by key, anything else replaces, and a null
// drops the key, or, with keepNull, stays null (to drop the chart's
// default when the result is merged over it in turn).
func coalesce(base, over map[string]any, keepNull bool) map[string]any {
	out := maps.Clone(base)
	if out == nil {
		out = map[string]any{}
	}
	for k, v := range over {
		if v == nil && !keepNull {
			delete(out, k)
			continue
		}
		if vm, ok := v.(map[string]any); ok {
			if bm, ok := out[k].(map[string]any); ok {
				out[k] = coalesce(bm, vm, keepNull)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// openValues are the chart's maps its templates write whole (a
// container's resources), whose keys are the API server's to check, not
// the chart's.
var openValues = map[string]bool{"webhook.resources": true, "controller.resources": true}

// checkShape refuses a values file that names a value the chart does not
// define, at any depth but inside an open map (with the nearest it does),
// or gives a map of the chart anything but a map or null, which its
// templates could not read: a misspelt webhook.replicas would otherwise
// leave the chart's default in place unsaid.
func checkShape(file string, m, chartMap map[string]any, path []string) error {
	for k, v := range m {
		def, known := chartMap[k]
		at := append(slices.Clone(path), k)
		if !known {
			names := slices.Sorted(maps.Keys(chartMap))
			if len(path) == 0 {
				return unusable("%s: the chart has no value %q (did you mean %q?); its values are %s",
					file, k, chartvalues.Nearest(k, names), strings.Join(names, ", "))
			}
			parent := strings.Join(path, ".")
			return unusable("%s: the chart has no value %s (did you mean %s.%s?); the values of %s are %s",
				file, strings.Join(at, "."), parent, chartvalues.Nearest(k, names), parent, strings.Join(names, ", "))
		}
		dm, isMap := def.(map[string]any)
		if isMap && v == nil && len(path) == 0 {
			return unusable("%s: %s is null, and the chart's templates read its fields: leave %s out to keep the chart's defaults", file, k, k)
		}
		if !isMap || v == nil {
			continue
		}
		vm, ok := v.(map[string]any)
		if !ok {
			return unusable("%s: %s is %s, and the chart's %s is a map of values", file, strings.Join(at, "."), chartvalues.Describe(v), strings.Join(at, "."))
		}
		if len(dm) == 0 || openValues[strings.Join(at, ".")] {
			continue // a map the chart writes as it is
		}
		if err := checkShape(file, vm, dm, at); err != nil {
			return err
		}
	}
	return nil
}

// checkWritten checks, after the merge, each value the webhook's templates
// write into YAML and CEL as it is, and that a file set (the flags' own
// are checked as flags): the error names the last file that set it.
func checkWritten(v map[string]any, files []valuesFile) error {
	bad := func(format string, path []string, args ...any) error {
		// The file that set it; for a value the chart's default left
		// (image.repository beside a file's image.tag), the file that set
		// its nearest map.
		from := "the values"
	search:
		for n := len(path); n > 0; n-- {
			for i := len(files) - 1; i >= 0; i-- {
				if _, ok, _ := unstructured.NestedFieldNoCopy(files[i].values, path[:n]...); ok {
					from = files[i].name
					break search
				}
			}
		}
		sep := " "
		if strings.HasPrefix(format, "[") {
			sep = "" // an index of the list
		}
		return unusable("%s: %s%s%s", from, strings.Join(path, "."), sep, fmt.Sprintf(format, args...))
	}
	get := func(path ...string) any {
		x, _, _ := unstructured.NestedFieldNoCopy(v, path...)
		return x
	}
	text := func(path ...string) (string, error) {
		x := get(path...)
		s, ok := x.(string)
		if !ok && x != nil {
			return "", bad("is %s, not a string", path, chartvalues.Describe(x))
		}
		return s, nil
	}
	number := func(lo, hi int64, meaning string, path ...string) error {
		n, ok := chartvalues.Integer(get(path...))
		if !ok || n < lo || n > hi {
			return bad("is %s: %s", path, chartvalues.Describe(get(path...)), meaning)
		}
		return nil
	}
	if on, _ := get("webhook", "enabled").(bool); !on {
		return bad("is %s: webhook manifests prints the webhook; leave webhook.enabled out", []string{"webhook", "enabled"}, chartvalues.Describe(get("webhook", "enabled")))
	}
	policy, err := text("webhook", "failurePolicy")
	if err != nil {
		return err
	}
	if _, ok := policyMeaning[policy]; !ok {
		return bad("%q is neither Fail nor Ignore", []string{"webhook", "failurePolicy"}, policy)
	}
	for _, n := range []struct {
		path    []string
		lo, hi  int64
		meaning string
	}{
		{[]string{"webhook", "timeoutSeconds"}, 1, 30, "give seconds between 1 and 30, which the API server allows"},
		{[]string{"webhook", "replicas"}, 1, math.MaxInt32, "at least one replica must serve"},
		{[]string{"webhook", "port"}, 1, 65535, "give a port, 1 to 65535"},
	} {
		if err := number(n.lo, n.hi, n.meaning, n.path...); err != nil {
			return err
		}
	}
	resource, err := text("webhook", "poolResource")
	if err != nil {
		return err
	}
	if errs := validation.IsDNS1123Label(resource); len(errs) > 0 {
		return bad("%q is not a resource name (the plural the API serves, such as kubernetesnodeses): %s", []string{"webhook", "poolResource"}, resource, strings.Join(errs, "; "))
	}
	repository, err := text("image", "repository")
	if err != nil {
		return err
	}
	tag, err := text("image", "tag")
	if err != nil {
		return err
	}
	if _, _, ok := imageParts(repository + ":" + tag); !ok {
		return bad("%q with image.tag %q is not an image reference: give [REGISTRY/]PATH and a TAG, such as ghcr.io/cozystack/kubernetes-worker-image and v1", []string{"image", "repository"}, repository, tag)
	}
	pull, err := text("image", "pullPolicy")
	if err != nil {
		return err
	}
	if !slices.Contains([]string{"Always", "IfNotPresent", "Never"}, pull) {
		return bad("%q is not Always, IfNotPresent or Never", []string{"image", "pullPolicy"}, pull)
	}
	name, err := text("catalogRelease", "name")
	if err != nil {
		return err
	}
	namespace, err := text("catalogRelease", "namespace")
	if err != nil {
		return err
	}
	if name != "" {
		if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
			return bad("%q is not a HelmRelease's name: %s", []string{"catalogRelease", "name"}, name, strings.Join(errs, "; "))
		}
		if errs := validation.IsDNS1123Label(namespace); len(errs) > 0 {
			return bad("%q is not a namespace name: %s", []string{"catalogRelease", "namespace"}, namespace, strings.Join(errs, "; "))
		}
	}
	secret, err := text("webhook", "tls", "secretName")
	if err != nil {
		return err
	}
	if errs := validation.IsDNS1123Subdomain(secret); secret != "" && len(errs) > 0 {
		return bad("%q is not a Secret's name: %s", []string{"webhook", "tls", "secretName"}, secret, strings.Join(errs, "; "))
	}
	if x := get("webhook", "tls", "certManager"); x != nil {
		if _, ok := x.(bool); !ok {
			return bad("is %s, not true or false", []string{"webhook", "tls", "certManager"}, chartvalues.Describe(x))
		}
	}
	for _, release := range []string{"catalogRelease", "imageCatalog"} {
		for _, kind := range []string{"configMaps", "secrets"} {
			path := []string{release, "valuesFrom", kind}
			x := get(path...)
			if x == nil {
				continue
			}
			list, ok := x.([]any)
			if !ok {
				return bad("is %s: give a list of names, such as [catalog-values]", path, chartvalues.Describe(x))
			}
			for i, item := range list {
				s, ok := item.(string)
				if !ok {
					return bad("[%d] is %s, not a name", path, i, chartvalues.Describe(item))
				}
				if errs := validation.IsDNS1123Subdomain(s); len(errs) > 0 {
					return bad("[%d] %q is not a name of the kind: %s", path, i, s, strings.Join(errs, "; "))
				}
			}
		}
	}
	return nil
}
