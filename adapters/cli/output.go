package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/adapters/helm"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

// planReport is the shape of `plan -o json`, which tools
// build on: each pool as plan.Result marshals it, and the run's own
// findings (the catalog's: an UnknownField of its values, a StateUnverified
// of a catalog read back; --strict's refusals of them).
type planReport struct {
	Pools    []plan.Result  `json:"pools"`
	Warnings guard.Warnings `json:"warnings"`
	Refusals guard.Refusals `json:"refusals"`
	// Catalog is where the catalog came from.
	Catalog *catalogSource `json:"catalog,omitempty"`

	// withheld: a planned pool's chart text was not printed (writeChart).
	withheld bool
	// unverified are the planned pools whose plan could not read a kind
	// it needed from the cluster, by index: those kinds.
	unverified map[int]state.Kind
	// notices are the pools' re-image notices, by index (reimageNotice).
	notices map[int]string
	// radii are the pools' blast radii, as text, by index.
	radii map[int]string
	// unseenTemplates, when set, says why no re-image notice could be
	// given: the pools' templates were not read.
	unseenTemplates string
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

func (a *app) writePlan(o *options, rep *planReport, v view) error {
	if rep.Pools == nil {
		rep.Pools = []plan.Result{}
	}
	rep.Catalog = a.catalogFrom
	switch o.output {
	case jsonOut, yamlOut:
		return writeData(a.stdout, o.output, rep.shape())
	}
	a.sayCatalog()
	var summary *offlineSummary
	if v.offline {
		summary = &offlineSummary{}
	}
	var err error
	switch o.output {
	case chartOut:
		a.writeChart(rep, summary)
	case wideOut:
		a.writeWide(rep.Pools, summary, rep.unverified)
	default:
		err = a.writeHuman(rep, summary)
	}
	printWarnings(a.stderr, rep.Warnings, summary)
	printRefusals(a.stderr, rep.Refusals)
	summary.print(a.stderr)
	rep.printUnverified(a.stderr, v)
	if o.output == human && rep.unseenTemplates != "" {
		printf(a.stderr, "note: %s\n", rep.unseenTemplates)
	}
	return err
}

// writeChart prints each planned pool's disk-system entry as the chart's
// text, after "# <namespace>/<name>" when there are several pools. A
// refused pool prints nothing on standard output; its refusals, and every
// pool's warnings, go to standard error. An entry whose text would not
// parse back to exactly its plan (a value that holds YAML syntax or a
// control character, which the HTTP path renders as given) is not printed
// either: no input can add, remove or reorder an entry of the output.
func (a *app) writeChart(rep *planReport, summary *offlineSummary) {
	results := rep.Pools
	for _, r := range results {
		printWarnings(a.stderr, r.Warnings, summary)
		if r.Outcome != plan.Planned {
			printRefusals(a.stderr, r.Refusals)
			continue
		}
		text, ok := chartEntry(r, helm.ChartIndent)
		if !ok || !validNames(r) {
			rep.withheld = true
			printf(a.stderr, "pool %s/%s: not printed: its chart text would not parse back to its plan (a value holds YAML syntax or a control character; see its warnings); plan -o json shows its disk\n", r.Namespace, r.Name)
			continue
		}
		if len(results) > 1 {
			fmt.Fprintf(a.stdout, "# %s/%s\n", r.Namespace, r.Name)
		}
		fmt.Fprint(a.stdout, text)
	}
}

// validNames reports whether a pool's namespace and name are the
// Kubernetes names plan requires of a planned pool (InvalidPoolName
// refuses the others): only they go on a "# <namespace>/<name>" line.
func validNames(r plan.Result) bool {
	return len(validation.IsDNS1123Label(r.Namespace)) == 0 && len(validation.IsDNS1123Subdomain(r.Name)) == 0
}

// chartEntry is r's disk-system entry as the chart's text at indent, and
// whether that text parses back to exactly r's disk: one list item named
// disk-system, with r's annotations, source, request and class.
func chartEntry(r plan.Result, indent int) (string, bool) {
	text, err := helm.DiskText(r, indent)
	if err != nil {
		return "", false
	}
	return text, readsBackAsWritten(r) || parsesBack(r, text)
}

// parsesBack reports whether text parses to exactly r's disk.
func parsesBack(r plan.Result, text string) bool {
	var items []map[string]any
	if err := yaml.Unmarshal([]byte(text), &items); err != nil || len(items) != 1 {
		return false
	}
	data, err := json.Marshal(r)
	if err != nil {
		return false
	}
	var planned struct {
		Disk map[string]any `json:"disk"`
	}
	if err := json.Unmarshal(data, &planned); err != nil {
		return false
	}
	got, err1 := json.Marshal(entryValues(items[0]))
	want, err2 := json.Marshal(entryValues(planned.Disk))
	return err1 == nil && err2 == nil && string(got) == string(want)
}

// readsBackAsWritten reports whether every value helm.DiskText writes for
// r is one YAML reads back as itself, so that the entry parses back to r's
// disk by construction and need not be parsed (the parse costs more than
// the rest of a plan): the values it writes plain (the entry's name, the
// HTTP source's URL, the golden's namespace and name) are plainSafe, and
// those it double-quotes (the annotations, the size, the class) quoteSafe.
// Any other entry is parsed back.
func readsBackAsWritten(r plan.Result) bool {
	d := &r.Disk
	src := d.Spec.Source
	if !plainSafe(d.Name) || !quoteSafe(r.DiskSize) || src == nil {
		return false
	}
	switch {
	case r.Source == plan.HTTP && src.HTTP != nil:
		if !plainSafe(src.HTTP.URL) {
			return false
		}
	case r.Source == plan.Clone && src.PVC != nil:
		if !plainSafe(src.PVC.Namespace) || !plainSafe(src.PVC.Name) {
			return false
		}
	default:
		return false
	}
	for _, v := range d.Annotations {
		if !quoteSafe(v) {
			return false
		}
	}
	if st := d.Spec.Storage; st != nil && st.StorageClassName != nil && !quoteSafe(*st.StorageClassName) {
		return false
	}
	return true
}

// plainSafe reports whether s, written as a plain YAML scalar after a
// key, reads back as the string s: a letter first (so no indicator, number,
// timestamp or .inf), then only letters, digits and . _ / : % + = @ ~ -
// (so no space, hence no ": " or " #", no quote, no flow indicator), not
// ending in ':', and none of the words YAML 1.1 reads as a boolean or null
// (y, n, yes, no, on, off, true, false, null, in any case).
func plainSafe(s string) bool {
	if s == "" || !isLetter(s[0]) || s[len(s)-1] == ':' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !isLetter(c) && (c < '0' || c > '9') && !strings.ContainsRune("._/:%+=@~-", rune(c)) {
			return false
		}
	}
	switch strings.ToLower(s) {
	case "y", "n", "yes", "no", "on", "off", "true", "false", "null":
		return false
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// quoteSafe reports whether s, written double-quoted as strconv.Quote
// writes it, reads back as s: printable ASCII without '"' or '\\', which
// Go leaves as they are and YAML takes literally.
func quoteSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// entryValues is what an entry decides: its name, annotations, source,
// requested size and class.
func entryValues(m map[string]any) []any {
	return []any{
		dig(m, "metadata", "name"),
		dig(m, "metadata", "annotations"),
		dig(m, "spec", "source"),
		dig(m, "spec", "storage", "resources", "requests", "storage"),
		dig(m, "spec", "storage", "storageClassName"),
	}
}

// dig follows keys through nested maps, nil where one is missing.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// humanIndent is where a pool's details start under its first line.
const humanIndent = "  "

// writeHuman prints, per pool, whether it is planned or refused, then its
// warnings, then its disk or its refusals with their fields and ways out;
// then a count.
func (a *app) writeHuman(rep *planReport, summary *offlineSummary) error {
	w, results := a.stdout, rep.Pools
	planned := 0
	for i, r := range results {
		if i > 0 {
			fmt.Fprintln(w)
		}
		head := headline(r, a.classFrom(r))
		if k, ok := rep.unverified[i]; ok {
			head = "unverified (could not read " + strings.ReplaceAll(k.String(), "|", ", ") + "), " + head
		}
		printf(w, "%s/%s: %s\n", r.Namespace, r.Name, head)
		for _, x := range r.Warnings {
			if summary.takes(x) {
				continue
			}
			printf(w, "%swarning %s\n", humanIndent, finding(x.Reason, x.Field, x.Detail, x.Cause))
		}
		if b, ok := rep.radii[i]; ok {
			printf(w, "%sblast radius of golden %s: %s\n", humanIndent, r.Golden, b)
		}
		if n, ok := rep.notices[i]; ok {
			printf(w, "%snotice: %s\n", humanIndent, n)
		}
		if r.Outcome != plan.Planned {
			for _, x := range r.Refusals {
				printf(w, "%srefused %s\n", humanIndent, finding(x.Reason, x.Field, x.Detail, ""))
			}
			continue
		}
		planned++
		printf(w, "%sinstaller image: %s\n", humanIndent, r.InstallerImage)
		text, ok := chartEntry(r, 2*len(humanIndent))
		if !ok {
			printf(w, "%sdataVolumeTemplates: not shown: its chart text would not parse back to its plan (see its warnings, and -o json)\n", humanIndent)
			continue
		}
		fmt.Fprintf(w, "%sdataVolumeTemplates:\n%s", humanIndent, escapeLines(text))
	}
	if n := len(rep.unverified); n > 0 {
		printf(w, "\n%d %s: %d planned, %d unverified, %d refused\n", len(results), plural(len(results), "pool"), planned-n, n, len(results)-planned)
		return nil
	}
	printf(w, "\n%d %s: %d planned, %d refused\n", len(results), plural(len(results), "pool"), planned, len(results)-planned)
	return nil
}

// writeWide prints one line per pool, as kubectl's -o wide: its
// namespace, name, outcome, source, class and where it came from, the
// golden or the URL, and its warnings' and refusals' reasons.
func (a *app) writeWide(results []plan.Result, summary *offlineSummary, unverifiedAt map[int]state.Kind) {
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 3, ' ', 0)
	fmt.Fprintln(tw, "NAMESPACE\tNAME\tOUTCOME\tSOURCE\tSTORAGECLASS\tIMAGE\tWARNINGS\tREFUSALS")
	for i, r := range results {
		class, image := "", ""
		if r.Outcome == plan.Planned {
			class = r.StorageClass.Name + " (" + a.classFrom(r) + ")"
			if r.StorageClass.From == storage.Cluster {
				class = "(cluster default)"
			}
			image = r.Golden
			if src := r.Disk.Spec.Source; r.Source == plan.HTTP && src != nil && src.HTTP != nil {
				image = src.HTTP.URL
			}
		}
		var ws, rs []string
		for _, x := range r.Warnings {
			if !summary.takes(x) && !slices.Contains(ws, string(x.Reason)) {
				ws = append(ws, string(x.Reason))
			}
		}
		for _, x := range r.Refusals {
			if !slices.Contains(rs, string(x.Reason)) {
				rs = append(rs, string(x.Reason))
			}
		}
		outcome := r.Outcome
		if _, ok := unverifiedAt[i]; ok {
			outcome = unverified
		}
		printf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Namespace, r.Name, string(outcome), orDash(string(r.Source)), orDash(class), orDash(image),
			orDash(strings.Join(ws, ",")), orDash(strings.Join(rs, ",")))
	}
	tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// escapeLines escapes each line of text the output prints as lines.
func escapeLines(text string) string {
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		body, nl := strings.CutSuffix(l, "\n")
		lines[i] = escape(body)
		if nl {
			lines[i] += "\n"
		}
	}
	return strings.Join(lines, "")
}

// headline says in a few words what was decided for a pool.
func headline(r plan.Result, classFrom string) string {
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
		fmt.Fprintf(&b, ", on class %q (%s)", sc.Name, classFrom)
	}
	return b.String()
}

// plural is word for n of it: a kind as state.Kind.Plural spells it
// ("2 KubernetesNodes"), any other word with an s ("2 pools").
func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	if k, ok := state.KindByName(word); ok {
		return k.Plural()
	}
	return word + "s"
}

// indentLines prefixes every line of text.
func indentLines(text, pad string) string {
	text = strings.TrimSuffix(text, "\n")
	return pad + strings.ReplaceAll(text, "\n", "\n"+pad)
}

// jsonObject is v as a JSON object's keys and values.
func jsonObject(v any) (map[string]any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	err = json.Unmarshal(data, &m)
	return m, err
}

// writeTable aligns tab-separated rows, as kubectl's tables; the cells are
// escaped already.
func writeTable(w io.Writer, rows string) {
	tw := tabwriter.NewWriter(w, 0, 4, 3, ' ', 0)
	fmt.Fprint(tw, rows)
	tw.Flush()
}

// shape is the report as JSON writes it: an unverified pool's outcome is
// "unverified", the rest of its entry its plan's.
func (rep *planReport) shape() any {
	if len(rep.unverified) == 0 {
		return rep
	}
	pools := make([]any, len(rep.Pools))
	for i, r := range rep.Pools {
		pools[i] = r
		if _, ok := rep.unverified[i]; !ok {
			continue
		}
		if m, err := jsonObject(r); err == nil {
			m["outcome"] = unverified
			pools[i] = m
		}
	}
	return struct {
		Pools    []any          `json:"pools"`
		Warnings guard.Warnings `json:"warnings"`
		Refusals guard.Refusals `json:"refusals"`
		Catalog  *catalogSource `json:"catalog,omitempty"`
	}{pools, rep.Warnings, rep.Refusals, rep.Catalog}
}

// printUnverified says once for the run which kinds the unverified
// plans could not read, and why each.
func (rep *planReport) printUnverified(w io.Writer, v view) {
	var kinds state.Kind
	for _, k := range rep.unverified {
		kinds |= k
	}
	n := len(rep.unverified)
	v.printUnread(w, sprintf("%d %s planned without reading what %s guards need", n, plural(n, "pool"), map[bool]string{true: "its", false: "their"}[n == 1]), kinds)
}
