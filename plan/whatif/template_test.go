package whatif_test

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/plan/whatif"
)

// templateCase is a line of testdata/templates.jsonl: a pool's values, the
// platform's _cluster, and what the pre-feature kubernetes-nodes chart
// (cozystack/cozystack 3c780acd417f) rendered for them with Helm v4.1.1,
// values passed as Flux passes them: the KubevirtMachineTemplate's name,
// or the chart's error.
type templateCase struct {
	Namespace  string          `json:"namespace"`
	Name       string          `json:"name"`
	Spec       json.RawMessage `json:"spec"`
	Cluster    json.RawMessage `json:"cluster"`
	Template   string          `json:"template"`
	ChartError string          `json:"chartError"`
}

func templateCases(t *testing.T) []templateCase {
	t.Helper()
	f, err := os.Open("testdata/templates.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []templateCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var c templateCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// beforeTemplate is the template Diff names for a pool before any change.
func beforeTemplate(t *testing.T, pool whatif.PoolValues, cluster json.RawMessage) whatif.TemplateName {
	t.Helper()
	var c any
	if err := yaml.Unmarshal(cluster, &c); err != nil {
		t.Fatal(err)
	}
	platform, err := whatif.NewPlatform(map[string]any{"_cluster": c})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := whatif.Diff(whatif.Input{Pools: []whatif.PoolValues{pool}, Platform: platform}, whatif.Change{})
	if err != nil {
		t.Fatal(err)
	}
	return rep.Pools[0].Before.Template
}

// The names of the chart, for values as Helm holds them (float64 numbers)
// and as a KubernetesNodes document holds them (int64 numbers): roles,
// instance types, resources in both spellings, GPUs, the serial console,
// pod CPU limits and requests, disk sizes, classes, talos values, the
// platform's ephemeral-storage ratio and topology spread constraints.
func TestTemplateNamesAsTheChartNamesThem(t *testing.T) {
	for _, c := range templateCases(t) {
		var fromValues any
		if err := yaml.Unmarshal(c.Spec, &fromValues); err != nil {
			t.Fatal(err)
		}
		obj, _, err := unstructured.UnstructuredJSONScheme.Decode([]byte(`{"apiVersion":"apps.cozystack.io/v1alpha1","kind":"KubernetesNodes","metadata":{"name":"x"},"spec":`+string(c.Spec)+`}`), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		fromDocument := obj.(*unstructured.Unstructured).Object["spec"]
		for how, spec := range map[string]any{"values": fromValues, "document": fromDocument} {
			got := beforeTemplate(t, whatif.PoolValues{Namespace: c.Namespace, Name: c.Name, Spec: spec}, c.Cluster)
			switch {
			case c.ChartError != "" && (got.Name != "" || got.Unknown == ""):
				t.Errorf("%s %s (%s): named %q, but the chart fails: %s", c.Name, c.Spec, how, got.Name, c.ChartError)
			case c.ChartError == "" && (got.Name != c.Template || got.From != whatif.FromValues):
				t.Errorf("%s %s (%s): template %+v, the chart names it %s", c.Name, c.Spec, how, got, c.Template)
			}
		}
	}
}

// Values the chart's values schema refuses render no template: the name is
// not known, and says why, rather than a guess.
func TestTemplateNameOfValuesTheChartRefuses(t *testing.T) {
	for _, spec := range []map[string]any{
		{"cluster": "demo", "roles": []any{1.0}},
		{"cluster": "demo", "roles": "ingress-nginx"},
		{"cluster": "demo", "logSerialConsole": "true"},
		{"cluster": "demo", "resources": map[string]any{"cpu": 1.5, "memory": "4Gi"}},
		{"cluster": "demo", "resources": map[string]any{"cpu": "2 cores", "memory": "4Gi"}},
		{"cluster": "demo", "gpus": []any{map[string]any{"model": "x"}}},
		{"cluster": "demo", "instanceType": 5.0},
		{"cluster": "demo", "podCpuLimit": true},
	} {
		got := beforeTemplate(t, whatif.PoolValues{Namespace: "tenant-demo", Name: "demo-md0", Spec: spec}, json.RawMessage(`{}`))
		if got.Name != "" || got.From != "" || got.Unknown == "" {
			t.Errorf("%v: template %+v", spec, got)
		}
	}
}

// The define's own failures of a pool's sizing (nodegroup.yaml) render no
// template: the name is not known, and says the chart fails. Just clear of
// each, the chart renders and the name is given.
func TestTemplateNameOfSizingTheChartFails(t *testing.T) {
	both := map[string]any{"cpu": 2.0, "memory": "4Gi"}
	fails := []map[string]any{
		{"cluster": "demo", "resources": map[string]any{"cpu": 2.0}},
		{"cluster": "demo", "resources": map[string]any{"memory": "4Gi"}},
		{"cluster": "demo", "podCpuLimit": "2"},
		{"cluster": "demo", "podCpuRequest": "500m"},
		{"cluster": "demo", "resources": both, "podCpuLimit": "-1"},
		{"cluster": "demo", "resources": both, "podCpuRequest": -1.0},
		{"cluster": "demo", "resources": both, "podCpuLimit": 0.0},
		{"cluster": "demo", "resources": both, "podCpuLimit": "2", "podCpuRequest": "0"},
		{"cluster": "demo", "resources": both, "podCpuLimit": "1500m", "podCpuRequest": "2"},
		{"cluster": "demo", "version": nil},
	}
	renders := []map[string]any{
		{"cluster": "demo", "resources": both},
		{"cluster": "demo", "instanceType": "", "resources": map[string]any{"cpu": 2.0}},
		{"cluster": "demo", "resources": map[string]any{"cpu": 0.0, "memory": "4Gi"}, "instanceType": ""},
		{"cluster": "demo", "resources": both, "podCpuLimit": "2"},
		{"cluster": "demo", "resources": both, "podCpuRequest": "0"},
		{"cluster": "demo", "resources": both, "podCpuLimit": "0", "podCpuRequest": 0.0},
		{"cluster": "demo", "resources": both, "podCpuLimit": "2", "podCpuRequest": "2000m"},
		{"cluster": "demo", "version": "v1.34"},
	}
	for _, spec := range fails {
		got := beforeTemplate(t, whatif.PoolValues{Namespace: "tenant-demo", Name: "demo-md0", Spec: spec}, json.RawMessage(`{}`))
		if got.Name != "" || got.Unknown == "" {
			t.Errorf("%v: template %+v; the chart fails", spec, got)
		}
	}
	for _, spec := range renders {
		got := beforeTemplate(t, whatif.PoolValues{Namespace: "tenant-demo", Name: "demo-md0", Spec: spec}, json.RawMessage(`{}`))
		if got.Name == "" || got.From != whatif.FromValues {
			t.Errorf("%v: template %+v; the chart renders it", spec, got)
		}
	}
}
