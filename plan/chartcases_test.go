package plan_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/adapters/helm"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/chartdefaults"
	"github.com/cozystack/kubernetes-worker-image/plan"
)

const defaultInstaller = "factory.talos.dev/installer/" + chartdefaults.SchematicID + ":" + chartdefaults.Version

// chartEntry is the pre-feature kubernetes-nodes chart's disk-system entry
// as it rendered, at its indentation inside the KubevirtMachineTemplate,
// with the text of its three lines that vary: the url, the storage
// request as quoted, and the storageClassName as quoted ("": no line).
func chartEntry(url, storage, class string) string {
	s := `      - metadata:
          name: disk-system
          annotations:
            cdi.kubevirt.io/storage.usePopulator: "false"
        spec:
          source:
            http:
              url: ` + url + `
          storage:
            resources:
              requests:
                storage: ` + storage + "\n"
	if class != "" {
		s += "            storageClassName: " + class + "\n"
	}
	return s
}

// TestMeasuredChart holds the planner to each KubernetesNodes spec measured
// against the pre-feature chart (cozystack/cozystack 3c780acd417f, rendered
// by Helm v4.1.1's engine, the values passed as Flux passes them, the
// release kubernetes-nodes-demo-md0): where the chart rendered, its text
// and its installer image are the expected output, byte for byte; where it
// failed the release (its values schema after Helm's coalescing, or a
// template), the planner refuses at the fields the chart faulted. Each
// spec is read as Flux decodes it (numbers float64), inside a
// KubernetesNodes object as the API machinery decodes one (whole numbers
// int64), and by encoding/json into a PoolSpec. Where the planner plans,
// its warnings are given too. The few cases where the planner departs from
// the chart by design say why. A diskSize the chart's values schema refuses
// ("", off the quantity pattern, a fraction, a boolean) fails the release
// before the template renders it, and the planner refuses it at diskSize.
func TestMeasuredChart(t *testing.T) {
	cases := map[string]struct {
		values string
		// departs says why the planner does otherwise than the chart.
		departs string
		// The chart's lines and installer image where it rendered.
		url, storage, class, installer string
		refusals, warnings             []finding
	}{
		"defaults": {
			values:    `{"cluster":"demo"}`,
			url:       defaultURL,
			storage:   `"20Gi"`,
			class:     `"replicated"`,
			installer: defaultInstaller,
		},
		"diskSize string 20Gi": {
			values:    `{"cluster":"demo","diskSize":"20Gi"}`,
			url:       defaultURL,
			storage:   `"20Gi"`,
			class:     `"replicated"`,
			installer: defaultInstaller,
		},
		"diskSize string 30Gi, storageClass fast": {
			values:    `{"cluster":"demo","diskSize":"30Gi","storageClass":"fast"}`,
			url:       defaultURL,
			storage:   `"30Gi"`,
			class:     `"fast"`,
			installer: defaultInstaller,
		},
		"diskSize integer 20": {
			values:    `{"cluster":"demo","diskSize":20}`,
			url:       defaultURL,
			storage:   `"20"`,
			class:     `"replicated"`,
			installer: defaultInstaller,
		},
		"diskSize integer 21474836480": {
			values:    `{"cluster":"demo","diskSize":21474836480}`,
			url:       defaultURL,
			storage:   `"2.147483648e+10"`,
			class:     `"replicated"`,
			installer: defaultInstaller,
		},
		"diskSize integer 123456": {
			values:    `{"cluster":"demo","diskSize":123456}`,
			url:       defaultURL,
			storage:   `"123456"`,
			class:     `"replicated"`,
			installer: defaultInstaller,
		},
		"diskSize integer 1000000": {
			values:    `{"cluster":"demo","diskSize":1000000}`,
			url:       defaultURL,
			storage:   `"1e+06"`,
			class:     `"replicated"`,
			installer: defaultInstaller,
		},
		"diskSize integer 2^53+1": {
			values:    `{"cluster":"demo","diskSize":9007199254740993}`,
			url:       defaultURL,
			storage:   `"9.007199254740992e+15"`,
			class:     `"replicated"`,
			installer: defaultInstaller,
		},
		"diskSize zero": {
			values:    `{"cluster":"demo","diskSize":0}`,
			url:       defaultURL,
			storage:   `"20Gi"`,
			class:     `"replicated"`,
			installer: defaultInstaller,
		},
		"diskSize negative zero": {
			values:    `{"cluster":"demo","diskSize":-0}`,
			url:       defaultURL,
			storage:   `"20Gi"`,
			class:     `"replicated"`,
			installer: defaultInstaller,
		},
		"diskSize 1.0": {
			values:    `{"cluster":"demo","diskSize":1.0}`,
			url:       defaultURL,
			storage:   `"1"`,
			class:     `"replicated"`,
			installer: defaultInstaller,
		},
		"diskSize negative -5": {
			values:    `{"cluster":"demo","diskSize":-5}`,
			url:       defaultURL,
			storage:   `"-5"`,
			class:     `"replicated"`,
			installer: defaultInstaller,
			warnings:  []finding{f(guard.InvalidQuantity, "diskSize")},
		},
		"diskSize 0.5": {
			values: `{"cluster":"demo","diskSize":0.5}`,
			// The chart fails the release (schema): at '/diskSize': 'anyOf' failed - at '/diskSize': got number, want integer - at '/diskSize': got number, want string
			refusals: []finding{f(guard.InvalidValue, "diskSize")},
		},
		"diskSize 1e21": {
			values:    `{"cluster":"demo","diskSize":1e21}`,
			url:       defaultURL,
			storage:   `"1e+21"`,
			class:     `"replicated"`,
			installer: defaultInstaller,
		},
		"diskSize 1e+300": {
			values:    `{"cluster":"demo","diskSize":1e300}`,
			url:       defaultURL,
			storage:   `"1e+300"`,
			class:     `"replicated"`,
			installer: defaultInstaller,
		},
		"diskSize true": {
			values: `{"cluster":"demo","diskSize":true}`,
			// The chart fails the release (schema): at '/diskSize': 'anyOf' failed - at '/diskSize': got boolean, want integer - at '/diskSize': got boolean, want string
			refusals: []finding{f(guard.InvalidValue, "diskSize")},
		},
		"diskSize false": {
			values: `{"cluster":"demo","diskSize":false}`,
			// The chart fails the release (schema): at '/diskSize': 'anyOf' failed - at '/diskSize': got boolean, want integer - at '/diskSize': got boolean, want string
			refusals: []finding{f(guard.InvalidValue, "diskSize")},
		},
		"diskSize empty string": {
			values: `{"cluster":"demo","diskSize":""}`,
			// The chart fails the release (schema): at '/diskSize': '' does not match pattern <the quantity pattern>
			refusals: []finding{f(guard.InvalidValue, "diskSize")},
		},
		"diskSize null": {
			values:    `{"cluster":"demo","diskSize":null}`,
			url:       defaultURL,
			storage:   `"20Gi"`,
			class:     `"replicated"`,
			installer: defaultInstaller,
		},
		"diskSize absent": {
			values:    `{"cluster":"demo"}`,
			url:       defaultURL,
			storage:   `"20Gi"`,
			class:     `"replicated"`,
			installer: defaultInstaller,
		},
		"diskSize string 1e3": {
			values:    `{"cluster":"demo","diskSize":"1e3"}`,
			url:       defaultURL,
			storage:   `"1e3"`,
			class:     `"replicated"`,
			installer: defaultInstaller,
		},
		"diskSize string +20Gi": {
			values:    `{"cluster":"demo","diskSize":"+20Gi"}`,
			url:       defaultURL,
			storage:   `"+20Gi"`,
			class:     `"replicated"`,
			installer: defaultInstaller,
		},
		"diskSize string 0": {
			values:    `{"cluster":"demo","diskSize":"0"}`,
			url:       defaultURL,
			storage:   `"0"`,
			class:     `"replicated"`,
			installer: defaultInstaller,
			warnings:  []finding{f(guard.InvalidQuantity, "diskSize")},
		},
		"diskSize string -1Gi": {
			values:    `{"cluster":"demo","diskSize":"-1Gi"}`,
			url:       defaultURL,
			storage:   `"-1Gi"`,
			class:     `"replicated"`,
			installer: defaultInstaller,
			warnings:  []finding{f(guard.InvalidQuantity, "diskSize")},
		},
		"diskSize string with space": {
			values: `{"cluster":"demo","diskSize":"20 Gi"}`,
			// The chart fails the release (schema): at '/diskSize': '20 Gi' does not match pattern <the quantity pattern>
			refusals: []finding{f(guard.InvalidValue, "diskSize")},
		},
		"diskSize string abc": {
			values: `{"cluster":"demo","diskSize":"abc"}`,
			// The chart fails the release (schema): at '/diskSize': 'abc' does not match pattern <the quantity pattern>
			refusals: []finding{f(guard.InvalidValue, "diskSize")},
		},
		"diskSize list": {
			values: `{"cluster":"demo","diskSize":[]}`,
			// The chart fails the release (schema): at '/diskSize': 'anyOf' failed - at '/diskSize': got array, want integer - at '/diskSize': got array, want string
			refusals: []finding{f(guard.InvalidValue, "diskSize")},
		},
		"storageClass empty": {
			values:    `{"cluster":"demo","storageClass":""}`,
			url:       defaultURL,
			storage:   `"20Gi"`,
			installer: defaultInstaller,
		},
		"storageClass null": {
			values:    `{"cluster":"demo","storageClass":null}`,
			url:       defaultURL,
			storage:   `"20Gi"`,
			installer: defaultInstaller,
		},
		"storageClass number 5": {
			values: `{"cluster":"demo","storageClass":5}`,
			// The chart fails the release (schema): at '/storageClass': got number, want string
			refusals: []finding{f(guard.InvalidValue, "storageClass")},
		},
		"storageClass number 0": {
			values: `{"cluster":"demo","storageClass":0}`,
			// The chart fails the release (schema): at '/storageClass': got number, want string
			refusals: []finding{f(guard.InvalidValue, "storageClass")},
		},
		"storageClass true": {
			values: `{"cluster":"demo","storageClass":true}`,
			// The chart fails the release (schema): at '/storageClass': got boolean, want string
			refusals: []finding{f(guard.InvalidValue, "storageClass")},
		},
		"storageClass with quote and backslash": {
			values:    `{"cluster":"demo","storageClass":"a\"b\\c"}`,
			url:       defaultURL,
			storage:   `"20Gi"`,
			class:     `"a\"b\\c"`,
			installer: defaultInstaller,
		},
		"storageClass unicode": {
			values:    `{"cluster":"demo","storageClass":"für-été"}`,
			url:       defaultURL,
			storage:   `"20Gi"`,
			class:     `"für-été"`,
			installer: defaultInstaller,
		},
		"storageClass surrounding spaces": {
			values:    `{"cluster":"demo","storageClass":" fast "}`,
			url:       defaultURL,
			storage:   `"20Gi"`,
			class:     `" fast "`,
			installer: defaultInstaller,
		},
		"storageClass newline": {
			values:    `{"cluster":"demo","storageClass":"a\nb"}`,
			url:       defaultURL,
			storage:   `"20Gi"`,
			class:     `"a\nb"`,
			installer: defaultInstaller,
		},
		"storageClass tab and control": {
			values:    `{"cluster":"demo","storageClass":"a\tb\u0001"}`,
			url:       defaultURL,
			storage:   `"20Gi"`,
			class:     `"a\tb\x01"`,
			installer: defaultInstaller,
		},
		"talos null": {
			values: `{"cluster":"demo","talos":null}`,
			// The chart fails the release (render): kubernetes-nodes/templates/talos-reconcile-job.yaml:378:22 executing "kubernetes-nodes/templates/talos-reconcile-job.yaml" at <$.Values.talos.version>: nil pointer evaluating interface {}.version
			refusals: []finding{f(guard.InvalidValue, "talos")},
		},
		"talos empty map": {
			values:    `{"cluster":"demo","talos":{}}`,
			url:       defaultURL,
			storage:   `"20Gi"`,
			class:     `"replicated"`,
			installer: defaultInstaller,
		},
		"talos a string": {
			values: `{"cluster":"demo","talos":"v1.13.6"}`,
			// The chart fails the release (schema): at '/talos': got string, want object
			refusals: []finding{f(guard.InvalidValue, "talos")},
		},
		"imageFactoryURL trailing slash": {
			values:    `{"cluster":"demo","talos":{"imageFactoryURL":"https://mirror.example/"}}`,
			url:       "https://mirror.example/image/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515/v1.13.6/openstack-amd64.raw.xz",
			storage:   `"20Gi"`,
			class:     `"replicated"`,
			installer: defaultInstaller,
		},
		"imageFactoryURL two trailing slashes": {
			values:    `{"cluster":"demo","talos":{"imageFactoryURL":"https://mirror.example//"}}`,
			url:       "https://mirror.example//image/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515/v1.13.6/openstack-amd64.raw.xz",
			storage:   `"20Gi"`,
			class:     `"replicated"`,
			installer: defaultInstaller,
		},
		"imageFactoryURL with path and port, trailing slash": {
			values:    `{"cluster":"demo","talos":{"imageFactoryURL":"http://mirror.example:8080/talos/"}}`,
			url:       "http://mirror.example:8080/talos/image/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515/v1.13.6/openstack-amd64.raw.xz",
			storage:   `"20Gi"`,
			class:     `"replicated"`,
			installer: defaultInstaller,
		},
		"imageFactoryURL empty": {
			values:    `{"cluster":"demo","talos":{"imageFactoryURL":""}}`,
			url:       "/image/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515/v1.13.6/openstack-amd64.raw.xz",
			storage:   `"20Gi"`,
			class:     `"replicated"`,
			installer: defaultInstaller,
			warnings:  []finding{f(guard.InvalidImageFactoryURL, "talos.imageFactoryURL")},
		},
		"imageFactoryURL null": {
			values: `{"cluster":"demo","talos":{"imageFactoryURL":null}}`,
			// The chart fails the release (schema): at '/talos': missing property 'imageFactoryURL'
			refusals: []finding{f(guard.InvalidValue, "talos.imageFactoryURL")},
		},
		"imageFactoryURL number": {
			values: `{"cluster":"demo","talos":{"imageFactoryURL":5}}`,
			// The chart fails the release (schema): at '/talos/imageFactoryURL': got number, want string
			refusals: []finding{f(guard.InvalidValue, "talos.imageFactoryURL")},
		},
		"imageFactoryURL trailing space": {
			values:    `{"cluster":"demo","talos":{"imageFactoryURL":"https://mirror.example/ "}}`,
			url:       "https://mirror.example/ /image/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515/v1.13.6/openstack-amd64.raw.xz",
			storage:   `"20Gi"`,
			class:     `"replicated"`,
			installer: defaultInstaller,
			warnings:  []finding{f(guard.InvalidImageFactoryURL, "talos.imageFactoryURL")},
		},
		"imageFactoryURL leading space": {
			values:    `{"cluster":"demo","talos":{"imageFactoryURL":" https://mirror.example"}}`,
			url:       " https://mirror.example/image/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515/v1.13.6/openstack-amd64.raw.xz",
			storage:   `"20Gi"`,
			class:     `"replicated"`,
			installer: defaultInstaller,
			warnings:  []finding{f(guard.InvalidImageFactoryURL, "talos.imageFactoryURL")},
		},
		"imageFactoryURL hash no space": {
			values:    `{"cluster":"demo","talos":{"imageFactoryURL":"https://mirror.example/#x"}}`,
			url:       "https://mirror.example/#x/image/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515/v1.13.6/openstack-amd64.raw.xz",
			storage:   `"20Gi"`,
			class:     `"replicated"`,
			installer: defaultInstaller,
			warnings:  []finding{f(guard.InvalidImageFactoryURL, "talos.imageFactoryURL")},
		},
		"imageFactoryURL space-hash (YAML comment)": {
			values:    `{"cluster":"demo","talos":{"imageFactoryURL":"https://mirror.example #x"}}`,
			url:       "https://mirror.example #x/image/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515/v1.13.6/openstack-amd64.raw.xz",
			storage:   `"20Gi"`,
			class:     `"replicated"`,
			installer: defaultInstaller,
			warnings:  []finding{f(guard.InvalidImageFactoryURL, "talos.imageFactoryURL")},
		},
		"imageFactoryURL colon-space (YAML breaks)": {
			values:    `{"cluster":"demo","talos":{"imageFactoryURL":"https://mirror.example: x"}}`,
			url:       "https://mirror.example: x/image/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515/v1.13.6/openstack-amd64.raw.xz",
			storage:   `"20Gi"`,
			class:     `"replicated"`,
			installer: defaultInstaller,
			warnings:  []finding{f(guard.InvalidImageFactoryURL, "talos.imageFactoryURL")},
		},
		"imageFactoryURL query": {
			values:    `{"cluster":"demo","talos":{"imageFactoryURL":"https://mirror.example/?a=1"}}`,
			url:       "https://mirror.example/?a=1/image/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515/v1.13.6/openstack-amd64.raw.xz",
			storage:   `"20Gi"`,
			class:     `"replicated"`,
			installer: defaultInstaller,
			warnings:  []finding{f(guard.InvalidImageFactoryURL, "talos.imageFactoryURL")},
		},
		"schematicID empty": {
			values:    `{"cluster":"demo","talos":{"schematicID":""}}`,
			url:       "https://factory.talos.dev/image//v1.13.6/openstack-amd64.raw.xz",
			storage:   `"20Gi"`,
			class:     `"replicated"`,
			installer: "factory.talos.dev/installer/:v1.13.6",
			warnings:  []finding{f(guard.InvalidSchematicID, "talos.schematicID")},
		},
		"schematicID uppercase": {
			values:    `{"cluster":"demo","talos":{"schematicID":"ABC123"}}`,
			url:       "https://factory.talos.dev/image/ABC123/v1.13.6/openstack-amd64.raw.xz",
			storage:   `"20Gi"`,
			class:     `"replicated"`,
			installer: "factory.talos.dev/installer/ABC123:v1.13.6",
			warnings:  []finding{f(guard.InvalidSchematicID, "talos.schematicID")},
		},
		"schematicID number": {
			values: `{"cluster":"demo","talos":{"schematicID":123}}`,
			// The chart fails the release (schema): at '/talos/schematicID': got number, want string
			refusals: []finding{f(guard.InvalidValue, "talos.schematicID")},
		},
		"schematicID null": {
			values: `{"cluster":"demo","talos":{"schematicID":null}}`,
			// The chart fails the release (schema): at '/talos': missing property 'schematicID'
			refusals: []finding{f(guard.InvalidValue, "talos.schematicID")},
		},
		"version v1.12.0 (outside the support matrix)": {
			values:    `{"cluster":"demo","talos":{"version":"v1.12.0"}}`,
			url:       "https://factory.talos.dev/image/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515/v1.12.0/openstack-amd64.raw.xz",
			storage:   `"20Gi"`,
			class:     `"replicated"`,
			installer: "factory.talos.dev/installer/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515:v1.12.0",
		},
		"version v1.13.0-beta.1": {
			values:    `{"cluster":"demo","talos":{"version":"v1.13.0-beta.1"}}`,
			url:       "https://factory.talos.dev/image/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515/v1.13.0-beta.1/openstack-amd64.raw.xz",
			storage:   `"20Gi"`,
			class:     `"replicated"`,
			installer: "factory.talos.dev/installer/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515:v1.13.0-beta.1",
			warnings:  []finding{f(guard.InvalidVersion, "talos.version")},
		},
		"version without v": {
			values:    `{"cluster":"demo","talos":{"version":"1.13.6"}}`,
			url:       "https://factory.talos.dev/image/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515/1.13.6/openstack-amd64.raw.xz",
			storage:   `"20Gi"`,
			class:     `"replicated"`,
			installer: "factory.talos.dev/installer/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515:1.13.6",
			warnings:  []finding{f(guard.InvalidVersion, "talos.version")},
		},
		"version empty": {
			values:    `{"cluster":"demo","talos":{"version":""}}`,
			url:       "https://factory.talos.dev/image/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515//openstack-amd64.raw.xz",
			storage:   `"20Gi"`,
			class:     `"replicated"`,
			installer: "factory.talos.dev/installer/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515:",
			warnings:  []finding{f(guard.InvalidVersion, "talos.version")},
		},
		"version number": {
			values: `{"cluster":"demo","talos":{"version":1.13}}`,
			// The chart fails the release (schema): at '/talos/version': got number, want string
			refusals: []finding{f(guard.InvalidValue, "talos.version")},
		},
		"kubernetes version outside the matrix": {
			values: `{"cluster":"demo","version":"v1.30"}`,
			// The chart fails the release (schema): at '/version': value must be one of 'v1.35', 'v1.34', 'v1.33', 'v1.32', 'v1.31'
			departs:   "the planner does not read the Kubernetes version, whose enum moves with every chart release",
			url:       defaultURL,
			storage:   `"20Gi"`,
			class:     `"replicated"`,
			installer: defaultInstaller,
		},
		"installerRepository trailing slash": {
			values:    `{"cluster":"demo","talos":{"installerRepository":"registry.example/talos/installer/"}}`,
			url:       defaultURL,
			storage:   `"20Gi"`,
			class:     `"replicated"`,
			installer: "registry.example/talos/installer/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515:v1.13.6",
		},
		"installerRepository two trailing slashes": {
			values:    `{"cluster":"demo","talos":{"installerRepository":"registry.example/installer//"}}`,
			url:       defaultURL,
			storage:   `"20Gi"`,
			class:     `"replicated"`,
			installer: "registry.example/installer//ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515:v1.13.6",
		},
		"installerRepository empty": {
			values:    `{"cluster":"demo","talos":{"installerRepository":""}}`,
			url:       defaultURL,
			storage:   `"20Gi"`,
			class:     `"replicated"`,
			installer: "/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515:v1.13.6",
		},
		"installerRepository with $ and backtick": {
			values:    "{\"cluster\":\"demo\",\"talos\":{\"installerRepository\":\"registry.example/$HOME/`x`\"}}",
			url:       defaultURL,
			storage:   `"20Gi"`,
			class:     `"replicated"`,
			installer: "registry.example/$HOME/`x`/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515:v1.13.6",
		},
		"installerRepository with backslash": {
			values:    `{"cluster":"demo","talos":{"installerRepository":"registry.example\\installer"}}`,
			url:       defaultURL,
			storage:   `"20Gi"`,
			class:     `"replicated"`,
			installer: "registry.example\\installer/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515:v1.13.6",
		},
		"installerRepository null": {
			values: `{"cluster":"demo","talos":{"installerRepository":null}}`,
			// The chart fails the release (schema): at '/talos': missing property 'installerRepository'
			refusals: []finding{f(guard.InvalidValue, "talos.installerRepository")},
		},
		"installerRepository number": {
			values: `{"cluster":"demo","talos":{"installerRepository":5}}`,
			// The chart fails the release (schema): at '/talos/installerRepository': got number, want string
			refusals: []finding{f(guard.InvalidValue, "talos.installerRepository")},
		},
		"schematicID with $ (installer escaping)": {
			values:    `{"cluster":"demo","talos":{"schematicID":"ab$c"}}`,
			url:       "https://factory.talos.dev/image/ab$c/v1.13.6/openstack-amd64.raw.xz",
			storage:   `"20Gi"`,
			class:     `"replicated"`,
			installer: "factory.talos.dev/installer/ab$c:v1.13.6",
			warnings:  []finding{f(guard.InvalidSchematicID, "talos.schematicID")},
		},
		"osImage.factory empty (unknown to the chart)": {
			values:    `{"cluster":"demo","osImage":{"factory":{}}}`,
			url:       defaultURL,
			storage:   `"20Gi"`,
			class:     `"replicated"`,
			installer: defaultInstaller,
		},
		"osImage.factory full override (unknown to the chart)": {
			values:    `{"cluster":"demo","osImage":{"factory":{"imageFactoryURL":"https://mirror.example/","schematicID":"abc123","version":"v1.13.5"}}}`,
			departs:   "the factory override is the feature: the pre-feature chart ignores osImage and renders the defaults; the text is the chart's for the same values under talos.*",
			url:       "https://mirror.example/image/abc123/v1.13.5/openstack-amd64.raw.xz",
			storage:   `"20Gi"`,
			class:     `"replicated"`,
			installer: "factory.talos.dev/installer/abc123:v1.13.5",
		},
		"osImage.builtin (unknown to the chart)": {
			values:   `{"cluster":"demo","osImage":{"builtin":{}}}`,
			departs:  "cloning is the feature: the pre-feature chart ignores osImage and renders the defaults; without a catalog there is no golden to clone",
			refusals: []finding{f(guard.GoldenNotInCatalog, "osImage.builtin")},
		},
		"osImage null": {
			values:    `{"cluster":"demo","osImage":null}`,
			url:       defaultURL,
			storage:   `"20Gi"`,
			class:     `"replicated"`,
			installer: defaultInstaller,
		},
		"cluster absent": {
			values: "{}",
			// The chart fails the release (render): execution error at (kubernetes-nodes/templates/talos-reconcile-job.yaml:28:20): kubernetes-nodes: .Values.cluster is required — set it to the parent Kubernetes CR name so the pool attaches to cluster kubernetes-<cluster>
			refusals: []finding{f(guard.InvalidPoolName, "cluster")},
		},
		"cluster empty": {
			values: `{"cluster":""}`,
			// The chart fails the release (render): execution error at (kubernetes-nodes/templates/talos-reconcile-job.yaml:28:20): kubernetes-nodes: .Values.cluster is required — set it to the parent Kubernetes CR name so the pool attaches to cluster kubernetes-<cluster>
			refusals: []finding{f(guard.InvalidPoolName, "cluster")},
		},
		"resources with cpu only (chart refuses)": {
			values: `{"cluster":"demo","resources":{"cpu":"2"}}`,
			// The chart fails the release (render): execution error at (kubernetes-nodes/templates/nodegroup.yaml:220:6): nodeGroup md0: set both resources.cpu and resources.memory, or neither
			departs:   "the planner does not read a pool's resources, which are not the disk's",
			url:       defaultURL,
			storage:   `"20Gi"`,
			class:     `"replicated"`,
			installer: defaultInstaller,
		},
		"diskSize integer 1234567": {
			values:    `{"cluster":"demo","diskSize":1234567}`,
			url:       defaultURL,
			storage:   `"1.234567e+06"`,
			class:     `"replicated"`,
			installer: defaultInstaller,
		},
		"diskSize 20.0 (a whole float)": {
			values:    `{"cluster":"demo","diskSize":20.0}`,
			url:       defaultURL,
			storage:   `"20"`,
			class:     `"replicated"`,
			installer: defaultInstaller,
		},
		"talos partial override (version only)": {
			values:    `{"cluster":"demo","talos":{"version":"v1.13.5"}}`,
			url:       "https://factory.talos.dev/image/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515/v1.13.5/openstack-amd64.raw.xz",
			storage:   `"20Gi"`,
			class:     `"replicated"`,
			installer: "factory.talos.dev/installer/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515:v1.13.5",
		},
		"imageFactoryURL with newline": {
			values:    `{"cluster":"demo","talos":{"imageFactoryURL":"https://mirror.example\nx: y"}}`,
			url:       "https://mirror.example\nx: y/image/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515/v1.13.6/openstack-amd64.raw.xz",
			storage:   `"20Gi"`,
			class:     `"replicated"`,
			installer: defaultInstaller,
			warnings:  []finding{f(guard.InvalidImageFactoryURL, "talos.imageFactoryURL")},
		},
		"version with newline": {
			values:    `{"cluster":"demo","talos":{"version":"v1.13.6\n"}}`,
			url:       "https://factory.talos.dev/image/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515/v1.13.6\n/openstack-amd64.raw.xz",
			storage:   `"20Gi"`,
			class:     `"replicated"`,
			installer: "factory.talos.dev/installer/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515:v1.13.6\n",
			warnings:  []finding{f(guard.InvalidVersion, "talos.version")},
		},
		"imageFactoryURL unicode host": {
			values:    `{"cluster":"demo","talos":{"imageFactoryURL":"https://fäctory.example"}}`,
			url:       "https://fäctory.example/image/ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515/v1.13.6/openstack-amd64.raw.xz",
			storage:   `"20Gi"`,
			class:     `"replicated"`,
			installer: defaultInstaller,
		},
		"cluster a number": {
			values: `{"cluster":5}`,
			// The chart fails the release (schema): at '/cluster': got number, want string
			refusals: []finding{f(guard.InvalidValue, "cluster"), f(guard.InvalidPoolName, "cluster")},
		},
		"all talos values with trailing slashes and a class": {
			values:    `{"cluster":"demo","storageClass":"fast","diskSize":"50Gi","talos":{"imageFactoryURL":"https://mirror.example/","installerRepository":"mirror.example/installer/","schematicID":"abc123","version":"v1.13.5"}}`,
			url:       "https://mirror.example/image/abc123/v1.13.5/openstack-amd64.raw.xz",
			storage:   `"50Gi"`,
			class:     `"fast"`,
			installer: "mirror.example/installer/abc123:v1.13.5",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			for path, pool := range measuredPools(t, tc.values) {
				res, err := plan.Plan(pool, nil, nil)
				assert.Equal(t, sortFindings(tc.refusals), refusalsOf(err), "%s: refusals (%s)", path, tc.departs)
				if tc.refusals != nil {
					continue
				}
				assert.Equal(t, sortFindings(tc.warnings), warningsOf(res.Warnings), "%s: warnings (%s)", path, tc.departs)
				text, err := helm.DiskText(res, helm.ChartIndent)
				require.NoError(t, err, path)
				assert.Equal(t, chartEntry(tc.url, tc.storage, tc.class), text, "%s: the disk-system entry (%s)", path, tc.departs)
				assert.Equal(t, tc.installer, res.InstallerImage, "%s: the installer image (%s)", path, tc.departs)
			}
		})
	}
}

// measuredPools reads the spec doc, JSON as written, into the pool
// tenant-demo/demo-md0 as Flux decodes it, inside a KubernetesNodes object
// as the API machinery decodes one, and by encoding/json.
func measuredPools(t *testing.T, doc string) map[string]plan.Pool {
	t.Helper()
	var values map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(doc), &values))
	var obj map[string]any
	require.NoError(t, utiljson.Unmarshal([]byte(`{"apiVersion":"apps.cozystack.io/v1alpha1","kind":"KubernetesNodes",`+
		`"metadata":{"namespace":"tenant-demo","name":"demo-md0"},"spec":`+doc+`}`), &obj))
	fromObject, err := plan.PoolFromObject(obj)
	require.NoError(t, err)
	var spec plan.PoolSpec
	_ = json.Unmarshal([]byte(doc), &spec) // its error is the refusals Plan reports
	return map[string]plan.Pool{
		"as Flux decodes it": plan.DecodePool("tenant-demo", "demo-md0", values),
		"a KubernetesNodes":  fromObject,
		"encoding/json":      {Namespace: "tenant-demo", Name: "demo-md0", Spec: spec},
	}
}
