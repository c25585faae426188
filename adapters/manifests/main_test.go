package manifests_test

import (
	"flag"
	"os"
	"testing"
)

// TestMain runs the properties a few hundred times unless -rapid.checks
// says otherwise.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "rapid.checks" })
	if !set {
		if err := flag.Set("rapid.checks", "300"); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}
