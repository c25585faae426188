package cli_test

import (
	"encoding/base64"
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
