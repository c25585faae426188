package cli_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// fakeAPI is an API server on loopback (net/http/httptest) that serves
// discovery for the kinds the planner reads and KubernetesNodes, lists and
// gets of the objects it holds, and whatever a test scripts instead.
type fakeAPI struct {
	*httptest.Server
	mu sync.Mutex
	// objects by "<group>/<version>/<resource>", each a decoded object.
	objects map[string][]map[string]any
	// answer, when set, answers a request first: return false to let the
	// fake serve it.
	answer func(w http.ResponseWriter, r *http.Request) bool
	// paths records every request's path.
	paths []string
	// flux serves Flux's group even without a HelmRelease.
	flux bool
}

// served are the group versions and resources the fake discovers.
var served = map[string][]string{
	"v1":                         {"persistentvolumeclaims", "persistentvolumes", "namespaces", "configmaps", "secrets"},
	"storage.k8s.io/v1":          {"storageclasses", "csidrivers"},
	"snapshot.storage.k8s.io/v1": {"volumesnapshotclasses"},
	"cdi.kubevirt.io/v1beta1":    {"datavolumes", "storageprofiles", "cdis", "cdiconfigs", "datasources"},
	"apps.cozystack.io/v1alpha1": {"kubernetesnodes", "vmdisks"},
	// The consumers of goldens.
	"infrastructure.cluster.x-k8s.io/v1alpha1": {"kubevirtmachinetemplates"},
	"kubevirt.io/v1": {"virtualmachines"},
}

// fluxGroup is served only by a fake that holds a HelmRelease: a cluster
// without Flux has no catalog release to read.
const fluxGroup = "helm.toolkit.fluxcd.io/v2"

// groups are the group versions f serves, and their resources.
func (f *fakeAPI) groups() map[string][]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.objects[fluxGroup+"/helmreleases"]) == 0 && !f.flux {
		return served
	}
	out := map[string][]string{fluxGroup: {"helmreleases"}}
	for k, v := range served {
		out[k] = v
	}
	return out
}

// kinds names each resource's kind, for its lists.
var kinds = map[string]string{"persistentvolumeclaims": "PersistentVolumeClaim", "persistentvolumes": "PersistentVolume", "namespaces": "Namespace",
	"storageclasses": "StorageClass", "csidrivers": "CSIDriver", "volumesnapshotclasses": "VolumeSnapshotClass", "datavolumes": "DataVolume",
	"storageprofiles": "StorageProfile", "cdis": "CDI", "cdiconfigs": "CDIConfig", "kubernetesnodes": "KubernetesNodes", "vmdisks": "VMDisk",
	"kubevirtmachinetemplates": "KubevirtMachineTemplate", "virtualmachines": "VirtualMachine", "datasources": "DataSource",
	"configmaps": "ConfigMap", "secrets": "Secret", "helmreleases": "HelmRelease"}

var clusterScoped = map[string]bool{"persistentvolumes": true, "namespaces": true, "storageclasses": true, "csidrivers": true,
	"volumesnapshotclasses": true, "storageprofiles": true, "cdis": true, "cdiconfigs": true}

// newFakeAPI starts a fake holding the objects of the YAML documents (or
// Lists) of state.
func newFakeAPI(t *testing.T, state string) *fakeAPI {
	t.Helper()
	f := &fakeAPI{objects: map[string][]map[string]any{}}
	for _, doc := range strings.Split(state, "\n---\n") {
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			t.Fatalf("fake API state: %v", err)
		}
		if obj == nil {
			continue
		}
		items := []any{obj}
		if obj["kind"] == "List" {
			items, _ = obj["items"].([]any)
		}
		for _, it := range items {
			o := it.(map[string]any)
			gv, _ := o["apiVersion"].(string)
			key := gv + "/" + resourceOf(o["kind"].(string))
			f.objects[key] = append(f.objects[key], o)
		}
	}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

// answerWith sets answer, under the fake's lock.
func (f *fakeAPI) answerWith(answer func(w http.ResponseWriter, r *http.Request) bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answer = answer
}

func resourceOf(kind string) string {
	for res, k := range kinds {
		if k == kind {
			return res
		}
	}
	return strings.ToLower(kind) + "s"
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.paths = append(f.paths, r.URL.Path)
	answer := f.answer
	f.mu.Unlock()
	if answer != nil && answer(w, r) {
		return
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case r.URL.Path == "/api":
		writeJSON(w, 200, map[string]any{"kind": "APIVersions", "versions": []string{"v1"}})
		return
	case r.URL.Path == "/apis":
		var groups []any
		for gv := range f.groups() {
			if g, v, ok := strings.Cut(gv, "/"); ok {
				groups = append(groups, map[string]any{"name": g, "versions": []any{map[string]any{"groupVersion": gv, "version": v}},
					"preferredVersion": map[string]any{"groupVersion": gv, "version": v}})
			}
		}
		writeJSON(w, 200, map[string]any{"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
		return
	}
	var gv string
	var rest []string
	switch {
	case parts[0] == "api" && len(parts) >= 2:
		gv, rest = parts[1], parts[2:]
	case parts[0] == "apis" && len(parts) >= 3:
		gv, rest = parts[1]+"/"+parts[2], parts[3:]
	default:
		http.NotFound(w, r)
		return
	}
	resources, ok := f.groups()[gv]
	if !ok {
		http.NotFound(w, r)
		return
	}
	if len(rest) == 0 {
		var list []any
		for _, res := range resources {
			list = append(list, map[string]any{"name": res, "namespaced": !clusterScoped[res], "kind": kinds[res], "verbs": []string{"get", "list"}})
		}
		writeJSON(w, 200, map[string]any{"kind": "APIResourceList", "groupVersion": gv, "resources": list})
		return
	}
	ns := ""
	if rest[0] == "namespaces" && len(rest) >= 3 {
		ns, rest = rest[1], rest[2:]
	}
	res := rest[0]
	f.mu.Lock()
	var items []any
	for _, o := range f.objects[gv+"/"+res] {
		meta, _ := o["metadata"].(map[string]any)
		if ns != "" && meta["namespace"] != ns {
			continue
		}
		if len(rest) == 2 && meta["name"] != rest[1] {
			continue
		}
		items = append(items, o)
	}
	f.mu.Unlock()
	if len(rest) == 2 {
		if len(items) == 0 {
			writeStatus(w, 404, "NotFound", fmt.Sprintf("%s %q not found", res, rest[1]))
			return
		}
		writeJSON(w, 200, items[0])
		return
	}
	if items == nil {
		items = []any{}
	}
	writeJSON(w, 200, map[string]any{"kind": kinds[res] + "List", "apiVersion": gv, "metadata": map[string]any{"resourceVersion": "1"}, "items": items})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// writeStatus answers an API Status, as an API server's storage does.
func writeStatus(w http.ResponseWriter, code int, reason, message string) {
	writeJSON(w, code, map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": reason, "message": message, "code": code})
}

// notFoundEverywhere answers 404 to everything, as a wrong URL path, an
// ingress's default backend or a proxy does.
func notFoundEverywhere(w http.ResponseWriter, r *http.Request) bool {
	http.NotFound(w, r)
	return true
}

// forbiddenResources lets discovery through, as a real API server does for
// every user, and forbids every read of a resource: a user with no RBAC.
func forbiddenResources(w http.ResponseWriter, r *http.Request) bool {
	p := r.URL.Path
	if p == "/api" || p == "/apis" || strings.Count(strings.Trim(p, "/"), "/") <= 2 && (strings.HasPrefix(p, "/apis/") || p == "/api/v1") {
		return false
	}
	writeStatus(w, 403, "Forbidden", `forbidden: User "nobody" cannot list resource`)
	return true
}

// slow answers every resource read after d, and discovery at once.
func slow(d time.Duration) func(w http.ResponseWriter, r *http.Request) bool {
	return func(w http.ResponseWriter, r *http.Request) bool {
		if p := r.URL.Path; p == "/api" || p == "/apis" || strings.Count(strings.Trim(p, "/"), "/") <= 2 {
			return false
		}
		time.Sleep(d)
		return false
	}
}

// kubeconfig writes a kubeconfig whose current context is first, with a
// context per server (name: server URL), and returns its path.
func kubeconfig(t *testing.T, namespace string, contexts ...[2]string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: Config\nusers:\n- name: u\n  user: {token: t}\nclusters:\n")
	for _, c := range contexts {
		fmt.Fprintf(&b, "- name: %s\n  cluster: {server: %q}\n", c[0], c[1])
	}
	b.WriteString("contexts:\n")
	for _, c := range contexts {
		fmt.Fprintf(&b, "- name: %s\n  context: {cluster: %s, user: u, namespace: %s}\n", c[0], c[0], namespace)
	}
	fmt.Fprintf(&b, "current-context: %s\n", contexts[0][0])
	return write(t, "kubeconfig", b.String())
}
