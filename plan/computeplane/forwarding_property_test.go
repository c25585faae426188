package computeplane_test

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/adapters/helm"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/internal/size"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/computeplane"
)

// The pre-feature computeplane chart's forwarding of a node group's disk, said
// again in the tests' own words (the charts as measured), so that the property
// compares the pool releases with the chart and not with the package:
// computeplane writes the groups with toYaml into the wrapped kubernetes
// chart's values, which reads them back with fromYaml (a number stays the
// float64 Flux handed Helm), and renders each group's disk-system entry with
//
//	storage: {{ .group.diskSize | default "20Gi" | quote }}
//	{{- with .group.storageClass | default $.Values.storageClass }}
//	storageClassName: {{ . | quote }}
//
// where $.Values.storageClass is the kubernetes chart's replicated. Nothing
// here calls the package or internal/chartvalues.

// wrappedEmpty is sprig's empty, which its default calls: nil, false, a
// zero number, and an empty string, list or map.
func wrappedEmpty(v any) bool {
	r := reflect.ValueOf(v)
	if !r.IsValid() {
		return true
	}
	switch r.Kind() {
	case reflect.String, reflect.Slice, reflect.Map:
		return r.Len() == 0
	case reflect.Bool:
		return !r.Bool()
	case reflect.Float64:
		return r.Float() == 0
	}
	return false
}

// wrappedQuote is sprig's quote of one value: Go's %q of its text, a
// string as it is and anything else as %v prints it (a float64 in the
// shortest digits that read back: 1073741824000 is 1.073741824e+12).
func wrappedQuote(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%q", fmt.Sprintf("%v", v))
}

// wrappedDisk is the storage request and class lines' text the wrapped
// chart renders for a group.
func wrappedDisk(group map[string]any) (storage, class string) {
	storage = `"20Gi"`
	if d := group["diskSize"]; !wrappedEmpty(d) {
		storage = wrappedQuote(d)
	}
	class = `"replicated"`
	if c := group["storageClass"]; !wrappedEmpty(c) {
		class = wrappedQuote(c)
	}
	return storage, class
}

// schemaQuantity is the values schemas' pattern for a size string.
var schemaQuantity = regexp.MustCompile(`^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`)

// sizeWarned is whether the planner warns InvalidQuantity at a group's
// diskSize d that the wrapped chart renders as storage: the values schema
// refuses it (a string off the pattern, a fraction, a boolean), or what
// renders is no positive quantity, or one past 10^1000 (the HTTP path
// gains no refusal). What the template's default reads as unset says
// nothing: it is not forwarded, and the pool chart's 20Gi applies.
func sizeWarned(d any) bool {
	if wrappedEmpty(d) {
		return false
	}
	var text string
	switch x := d.(type) {
	case string:
		if !schemaQuantity.MatchString(x) {
			return true
		}
		text = x
	case float64:
		if x != math.Trunc(x) {
			return true
		}
		if text = strconv.FormatFloat(x, 'f', -1, 64); len(text) > size.MaxLength {
			text = strconv.FormatFloat(x, 'g', -1, 64) // 1e300: the same quantity, within the length parsed
		}
	default:
		return true
	}
	// size.Quantity is resource.ParseQuantity with the library's bound on
	// a magnitude no volume has (its own tests hold it to Kubernetes').
	q, err := size.Quantity(text)
	return err != nil || q.Sign() <= 0
}

// poolSchemaRefuses is whether the kubernetes-nodes chart's values schema
// refuses the diskSize d a group forwards to its pool release: a string off
// the quantity pattern, a fraction, a boolean (what the templates read as
// unset is not forwarded).
func poolSchemaRefuses(d any) bool {
	if wrappedEmpty(d) {
		return false
	}
	switch x := d.(type) {
	case string:
		return !schemaQuantity.MatchString(x)
	case float64:
		return x != math.Trunc(x)
	}
	return true
}

// plannerRefuses are the fields of a group the planner refuses where the
// wrapped chart's template renders (by design: the values cannot be read as
// the pool chart's schema types them): a null where the schemas type a key
// (it survives Helm's coalescing inside a group), a map or list where a
// size belongs, a class that is set, is no string and is not one the
// template's default reads as unset (0, false), a maxReplicas that is no
// whole number. And whether the group may run ingress: not when its roles
// lack ingress-nginx or its maxReplicas is under 1 (an
// omitted one is the pool chart's 10); a refused roles or maxReplicas is
// not guessed at.
func plannerRefuses(name string, group map[string]any) (fields []string, ingress bool) {
	at := func(k string) string { return "nodeGroups." + name + "." + k }
	for _, k := range []string{"diskSize", "storageClass", "maxReplicas", "roles"} {
		if v, set := group[k]; set && v == nil {
			fields = append(fields, at(k))
		}
	}
	switch group["diskSize"].(type) {
	case map[string]any, []any:
		fields = append(fields, at("diskSize"))
	}
	switch c := group["storageClass"].(type) {
	case nil, string:
	case float64, bool:
		if !wrappedEmpty(c) {
			fields = append(fields, at("storageClass"))
		}
	default:
		fields = append(fields, at("storageClass"))
	}
	scales := true
	if m, set := group["maxReplicas"]; set && m != nil {
		f, isNumber := m.(float64)
		switch {
		case !isNumber || f != math.Trunc(f):
			fields = append(fields, at("maxReplicas"))
		case f < 1:
			scales = false
		}
	}
	role := false
	switch r, set := group["roles"]; {
	case set && r == nil:
		role = true // refused: not guessed at
	default:
		roles, _ := r.([]any)
		role = slices.Contains(roles, any("ingress-nginx"))
	}
	return fields, scales && role
}

// fluxGroup draws one node group as a tenant writes it in JSON: a diskSize
// and a storageClass of every kind (numbers Flux hands Helm as float64:
// 1073741824000, 1e21, negatives, fractions, 0), roles and maxReplicas
// that decide ingress. One group in six may hold what the planner refuses
// (a null, a map or list where a size belongs, a class that is a number),
// so that most draws plan and their pools are compared.
func fluxGroup() *rapid.Generator[string] {
	sizes := []string{`"30Gi"`, `""`, `" "`, `"20 Gi"`, `"abc"`, `"0"`, `"-1Gi"`, `"1e3"`, `"+20Gi"`, `"500m"`,
		`0`, `-0`, `20`, `1073741824000`, `21474836480`, `1e21`, `1e300`, `-5`, `1.5`, `0.5`, `-0.5`, `20.0`, `1048576`,
		`true`, `false`}
	classes := []string{`"fast"`, `""`, `" fast "`, `"a\"b\\c"`, `"für-été"`, `"0"`, `0`, `false`}
	replicas := []string{`3`, `1`, `10`, `1e21`, `0`, `-1`}
	roles := []string{`["ingress-nginx"]`, `["ingress-nginx"]`, `["ingress-nginx"]`, `["worker","ingress-nginx"]`, `["worker"]`, `[]`}
	return rapid.Custom(func(t *rapid.T) string {
		if rapid.IntRange(0, 7).Draw(t, "refusable") == 0 {
			sizes = append(slices.Clip(sizes), `null`, `{}`, `[]`, `{"a":1}`, `["20Gi"]`)
			classes = append(slices.Clip(classes), `null`, `5`, `true`, `{}`, `[]`)
			replicas = append(slices.Clip(replicas), `2.5`, `null`)
			roles = append(slices.Clip(roles), `null`)
		}
		var fields []string
		add := func(key string, texts []string) {
			if rapid.IntRange(0, 4).Draw(t, key+" set") > 0 {
				fields = append(fields, fmt.Sprintf("%q:%s", key, rapid.SampledFrom(texts).Draw(t, key)))
			}
		}
		if rapid.IntRange(0, 5).Draw(t, "diskSize kind") == 0 {
			s := rapid.StringOf(rapid.RuneFrom([]rune("0123456789.+-eEKMGTPi m"))).Draw(t, "diskSize text")
			fields = append(fields, fmt.Sprintf(`"diskSize":%q`, s))
		} else {
			add("diskSize", sizes)
		}
		add("storageClass", classes)
		add("maxReplicas", replicas)
		add("roles", roles)
		add("instanceType", []string{`"u1.medium"`, `"u1.large"`})
		order := rapid.Permutation(fields).Draw(t, "order")
		return "{" + strings.Join(order, ",") + "}"
	})
}

// TestPropertyPoolDiskIsTheWrappedChartsDisk: for
// node groups as Flux hands them to Helm, every ComputePlane pool release
// renders, through the pool chart's text (helm.DiskText of its plan, its
// values decoded as Flux decodes its HelmRelease), the disk-system entry
// the pre-feature wrapped chart rendered for that group: the storage
// request as its default and quote print the diskSize, the class its
// default, replicated, for an empty one. The planner refuses only where it
// departs by design (plannerRefuses) or no group can run ingress
// (MissingIngressPool), and warns InvalidQuantity at a group's diskSize
// exactly when sizeWarned says, as the pool release's own plan does; a
// size the kubernetes-nodes values schema refuses, the release's plan
// refuses (poolSchemaRefuses).
func TestPropertyPoolDiskIsTheWrappedChartsDisk(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		names := rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"md0", "md1", "gpu"}), 1, 3, rapid.ID[string]).Draw(t, "groups")
		var members []string
		for _, n := range names {
			members = append(members, fmt.Sprintf("%q:%s", n, fluxGroup().Draw(t, n)))
		}
		doc := `{"_namespace":{"etcd":"tenant-root"},"nodeGroups":{` + strings.Join(members, ",") + `}}`
		var values map[string]any
		if err := yaml.Unmarshal([]byte(doc), &values); err != nil {
			t.Fatalf("Flux cannot decode %s: %v", doc, err)
		}
		groups := values["nodeGroups"].(map[string]any)

		var wantRefused []string
		ingress := false
		for _, n := range names {
			fields, ing := plannerRefuses(n, groups[n].(map[string]any))
			wantRefused = append(wantRefused, fields...)
			ingress = ingress || ing
		}
		if !ingress {
			wantRefused = append(wantRefused, "nodeGroups")
		}
		res, err := computeplane.Plan(values)
		var refused []string
		for _, r := range fixtures.Refused(err) {
			refused = append(refused, r.Field)
		}
		slices.Sort(wantRefused)
		slices.Sort(refused)
		if !slices.Equal(slices.Compact(wantRefused), slices.Compact(refused)) {
			t.Fatalf("%s: refused at %v, want %v (%v)", doc, refused, wantRefused, err)
		}
		if err != nil {
			return
		}

		for _, p := range res.Pools {
			group := groups[p.Name].(map[string]any)
			storage, class := wrappedDisk(group)
			warned := slices.Contains(fixtures.Warned(res.Warnings), fixtures.Finding{Reason: guard.InvalidQuantity, Field: "nodeGroups." + p.Name + ".diskSize"})
			if want := sizeWarned(group["diskSize"]); warned != want {
				t.Fatalf("%s: pool %s renders storage %s; InvalidQuantity warned %v, want %v", doc, p.Name, storage, warned, want)
			}
			released, err := json.Marshal(p.Values)
			if err != nil {
				t.Fatalf("pool %s: %v", p.Name, err)
			}
			var v map[string]any
			if err := yaml.Unmarshal(released, &v); err != nil {
				t.Fatalf("Flux cannot decode pool %s's values %s: %v", p.Name, released, err)
			}
			r, err := plan.Plan(plan.DecodePool("tenant-demo", strings.TrimPrefix(p.ReleaseName, "kubernetes-nodes-"), v), nil, nil)
			if poolSchemaRefuses(group["diskSize"]) {
				// The group's warning says the pool release fails its
				// schema; the release's own plan refuses it so.
				if got := fixtures.Refused(err); !slices.Equal(got, []fixtures.Finding{{Reason: guard.InvalidValue, Field: "diskSize"}}) {
					t.Fatalf("%s: pool %s's release %s: refusals %v, want InvalidValue at diskSize", doc, p.Name, released, got)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s: pool %s's release %s is refused: %v", doc, p.Name, released, err)
			}
			// A value the templates read as unset is not forwarded: the pool
			// release's values schema, which refuses "" and false, never
			// sees it, and its plan warns of its size as the ComputePlane's.
			if poolWarned := slices.Contains(fixtures.Warned(r.Warnings), fixtures.Finding{Reason: guard.InvalidQuantity, Field: "diskSize"}); poolWarned != warned {
				t.Fatalf("%s: pool %s's release %s warns InvalidQuantity at diskSize %v, the ComputePlane %v", doc, p.Name, released, poolWarned, warned)
			}
			text, err := helm.DiskText(r, helm.ChartIndent)
			want := chartPool{url: defaultURL, storage: storage, class: class}.chartEntry()
			if err != nil || text != want {
				t.Fatalf("%s: pool %s (released %s) renders (%v)\n%s\nthe wrapped chart rendered\n%s", doc, p.Name, released, err, text, want)
			}
		}
	})
}
