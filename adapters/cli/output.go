package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/adapters/helm"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

// planJSON is the shape of `plan -o json` (SPEC section 8), which tools
// build on.
type planJSON struct {
	Pools []poolJSON `json:"pools"`
}

// poolJSON is one pool: every key, golden "" on the HTTP path; a refused
// pool has no disk, and only namespace, name, outcome, warnings and
// refusals are meaningful (SPEC section 9).
type poolJSON struct {
	Namespace      string             `json:"namespace"`
	Name           string             `json:"name"`
	Outcome        plan.Outcome       `json:"outcome"`
	Source         plan.Source        `json:"source"`
	Golden         string             `json:"golden"`
	Disk           map[string]any     `json:"disk,omitempty"`
	InstallerImage string             `json:"installerImage"`
	StorageClass   storage.Resolution `json:"storageClass"`
	Warnings       []findingJSON      `json:"warnings"`
	Refusals       []findingJSON      `json:"refusals"`
}

// findingJSON is a warning or a refusal: its message names the pool and
// the way out.
type findingJSON struct {
	Reason  guard.Reason `json:"reason"`
	Field   string       `json:"field"`
	Message string       `json:"message"`
}

func warningsJSON(ws []guard.Warning) []findingJSON {
	out := make([]findingJSON, 0, len(ws))
	for _, w := range ws {
		out = append(out, findingJSON{w.Reason, w.Field, w.Message()})
	}
	return out
}

func refusalsJSON(err error) []findingJSON {
	rs := guard.Refusals(err)
	out := make([]findingJSON, 0, len(rs))
	for _, r := range rs {
		out = append(out, findingJSON{r.Reason, r.Field, r.Message()})
	}
	return out
}

func toPlanJSON(results []plan.Result) planJSON {
	out := planJSON{Pools: make([]poolJSON, 0, len(results))}
	for i := range results {
		r := &results[i]
		p := poolJSON{Namespace: r.Namespace, Name: r.Name, Outcome: r.Outcome, Warnings: warningsJSON(r.Warnings), Refusals: refusalsJSON(r.Err)}
		if r.Outcome == plan.Planned {
			p.Source, p.Golden, p.Disk, p.InstallerImage = r.Source, r.Golden, diskJSON(r), r.InstallerImage
			p.StorageClass = r.StorageClass
		}
		out.Pools = append(out.Pools, p)
	}
	return out
}

// diskJSON is the typed disk with its size as the chart renders it: the
// value as given, which a quantity cannot hold when it is malformed (the
// HTTP path renders it anyway) and would print canonically otherwise.
func diskJSON(r *plan.Result) map[string]any {
	data, err := json.Marshal(&r.Disk)
	var m map[string]any
	if err != nil || json.Unmarshal(data, &m) != nil {
		return nil
	}
	spec, _ := m["spec"].(map[string]any)
	st, _ := spec["storage"].(map[string]any)
	if st == nil || r.DiskSize == "" {
		return m
	}
	res, _ := st["resources"].(map[string]any)
	if res == nil {
		res = map[string]any{}
		st["resources"] = res
	}
	req, _ := res["requests"].(map[string]any)
	if req == nil {
		req = map[string]any{}
		res["requests"] = req
	}
	req["storage"] = r.DiskSize
	return m
}

// writeData writes v as JSON or YAML.
func writeData(w io.Writer, format string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return failed("encode the output: %v", err)
	}
	if format == yamlOut {
		if data, err = yaml.JSONToYAML(data); err != nil {
			return failed("encode the output: %v", err)
		}
		_, err = w.Write(data)
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}

func (a *app) writePlan(o *options, results []plan.Result) error {
	switch o.output {
	case jsonOut, yamlOut:
		return writeData(a.stdout, o.output, toPlanJSON(results))
	case chartOut:
		return a.writeChart(results)
	}
	return a.writeHuman(results)
}

// writeChart prints each planned pool's disk-system entry as the chart's
// text, after "# <namespace>/<name>" when there are several pools. A
// refused pool prints nothing on standard output; its refusals, and every
// pool's warnings, go to standard error.
func (a *app) writeChart(results []plan.Result) error {
	for _, r := range results {
		printWarnings(a.stderr, r.Warnings)
		if r.Outcome != plan.Planned {
			printRefusals(a.stderr, r.Err)
			continue
		}
		text, err := helm.DiskText(r, helm.ChartIndent)
		if err != nil {
			return failed("%s/%s: %v", r.Namespace, r.Name, err)
		}
		if len(results) > 1 {
			fmt.Fprintf(a.stdout, "# %s/%s\n", r.Namespace, r.Name)
		}
		fmt.Fprint(a.stdout, text)
	}
	return nil
}

// humanIndent is where a pool's details start under its first line.
const humanIndent = "  "

// writeHuman prints, per pool, whether it is planned or refused, then its
// warnings, then its disk or its refusals with their fields and ways out;
// then a count.
func (a *app) writeHuman(results []plan.Result) error {
	w := a.stdout
	planned := 0
	for i, r := range results {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s/%s: %s\n", r.Namespace, r.Name, headline(r))
		for _, x := range r.Warnings {
			fmt.Fprintf(w, "%swarning %s\n", humanIndent, finding(x.Reason, x.Field, x.Detail))
		}
		if r.Outcome != plan.Planned {
			for _, x := range guard.Refusals(r.Err) {
				fmt.Fprintf(w, "%srefused %s\n", humanIndent, finding(x.Reason, x.Field, x.Detail))
			}
			continue
		}
		planned++
		fmt.Fprintf(w, "%sinstaller image: %s\n", humanIndent, r.InstallerImage)
		text, err := helm.DiskText(r, 2*len(humanIndent))
		if err != nil {
			return failed("%s/%s: %v", r.Namespace, r.Name, err)
		}
		fmt.Fprintf(w, "%sdataVolumeTemplates:\n%s", humanIndent, text)
	}
	fmt.Fprintf(w, "\n%d %s: %d planned, %d refused\n", len(results), plural(len(results), "pool"), planned, len(results)-planned)
	return nil
}

// headline says in a few words what was decided for a pool.
func headline(r plan.Result) string {
	if r.Outcome != plan.Planned {
		n := len(guard.Refusals(r.Err))
		return fmt.Sprintf("refused (%d %s)", n, plural(n, "refusal"))
	}
	var b strings.Builder
	b.WriteString("planned, ")
	if src := r.Disk.Spec.Source; r.Source == plan.HTTP && src != nil && src.HTTP != nil {
		b.WriteString("HTTP import from " + src.HTTP.URL)
	} else {
		b.WriteString("clone of golden " + r.Golden)
	}
	switch sc := r.StorageClass; sc.From {
	case storage.Cluster:
		b.WriteString(", on the cluster's default class when applied")
	default:
		fmt.Fprintf(&b, ", on class %q (%s)", sc.Name, sc.From)
	}
	return b.String()
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// indentLines prefixes every line of text.
func indentLines(text, pad string) string {
	text = strings.TrimSuffix(text, "\n")
	return pad + strings.ReplaceAll(text, "\n", "\n"+pad)
}
