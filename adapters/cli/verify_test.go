package cli_test

import (
	"strings"
	"testing"
)

// render is what `helm template` prints for a pool: a ConfigMap, and the
// KubevirtMachineTemplate with the disk's chart text (from plan -o chart)
// in its dataVolumeTemplates.
func render(t *testing.T, disk string) string {
	t.Helper()
	return `---
# Source: kubernetes-nodes/templates/configmap.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: demo-md0-settings
  namespace: tenant-demo
data:
  note: "untouched"
---
# Source: kubernetes-nodes/templates/machinetemplate.yaml
apiVersion: infrastructure.cluster.x-k8s.io/v1alpha1
kind: KubevirtMachineTemplate
metadata:
  name: kubernetes-demo-md0-0f1e2d3c
  namespace: tenant-demo
spec:
  template:
    spec:
      virtualMachineTemplate:
        metadata:
          namespace: tenant-demo
        spec:
          runStrategy: Always
          dataVolumeTemplates:
` + indentLines(disk, "      ")
}

func indentLines(s, pad string) string {
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for _, l := range lines {
		if l != "" {
			b.WriteString(pad + l)
		}
	}
	return b.String()
}

// chartDisk is a pool's disk-system entry as plan -o chart prints it.
func chartDisk(t *testing.T, spec string) string {
	t.Helper()
	r := exe(t, "", "plan", "-f", write(t, "p.yaml", poolDoc("demo-md0", spec)), "--catalog", exampleCatalog, "-o", "chart")
	if r.stdout == "" {
		t.Fatalf("no chart text:\n%s", r.stderr)
	}
	return r.stdout
}

func TestHelmVerify(t *testing.T) {
	clone := render(t, chartDisk(t, "storageClass: replicated\nosImage: {builtin: {}}"))
	onLocal := render(t, strings.Replace(chartDisk(t, "storageClass: replicated\nosImage: {builtin: {}}"), `storageClassName: "replicated"`, `storageClassName: "local"`, 1))
	http := render(t, chartDisk(t, "storageClass: ''"))
	goldens := exe(t, "", "catalog", "render", "--example").stdout

	// A clean render passes through byte for byte.
	for name, in := range map[string]string{"clone": clone, "http": http, "with goldens": goldens + clone} {
		r := exe(t, in, "helm-verify", "--state", exampleState)
		if r.code != 0 || r.stdout != in {
			t.Errorf("%s: exit %d, stdout identical: %v\nstderr: %s", name, r.code, r.stdout == in, r.stderr)
		}
	}
	// Offline, the HTTP path passes untouched: it gains no guard.
	if r := exe(t, http, "helm-verify"); r.code != 0 || r.stdout != http {
		t.Errorf("offline http: exit %d\n%s", r.code, r.stderr)
	}

	// A pool that clones a golden on another class is refused.
	r := exe(t, onLocal, "helm-verify", "--state", exampleState)
	if r.code != 3 || r.stdout != "" || !strings.Contains(r.stderr, "pool tenant-demo/demo-md0: refused StorageClassMismatch at storageClass") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	// So is one whose golden the rendered catalog would edit.
	edited := strings.Replace(goldens, `storage: "6Gi"`, `storage: "8Gi"`, 1)
	r = exe(t, edited+clone, "helm-verify", "--state", exampleState)
	if r.code != 3 || !strings.Contains(r.stderr, "refused CatalogEntryImmutable at images[0].storage") {
		t.Errorf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	// A render that does not parse is unusable input, by line.
	r = exe(t, clone+"  bad: [\n", "helm-verify", "--state", exampleState)
	if r.code != 2 || !strings.Contains(r.stderr, "<stdin>:") {
		t.Errorf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
}

func TestHelmVerifyOffline(t *testing.T) {
	// Offline, a clone cannot be checked against the cluster. helm-verify
	// is strict by default, since Helm drops a post-renderer's standard
	// error on success: it refuses, writing nothing.
	clone := render(t, chartDisk(t, "storageClass: replicated\nosImage: {builtin: {}}"))
	r := exe(t, clone, "helm-verify")
	if r.code != 3 || r.stdout != "" || !strings.Contains(r.stderr, "refused StateUnverified") || !strings.Contains(r.stderr, "cause: offline") {
		t.Errorf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	// --strict=false lets it pass with StateUnverified warnings, untouched.
	r = exe(t, clone, "helm-verify", "--strict=false")
	if r.code != 0 || r.stdout != clone || !strings.Contains(r.stderr, "StateUnverified") {
		t.Errorf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
}

// TestExamples: --example runs helm-verify and computeplane on the
// walkthrough's files, as it runs plan and the catalog's commands.
func TestExamples(t *testing.T) {
	if r := exe(t, "", "helm-verify", "--example"); r.code != 0 || strings.Count(r.stdout, "kind: KubevirtMachineTemplate") != 2 || r.stderr != "" {
		t.Errorf("helm-verify --example: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if r := exe(t, "", "computeplane", "--example"); r.code != 0 || !strings.Contains(r.stdout, "pool md0: release kubernetes-nodes-computeplane-cluster-md0") {
		t.Errorf("computeplane --example: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if r := exe(t, "", "helm-verify", "--example", "--state", exampleState); r.code != 2 {
		t.Errorf("--example brings its own files: exit %d", r.code)
	}
}
