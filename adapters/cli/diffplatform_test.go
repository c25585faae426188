package cli_test

import (
	"encoding/base64"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestDiffReadsTheTenantsValues: diff reads the platform's part of the
// template name (the tenant's cozystack-values Secret) from the cluster;
// --cozystack-values overrides it, and a tenant without one says so.
func TestDiffReadsTheTenantsValues(t *testing.T) {
	secret := "apiVersion: v1\nkind: Secret\nmetadata: {name: cozystack-values, namespace: tenant-demo}\ndata: {values.yaml: " +
		base64.StdEncoding.EncodeToString([]byte(readExample(t, exampleCozystackValues))) + "}\n"
	api := newFakeAPI(t, readExample(t, exampleState)+"\n---\n"+secret)
	kc := kubeconfig(t, "tenant-demo", [2]string{"c", api.URL})
	args := []string{"diff", "-f", examplePools, "--catalog", exampleCatalog, "--set", "talos.version=v1.13.7", "--kubeconfig", kc, "-o", "json"}
	fromCluster := exe(t, "", args...)
	byHand := exe(t, "", append(args, "--cozystack-values", exampleCozystackValues)...)
	if fromCluster.stdout != byHand.stdout || strings.Contains(fromCluster.stdout, "platform values not given") || !strings.Contains(fromCluster.stdout, `"name": "kubernetes-demo-md0-`) {
		t.Errorf("the Secret gives the template names --cozystack-values gives:\n--- cluster (exit %d)\n%s%s\n--- by hand\n%s", fromCluster.code, fromCluster.stdout, fromCluster.stderr, byHand.stdout)
	}
	other := strings.Replace(readExample(t, exampleCozystackValues), `ephemeral-storage-allocation-ratio: "40"`, `ephemeral-storage-allocation-ratio: "20"`, 1)
	if over := exe(t, "", append(args, "--cozystack-values", write(t, "v.yaml", other))...); over.stdout == fromCluster.stdout {
		t.Errorf("--cozystack-values overrides the Secret")
	}

	bare := newFakeAPI(t, readExample(t, exampleState))
	kc = kubeconfig(t, "tenant-demo", [2]string{"c", bare.URL})
	args[len(args)-3] = kc
	r := exe(t, "", args...)
	if !strings.Contains(r.stderr, "tenant-demo holds no cozystack-values Secret") {
		t.Errorf("a tenant without the Secret says so: exit %d\n%s", r.code, r.stderr)
	}
}

// TestDiffReadsEachTenantsValues: pools of several namespaces take each
// its own tenant's cozystack-values Secret, as a run per namespace with
// --cozystack-values of that Secret gives; --cozystack-values still
// overrides them all.
func TestDiffReadsEachTenantsValues(t *testing.T) {
	values := readExample(t, exampleCozystackValues)
	other := strings.Replace(values, `ephemeral-storage-allocation-ratio: "40"`, `ephemeral-storage-allocation-ratio: "20"`, 1)
	if other == values {
		t.Fatal("the example's ratio is not 40")
	}
	secret := func(ns, text string) string {
		return "apiVersion: v1\nkind: Secret\nmetadata: {name: cozystack-values, namespace: " + ns + "}\ndata: {values.yaml: " +
			base64.StdEncoding.EncodeToString([]byte(text)) + "}\n"
	}
	api := newFakeAPI(t, readExample(t, exampleState)+"\n---\n"+secret("tenant-a", values)+"---\n"+secret("tenant-b", other))
	kc := kubeconfig(t, "tenant-a", [2]string{"c", api.URL})
	pool := func(ns string) string {
		return strings.ReplaceAll(poolDoc("demo-md0", "storageClass: replicated"), "namespace: tenant-demo", "namespace: "+ns)
	}
	both := write(t, "pools.yaml", pool("tenant-a")+"---\n"+pool("tenant-b"))
	args := []string{"diff", "--catalog", exampleCatalog, "--set", "talos.version=v1.13.7", "--kubeconfig", kc, "-o", "json"}
	names := func(r run) map[string]string {
		t.Helper()
		var out struct {
			Pools []struct {
				Namespace string
				After     struct {
					Template struct{ Name, Unknown string } `json:"kubevirtMachineTemplate"`
				}
			}
		}
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatalf("exit %d %v\n%s\n%s", r.code, err, r.stdout, r.stderr)
		}
		m := map[string]string{}
		for _, p := range out.Pools {
			m[p.Namespace] = p.After.Template.Name + p.After.Template.Unknown
		}
		return m
	}
	got := names(exe(t, "", append(args, "-f", both)...))
	want := map[string]string{
		"tenant-a": names(exe(t, "", append(args, "-f", write(t, "a.yaml", pool("tenant-a")), "--cozystack-values", write(t, "a-values.yaml", values))...))["tenant-a"],
		"tenant-b": names(exe(t, "", append(args, "-f", write(t, "b.yaml", pool("tenant-b")), "--cozystack-values", write(t, "b-values.yaml", other))...))["tenant-b"],
	}
	if !reflect.DeepEqual(got, want) || got["tenant-a"] == got["tenant-b"] || !strings.HasPrefix(got["tenant-a"], "kubernetes-demo-md0-") {
		t.Errorf("each tenant's Secret gives its pools' template names:\n got %v\nwant %v", got, want)
	}
	all := names(exe(t, "", append(args, "-f", both, "--cozystack-values", write(t, "v.yaml", values))...))
	bByHand := names(exe(t, "", append(args, "-f", write(t, "b2.yaml", pool("tenant-b")), "--cozystack-values", write(t, "b2-values.yaml", values))...))["tenant-b"]
	if all["tenant-a"] != want["tenant-a"] || all["tenant-b"] != bByHand || bByHand == want["tenant-b"] {
		t.Errorf("--cozystack-values overrides every tenant's: %v, tenant-b by hand %s", all, bByHand)
	}
}
