package guard_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cozystack/kubernetes-worker-image/guard"
)

// severities lists every exported reason constant and what it does to a plan.
// TestEveryReasonIsListed keeps this list complete.
var severities = map[string]struct {
	reason guard.Reason
	want   guard.Severity
}{
	"ConflictingImageSource":          {guard.ConflictingImageSource, guard.Refuse},
	"InvalidSchematicID":              {guard.InvalidSchematicID, guard.Refuse},
	"InvalidVersion":                  {guard.InvalidVersion, guard.Refuse},
	"InvalidImageFactoryURL":          {guard.InvalidImageFactoryURL, guard.Refuse},
	"InvalidQuantity":                 {guard.InvalidQuantity, guard.Refuse},
	"GoldenNotInCatalog":              {guard.GoldenNotInCatalog, guard.Refuse},
	"GoldenImportFailed":              {guard.GoldenImportFailed, guard.Refuse},
	"StorageClassMismatch":            {guard.StorageClassMismatch, guard.Refuse},
	"DefaultStorageClassUnresolvable": {guard.DefaultStorageClassUnresolvable, guard.Refuse},
	"FrozenStorageClassConflict":      {guard.FrozenStorageClassConflict, guard.Refuse},
	"DiskSmallerThanGolden":           {guard.DiskSmallerThanGolden, guard.Refuse},
	"HostAssistedClone":               {guard.HostAssistedClone, guard.Refuse},
	"DuplicateCatalogEntry":           {guard.DuplicateCatalogEntry, guard.Refuse},
	"CatalogEntryImmutable":           {guard.CatalogEntryImmutable, guard.Refuse},
	"InvalidPoolName":                 {guard.InvalidPoolName, guard.Refuse},
	"PoolNameTooLong":                 {guard.PoolNameTooLong, guard.Refuse},
	"MissingIngressPool":              {guard.MissingIngressPool, guard.Refuse},
	"IncompleteResources":             {guard.IncompleteResources, guard.Refuse},
	"InvalidValue":                    {guard.InvalidValue, guard.Refuse},
	"GoldenPending":                   {guard.GoldenPending, guard.Warn},
	"GoldenImportStalled":             {guard.GoldenImportStalled, guard.Warn},
	"GoldenUnavailable":               {guard.GoldenUnavailable, guard.Warn},
	"StateUnverified":                 {guard.StateUnverified, guard.Warn},
	"NodeLocalStorageClass":           {guard.NodeLocalStorageClass, guard.Warn},
	"DroppedField":                    {guard.DroppedField, guard.Warn},
	"EtcdUnavailable":                 {guard.EtcdUnavailable, guard.Warn},
}

func TestSeverity(t *testing.T) {
	for name, tc := range severities {
		t.Run(name, func(t *testing.T) {
			if got := tc.reason.Severity(); got != tc.want {
				t.Errorf("Severity() = %v, want %v", got, tc.want)
			}
			if !tc.reason.Known() {
				t.Error("an exported reason must be Known")
			}
			if string(tc.reason) != name {
				t.Errorf("a reason's value is its constant's name (callers match on it across processes), got %q", tc.reason)
			}
		})
	}
}

func TestUnknownReason(t *testing.T) {
	cases := map[string]struct {
		reason string
		in     guard.Reason
	}{
		"empty":         {"the zero Reason is no reason", ""},
		"foreign":       {"a reason this package does not define", "SomethingElse"},
		"case neighbor": {"reasons are matched exactly, not case-blind", "storageclassmismatch"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if tc.in.Known() || tc.in.Severity() != guard.Unknown {
				t.Errorf("%s: %q is Known=%v Severity=%v, want unknown", tc.reason, tc.in, tc.in.Known(), tc.in.Severity())
			}
		})
	}
}

// TestEveryReasonIsListed reads the package's source: a reason constant added
// without a severity, or without a line in the table above, fails here.
func TestEveryReasonIsListed(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var declared []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		declared = append(declared, reasonConstants(f)...)
	}
	if len(declared) != len(severities) {
		t.Errorf("the package declares %d reason constants, the table lists %d", len(declared), len(severities))
	}
	for _, name := range declared {
		if _, ok := severities[name]; !ok {
			t.Errorf("reason constant %s is not in the severities table of this test", name)
		}
		if !guard.Reason(name).Known() {
			t.Errorf("reason constant %s has no severity: it would be Unknown", name)
		}
	}
}

// reasonConstants lists the exported constants of type Reason in f.
func reasonConstants(f *ast.File) []string {
	var out []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			if id, ok := v.Type.(*ast.Ident); !ok || id.Name != "Reason" {
				continue
			}
			for _, n := range v.Names {
				if n.IsExported() {
					out = append(out, n.Name)
				}
			}
		}
	}
	return out
}
