package invariants_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/computeplane"
	"github.com/cozystack/kubernetes-worker-image/plan/plantest"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// severity is how a finding is emitted: as a refusal or as a warning.
type severity string

const (
	refuses severity = "refusal"
	warns   severity = "warning"
)

// documented reads the Refusals and Warnings tables of docs/rules.md: the reasons
// each lists in its first column. A reason may be in both (InvalidQuantity
// refuses a clone and warns on the HTTP path); the rows say when.
func documented(t *testing.T) map[severity][]guard.Reason {
	t.Helper()
	data, err := os.ReadFile("../../docs/rules.md")
	if err != nil {
		t.Fatal(err)
	}
	out := map[severity][]guard.Reason{}
	var in severity
	cell := regexp.MustCompile("`([A-Za-z]+)`")
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case line == "## Refusals":
			in = refuses
		case line == "## Warnings":
			in = warns
		case strings.HasPrefix(line, "#"):
			in = ""
		case in != "" && strings.HasPrefix(line, "| `"):
			first := strings.Split(line, "|")[1]
			for _, m := range cell.FindAllStringSubmatch(first, -1) {
				out[in] = append(out[in], guard.Reason(m[1]))
			}
		}
	}
	if len(out[refuses]) < 20 || len(out[warns]) < 8 {
		t.Fatalf("read %d refusals and %d warnings from the tables of docs/rules.md; the parse missed some", len(out[refuses]), len(out[warns]))
	}
	return out
}

// emitSite is one place in the module's code that makes a finding of a
// reason named by its constant.
type emitSite struct {
	reason guard.Reason
	as     severity
	pos    string
}

// emitSites finds, in every non-test Go file of the module, the findings
// made with a reason constant: Collector.Refuse and Warn, findings.NewRefusal
// and NewWarning, and guard.Refusal and guard.Warning literals. A finding
// whose reason is a variable (a validator's refusals turned into warnings,
// --strict turning warnings into refusals) is not here: the properties
// below meet those as they are emitted.
func emitSites(t *testing.T) []emitSite {
	t.Helper()
	var sites []emitSite
	fset := token.NewFileSet()
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != "../.." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			add := func(e ast.Expr, as severity) {
				if r, ok := reasonConstant(e); ok {
					sites = append(sites, emitSite{r, as, fset.Position(e.Pos()).String()})
				}
			}
			switch n := n.(type) {
			case *ast.CallExpr:
				sel, ok := n.Fun.(*ast.SelectorExpr)
				if !ok || len(n.Args) == 0 {
					return true
				}
				switch sel.Sel.Name {
				case "Refuse", "NewRefusal":
					add(n.Args[0], refuses)
				case "Warn", "NewWarning":
					add(n.Args[0], warns)
				}
			case *ast.CompositeLit:
				as := map[string]severity{"Refusal": refuses, "Warning": warns}[typeName(n.Type)]
				if as == "" {
					return true
				}
				for _, el := range n.Elts {
					if kv, ok := el.(*ast.KeyValueExpr); ok {
						if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Reason" {
							add(kv.Value, as)
						}
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(sites) < 60 {
		t.Fatalf("found %d places that make a finding; the walk missed some", len(sites))
	}
	return sites
}

// reasonConstant reads guard.X.
func reasonConstant(e ast.Expr) (guard.Reason, bool) {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return "", false
	}
	if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "guard" {
		return "", false
	}
	return guard.Reason(sel.Sel.Name), true
}

// typeName is the name of guard.Refusal or guard.Warning in a literal's
// type, "" for another type.
func typeName(e ast.Expr) string {
	if sel, ok := e.(*ast.SelectorExpr); ok {
		if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "guard" {
			return sel.Sel.Name
		}
	}
	return ""
}

// TestSeverityAsDocumented: every reason is emitted only with a severity
// the rules tables of docs/rules.md give it. Every place in the code that makes a
// finding of a named reason is read (so none is missed for want of a test
// reaching it), and the plans, catalog renders and ComputePlane plans of
// drawn scenarios are checked as emitted, which also meets the findings
// whose severity is set at run time (the HTTP path's factory values, which
// only warn). Every reason constant is documented, and every documented
// reason is one.
func TestSeverityAsDocumented(t *testing.T) {
	docs := documented(t)
	ok := func(r guard.Reason, as severity) bool { return slices.Contains(docs[as], r) }

	for _, s := range emitSites(t) {
		if !ok(s.reason, s.as) {
			t.Errorf("%s: %s is made as a %s; the %s table of docs/rules.md does not list it", s.pos, s.reason, s.as, s.as)
		}
	}
	for _, as := range []severity{refuses, warns} {
		for _, r := range docs[as] {
			if !slices.Contains(reasonConstantsOfGuard(t), r) {
				t.Errorf("the %s table of docs/rules.md lists %s, which is no guard constant", as, r)
			}
		}
	}
	for _, r := range reasonConstantsOfGuard(t) {
		if !ok(r, refuses) && !ok(r, warns) {
			t.Errorf("%s is in neither table of docs/rules.md", r)
		}
	}

	if t.Failed() {
		return
	}
	rapid.Check(t, func(rt *rapid.T) {
		s := plantest.Scenarios(plantest.Options{Inconsistent: rapid.Bool().Draw(rt, "inconsistent")}).Draw(rt, "scenario")
		check := func(what string, rs guard.Refusals, ws guard.Warnings) {
			for _, r := range rs {
				if !ok(r.Reason, refuses) {
					rt.Fatalf("%s refuses %s, which docs/rules.md lists only as a warning: %v", what, r.Reason, r)
				}
			}
			for _, w := range ws {
				if !ok(w.Reason, warns) {
					rt.Fatalf("%s warns %s, which docs/rules.md lists only as a refusal: %v", what, w.Reason, w)
				}
			}
		}
		cat, snap := catalog.Compile(s.Catalog), state.NewSnapshot(s.State)
		for _, res := range plan.PlanAll(s.Pools, cat, snap) {
			check("a plan", res.Refusals, res.Warnings)
		}
		check("the catalog", cat.Refusals(), cat.Warnings())
		if r, err := catalog.Render(cat, snap); err == nil || len(r.Refusals) > 0 {
			check("a catalog render", r.Refusals, r.Warnings)
		}
	})

	// ComputePlane values that reach each of its findings, and values
	// that reach none.
	for name, values := range map[string]map[string]any{
		"dropped fields, no etcd": {"_namespace": map[string]any{"etcd": ""},
			"nodeGroups": map[string]any{"md0": map[string]any{"roles": []any{"ingress-nginx"}, "osImage": map[string]any{}, "talos": map[string]any{}}}},
		"no ingress pool, half resources": {"_namespace": map[string]any{"etcd": "tenant-root"},
			"nodeGroups": map[string]any{"md0": map[string]any{"resources": map[string]any{"cpu": "2"}}}},
		"a key too long, one not a label": {"_namespace": map[string]any{"etcd": "tenant-root"},
			"nodeGroups": map[string]any{"a-very-long-pool-name": map[string]any{"roles": []any{"ingress-nginx"}}, "Md_1": map[string]any{}}},
		"bad sizes": {"_namespace": map[string]any{"etcd": "tenant-root"},
			"nodeGroups": map[string]any{"md0": map[string]any{"roles": []any{"ingress-nginx"}, "diskSize": "lots", "resources": map[string]any{"cpu": "x", "memory": "1Gi"}}}},
		"no _namespace": {},
		"defaults":      {"_namespace": map[string]any{"etcd": "tenant-root"}},
	} {
		res, _ := computeplane.Plan(values)
		for _, r := range res.Refusals {
			if !ok(r.Reason, refuses) {
				t.Errorf("ComputePlane %s: refuses %s, which docs/rules.md lists only as a warning", name, r.Reason)
			}
		}
		for _, w := range res.Warnings {
			if !ok(w.Reason, warns) {
				t.Errorf("ComputePlane %s: warns %s, which docs/rules.md lists only as a refusal", name, w.Reason)
			}
		}
	}
}

// reasonConstantsOfGuard lists the Reason constants package guard declares.
func reasonConstantsOfGuard(t *testing.T) []guard.Reason {
	t.Helper()
	files, err := filepath.Glob("../../guard/*.go")
	if err != nil {
		t.Fatal(err)
	}
	var out []guard.Reason
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				v := spec.(*ast.ValueSpec)
				if id, ok := v.Type.(*ast.Ident); ok && id.Name == "Reason" {
					for _, n := range v.Names {
						out = append(out, guard.Reason(n.Name))
					}
				}
			}
		}
	}
	return out
}
