package cli_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/cozystack/kubernetes-worker-image/internal/examplefiles"
)

// TestFilesAreTheCLIs: the files the README's commands read are those the
// CLI's --example embeds, byte for byte, so that both print one
// walkthrough.
func TestFilesAreTheCLIs(t *testing.T) {
	for name, embedded := range map[string][]byte{
		"pools.yaml":        examplefiles.Pools,
		"refused.yaml":      examplefiles.Refused,
		"catalog.yaml":      examplefiles.Catalog,
		"state.yaml":        examplefiles.State,
		"computeplane.yaml": examplefiles.ComputePlane,
	} {
		onDisk, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(onDisk, embedded) {
			t.Errorf("examples/cli/%s differs from the CLI's copy in internal/examplefiles: change both", name)
		}
	}
}
