package clientgo_test

import (
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/plan"
)

// onePoolRequests is the sentence of the package's doc that counts one
// pool's requests.
var onePoolRequests = regexp.MustCompile(`volume by name, (\d+) requests`)

// TestDocCountsOnePoolsRequests: the number of requests the package's doc
// says one pool's plan takes is the number Read makes, so that the doc
// cannot drift from the reads.
func TestDocCountsOnePoolsRequests(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	m := onePoolRequests.FindSubmatch(doc)
	if m == nil {
		t.Fatalf("doc.go no longer says %q", onePoolRequests)
	}
	said, err := strconv.Atoi(string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	cs, dyn := fixtures.ClientGo(fixtures.Cluster()...)
	if _, err := read(t, cs, dyn, plan.Needs(pool)); err != nil {
		t.Fatal(err)
	}
	if lists, gets := requests(cs, dyn); lists+gets != said {
		t.Errorf("doc.go says one pool takes %d requests; Read made %d (%d lists, %d gets)", said, lists+gets, lists, gets)
	}
}
