package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/adapters/helm"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

// planJSON is the shape of `plan -o json` (SPEC section 8), which tools
// build on: each pool as plan.Result marshals it.
type planJSON struct {
	Pools []plan.Result `json:"pools"`
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
		return writeData(a.stdout, o.output, planJSON{Pools: results})
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
			printRefusals(a.stderr, r.Refusals)
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
			for _, x := range r.Refusals {
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
		n := len(r.Refusals)
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
