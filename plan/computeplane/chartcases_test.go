package computeplane_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/adapters/helm"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/computeplane"
)

const (
	defaultURL       = "https://factory.talos.dev/image/" + chartdefaults.SchematicID + "/" + chartdefaults.Version + "/openstack-amd64.raw.xz"
	defaultInstaller = "factory.talos.dev/installer/" + chartdefaults.SchematicID + ":" + chartdefaults.Version
)

// chartPool is a node group as the pre-feature wrapped kubernetes chart
// rendered it: the text of its disk-system entry's three lines that vary
// (the url, the storage request as quoted, the storageClassName as
// quoted, "" for no line) and its installer image.
type chartPool struct {
	name, url, storage, class, installer string
	// refused is the pool release's own refusal, where the kubernetes-nodes
	// chart's values schema refuses what the group forwards to it.
	refused string
}

// chartEntry is the disk-system entry of p, at its indentation inside the
// KubevirtMachineTemplate.
func (p chartPool) chartEntry() string {
	s := `      - metadata:
          name: disk-system
          annotations:
            cdi.kubevirt.io/storage.usePopulator: "false"
        spec:
          source:
            http:
              url: ` + p.url + `
          storage:
            resources:
              requests:
                storage: ` + p.storage + "\n"
	if p.class != "" {
		s += "            storageClassName: " + p.class + "\n"
	}
	return s
}

// TestMeasuredChart holds the ComputePlane to each spec measured against
// the pre-feature computeplane chart and the kubernetes chart it wraps
// (cozystack/cozystack 3c780acd417f, Helm v4.1.1's engine, values as Flux
// passes them, with the _namespace Cozystack injects): where they
// rendered, each node group's disk-system entry and installer image, as
// the wrapped chart rendered them, are the text the planner renders for
// that group's pool release (its values as its HelmRelease carries them:
// JSON, decoded again by Flux); where they failed the release (the
// computeplane values schema, a template), the refusals at the fields they
// faulted. The KubevirtMachineTemplates are named otherwise (a pool
// release's kubernetes-computeplane-cluster-<pool>-<hash>, the wrapped
// chart's computeplane-cluster-<group>-<hash>): the disk text is what
// stays. Where the planner departs from the charts by design (the pool
// chart's defaults for an omitted field, "" not forwarded, a diskSize
// only the values schema refuses), the case says why.
func TestMeasuredChart(t *testing.T) {
	cases := map[string]struct {
		values string
		// departs says why the planner does otherwise than the chart.
		departs  string
		pools    []chartPool
		refusals []string
		warnings []string
	}{
		"no nodeGroups": {
			values: "{}",
			pools: []chartPool{
				{name: "md0", url: defaultURL, storage: `"20Gi"`, class: `"replicated"`, installer: defaultInstaller},
			},
		},
		"nodeGroups null": {
			values: `{"nodeGroups":null}`,
			pools: []chartPool{
				{name: "md0", url: defaultURL, storage: `"20Gi"`, class: `"replicated"`, installer: defaultInstaller},
			},
		},
		"nodeGroups empty": {
			values: `{"nodeGroups":{}}`,
			pools: []chartPool{
				{name: "md0", url: defaultURL, storage: `"20Gi"`, class: `"replicated"`, installer: defaultInstaller},
			},
		},
		"one group, schema-required fields, no storageClass": {
			values: `{"nodeGroups":{"md0":{"minReplicas":0,"maxReplicas":3,"instanceType":"u1.medium","diskSize":"30Gi","roles":["ingress-nginx"]}}}`,
			pools: []chartPool{
				{name: "md0", url: defaultURL, storage: `"30Gi"`, class: `"replicated"`, installer: defaultInstaller},
			},
		},
		"storageClass empty string": {
			values: `{"nodeGroups":{"md0":{"minReplicas":0,"maxReplicas":3,"instanceType":"u1.medium","diskSize":"30Gi","roles":["ingress-nginx"],"storageClass":""}}}`,
			pools: []chartPool{
				{name: "md0", url: defaultURL, storage: `"30Gi"`, class: `"replicated"`, installer: defaultInstaller},
			},
		},
		"storageClass fast": {
			values: `{"nodeGroups":{"md0":{"minReplicas":0,"maxReplicas":3,"instanceType":"u1.medium","diskSize":"30Gi","roles":["ingress-nginx"],"storageClass":"fast"}}}`,
			pools: []chartPool{
				{name: "md0", url: defaultURL, storage: `"30Gi"`, class: `"fast"`, installer: defaultInstaller},
			},
		},
		"storageClass null": {
			values: `{"nodeGroups":{"md0":{"minReplicas":0,"maxReplicas":3,"instanceType":"u1.medium","diskSize":"30Gi","roles":["ingress-nginx"],"storageClass":null}}}`,
			// The chart fails the release (schema): at '/nodeGroups/md0/storageClass': got null, want string
			refusals: []string{"InvalidValue nodeGroups.md0.storageClass"},
		},
		"diskSize empty string": {
			values: `{"nodeGroups":{"md0":{"minReplicas":0,"maxReplicas":3,"instanceType":"u1.medium","diskSize":"","roles":["ingress-nginx"]}}}`,
			// The chart fails the release (schema): at '/nodeGroups/md0/diskSize': '' does not match pattern <the quantity pattern>
			departs: "a group's diskSize \"\" is not set, and not forwarded, so the pool chart's 20Gi applies, as the wrapped chart's template would have rendered it",
			pools: []chartPool{
				{name: "md0", url: defaultURL, storage: `"20Gi"`, class: `"replicated"`, installer: defaultInstaller},
			},
		},
		"diskSize zero": {
			values: `{"nodeGroups":{"md0":{"minReplicas":0,"maxReplicas":3,"instanceType":"u1.medium","diskSize":0,"roles":["ingress-nginx"]}}}`,
			pools: []chartPool{
				{name: "md0", url: defaultURL, storage: `"20Gi"`, class: `"replicated"`, installer: defaultInstaller},
			},
		},
		"diskSize integer 21474836480": {
			values: `{"nodeGroups":{"md0":{"minReplicas":0,"maxReplicas":3,"instanceType":"u1.medium","diskSize":21474836480,"roles":["ingress-nginx"]}}}`,
			pools: []chartPool{
				{name: "md0", url: defaultURL, storage: `"2.147483648e+10"`, class: `"replicated"`, installer: defaultInstaller},
			},
		},
		"diskSize integer 20": {
			values: `{"nodeGroups":{"md0":{"minReplicas":0,"maxReplicas":3,"instanceType":"u1.medium","diskSize":20,"roles":["ingress-nginx"]}}}`,
			pools: []chartPool{
				{name: "md0", url: defaultURL, storage: `"20"`, class: `"replicated"`, installer: defaultInstaller},
			},
		},
		"diskSize 1.5": {
			values: `{"nodeGroups":{"md0":{"minReplicas":0,"maxReplicas":3,"instanceType":"u1.medium","diskSize":1.5,"roles":["ingress-nginx"]}}}`,
			// The chart fails the release (schema): at '/nodeGroups/md0/diskSize': 'anyOf' failed - at '/nodeGroups/md0/diskSize': got number, want integer - at '/nodeGroups/md0/diskSize': got number, want string
			departs:  "the ComputePlane gains no refusal the wrapped chart's templates did not have: the fraction is forwarded, with a warning that the values schema refuses it; the pool release's own plan refuses it, as the kubernetes-nodes chart's schema does",
			warnings: []string{"InvalidQuantity nodeGroups.md0.diskSize"},
			pools: []chartPool{
				{name: "md0", refused: "InvalidValue diskSize"},
			},
		},
		"diskSize null": {
			values: `{"nodeGroups":{"md0":{"minReplicas":0,"maxReplicas":3,"instanceType":"u1.medium","diskSize":null,"roles":["ingress-nginx"]}}}`,
			// The chart fails the release (schema): at '/nodeGroups/md0/diskSize': 'anyOf' failed - at '/nodeGroups/md0/diskSize': got null, want integer - at '/nodeGroups/md0/diskSize': got null, want string
			refusals: []string{"InvalidValue nodeGroups.md0.diskSize"},
		},
		"diskSize omitted": {
			values: `{"nodeGroups":{"md0":{"minReplicas":0,"maxReplicas":3,"instanceType":"u1.medium","roles":["ingress-nginx"]}}}`,
			// The chart fails the release (schema): at '/nodeGroups/md0': missing property 'diskSize'
			departs: "an omitted field takes the pool chart's default; the computeplane chart's values schema requires diskSize, instanceType, maxReplicas and minReplicas",
			pools: []chartPool{
				{name: "md0", url: defaultURL, storage: `"20Gi"`, class: `"replicated"`, installer: defaultInstaller},
			},
		},
		"only roles (every other field omitted)": {
			values: `{"nodeGroups":{"md0":{"roles":["ingress-nginx"]}}}`,
			// The chart fails the release (schema): at '/nodeGroups/md0': missing properties 'diskSize', 'instanceType', 'maxReplicas', 'minReplicas'
			departs: "an omitted field takes the pool chart's default; the computeplane chart's values schema requires diskSize, instanceType, maxReplicas and minReplicas",
			pools: []chartPool{
				{name: "md0", url: defaultURL, storage: `"20Gi"`, class: `"replicated"`, installer: defaultInstaller},
			},
		},
		"maxReplicas omitted": {
			values: `{"nodeGroups":{"md0":{"minReplicas":0,"instanceType":"u1.medium","diskSize":"20Gi","roles":["ingress-nginx"]}}}`,
			// The chart fails the release (schema): at '/nodeGroups/md0': missing property 'maxReplicas'
			departs: "an omitted field takes the pool chart's default; the computeplane chart's values schema requires diskSize, instanceType, maxReplicas and minReplicas",
			pools: []chartPool{
				{name: "md0", url: defaultURL, storage: `"20Gi"`, class: `"replicated"`, installer: defaultInstaller},
			},
		},
		"no ingress role": {
			values: `{"nodeGroups":{"md0":{"minReplicas":0,"maxReplicas":3,"instanceType":"u1.medium","diskSize":"20Gi","roles":[]}}}`,
			// The chart fails the release (render): execution error at (computeplane/templates/cluster.yaml:50:4): computeplane: at least one nodeGroup must carry roles: [ingress-nginx] with maxReplicas >= 1 — the module pins the ingress-nginx addon on, and its controller only schedules onto ingress-nginx nodes
			refusals: []string{"MissingIngressPool nodeGroups"},
		},
		"ingress group with maxReplicas 0": {
			values: `{"nodeGroups":{"md0":{"minReplicas":0,"maxReplicas":0,"instanceType":"u1.medium","diskSize":"20Gi","roles":["ingress-nginx"]}}}`,
			// The chart fails the release (render): execution error at (computeplane/templates/cluster.yaml:50:4): computeplane: at least one nodeGroup must carry roles: [ingress-nginx] with maxReplicas >= 1 — the module pins the ingress-nginx addon on, and its controller only schedules onto ingress-nginx nodes
			refusals: []string{"MissingIngressPool nodeGroups"},
		},
		"tenant sets osImage, talos, ephemeralStorage-free extras": {
			values:   `{"nodeGroups":{"md0":{"minReplicas":0,"maxReplicas":3,"instanceType":"u1.medium","diskSize":"20Gi","roles":["ingress-nginx"],"osImage":{"factory":{"imageFactoryURL":"https://evil.example"}},"talos":{"schematicID":"abc"}}}}`,
			warnings: []string{"DroppedField nodeGroups.md0.osImage", "DroppedField nodeGroups.md0.talos"},
			pools: []chartPool{
				{name: "md0", url: defaultURL, storage: `"20Gi"`, class: `"replicated"`, installer: defaultInstaller},
			},
		},
		"two groups, second with empty strings": {
			values: `{"nodeGroups":{"md0":{"minReplicas":0,"maxReplicas":3,"instanceType":"u1.medium","diskSize":"20Gi","roles":["ingress-nginx"]},"gpu":{"minReplicas":0,"maxReplicas":2,"instanceType":"u1.large","diskSize":"","storageClass":"","roles":[]}}}`,
			// The chart fails the release (schema): at '/nodeGroups/gpu/diskSize': '' does not match pattern <the quantity pattern>
			departs: "a group's diskSize \"\" and storageClass \"\" are not set, and not forwarded: the pool chart's 20Gi and replicated apply, as the wrapped chart's template would have rendered them",
			pools: []chartPool{
				{name: "gpu", url: defaultURL, storage: `"20Gi"`, class: `"replicated"`, installer: defaultInstaller},
				{name: "md0", url: defaultURL, storage: `"20Gi"`, class: `"replicated"`, installer: defaultInstaller},
			},
		},
		"group null beside a real one": {
			values: `{"nodeGroups":{"md0":{"minReplicas":0,"maxReplicas":3,"instanceType":"u1.medium","diskSize":"20Gi","roles":["ingress-nginx"]},"old":null}}`,
			pools: []chartPool{
				{name: "md0", url: defaultURL, storage: `"20Gi"`, class: `"replicated"`, installer: defaultInstaller},
			},
		},
		"ephemeralStorage set (wrapped chart refuses)": {
			values: `{"nodeGroups":{"md0":{"minReplicas":0,"maxReplicas":3,"instanceType":"u1.medium","diskSize":"20Gi","roles":["ingress-nginx"],"ephemeralStorage":"10Gi"}}}`,
			// The chart fails the release (wrapped-render): execution error at (kubernetes/templates/cluster.yaml:817:32): nodeGroup "md0": ephemeralStorage is no longer supported and should have been automatically migrated to diskSize by platform migration 41. If you see this error after upgrading, the migration did not run — check the cozystack-migration-hook Job logs in cozy-system.
			refusals: []string{"InvalidValue nodeGroups.md0.ephemeralStorage"},
		},
		"storageClass number": {
			values: `{"nodeGroups":{"md0":{"minReplicas":0,"maxReplicas":3,"instanceType":"u1.medium","diskSize":"20Gi","roles":["ingress-nginx"],"storageClass":5}}}`,
			// The chart fails the release (schema): at '/nodeGroups/md0/storageClass': got number, want string
			refusals: []string{"InvalidValue nodeGroups.md0.storageClass"},
		},
		"diskSize string 0": {
			values:   `{"nodeGroups":{"md0":{"minReplicas":0,"maxReplicas":3,"instanceType":"u1.medium","diskSize":"0","roles":["ingress-nginx"]}}}`,
			warnings: []string{"InvalidQuantity nodeGroups.md0.diskSize"},
			pools: []chartPool{
				{name: "md0", url: defaultURL, storage: `"0"`, class: `"replicated"`, installer: defaultInstaller},
			},
		},
		"diskSize negative -5": {
			values:   `{"nodeGroups":{"md0":{"minReplicas":0,"maxReplicas":3,"instanceType":"u1.medium","diskSize":-5,"roles":["ingress-nginx"]}}}`,
			warnings: []string{"InvalidQuantity nodeGroups.md0.diskSize"},
			pools: []chartPool{
				{name: "md0", url: defaultURL, storage: `"-5"`, class: `"replicated"`, installer: defaultInstaller},
			},
		},
		"diskSize integer 1000000": {
			values: `{"nodeGroups":{"md0":{"minReplicas":0,"maxReplicas":3,"instanceType":"u1.medium","diskSize":1000000,"roles":["ingress-nginx"]}}}`,
			pools: []chartPool{
				{name: "md0", url: defaultURL, storage: `"1e+06"`, class: `"replicated"`, installer: defaultInstaller},
			},
		},
		"storageClass with spaces": {
			values: `{"nodeGroups":{"md0":{"minReplicas":0,"maxReplicas":3,"instanceType":"u1.medium","diskSize":"20Gi","roles":["ingress-nginx"],"storageClass":" fast "}}}`,
			pools: []chartPool{
				{name: "md0", url: defaultURL, storage: `"20Gi"`, class: `" fast "`, installer: defaultInstaller},
			},
		},
		"roles null": {
			values: `{"nodeGroups":{"md0":{"minReplicas":0,"maxReplicas":3,"instanceType":"u1.medium","diskSize":"20Gi","roles":null},"ing":{"minReplicas":0,"maxReplicas":1,"instanceType":"u1.medium","diskSize":"20Gi","roles":["ingress-nginx"]}}}`,
			// The chart fails the release (schema): at '/nodeGroups/md0/roles': got null, want array
			refusals: []string{"InvalidValue nodeGroups.md0.roles"},
		},
		"maxReplicas 2.5": {
			values: `{"nodeGroups":{"md0":{"minReplicas":0,"maxReplicas":2.5,"instanceType":"u1.medium","diskSize":"20Gi","roles":["ingress-nginx"]}}}`,
			// The chart fails the release (schema): at '/nodeGroups/md0/maxReplicas': got number, want integer
			refusals: []string{"InvalidValue nodeGroups.md0.maxReplicas"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var values map[string]any
			require.NoError(t, yaml.Unmarshal([]byte(tc.values), &values))
			if values == nil {
				values = map[string]any{}
			}
			values["_namespace"] = map[string]any{"etcd": "tenant-root"}
			res, err := computeplane.Plan(values)
			var refusals, warnings []string
			for _, r := range fixtures.Refused(err) {
				refusals = append(refusals, string(r.Reason)+" "+r.Field)
			}
			for _, w := range fixtures.Warned(res.Warnings) {
				warnings = append(warnings, string(w.Reason)+" "+w.Field)
			}
			assert.Equal(t, tc.refusals, refusals, "refusals (%s)", tc.departs)
			assert.Equal(t, tc.warnings, warnings, "warnings (%s)", tc.departs)
			require.Len(t, res.Pools, len(tc.pools))
			for i, want := range tc.pools {
				p := res.Pools[i]
				require.Equal(t, want.name, p.Name)
				doc, err := json.Marshal(p.Values)
				require.NoError(t, err)
				var released map[string]any
				require.NoError(t, yaml.Unmarshal(doc, &released))
				r, err := plan.Plan(plan.DecodePool("tenant-demo", strings.TrimPrefix(p.ReleaseName, "kubernetes-nodes-"), released), nil, nil)
				if want.refused != "" {
					require.Equal(t, []fixtures.Finding{{Reason: guard.Reason(strings.Fields(want.refused)[0]), Field: strings.Fields(want.refused)[1]}}, fixtures.Refused(err), "pool %s", p.Name)
					continue
				}
				require.NoError(t, err, "pool %s", p.Name)
				text, err := helm.DiskText(r, helm.ChartIndent)
				require.NoError(t, err)
				assert.Equal(t, want.chartEntry(), text, "pool %s: the disk-system entry (%s)", p.Name, tc.departs)
				assert.Equal(t, want.installer, r.InstallerImage, "pool %s: the installer image (%s)", p.Name, tc.departs)
			}
		})
	}
}
