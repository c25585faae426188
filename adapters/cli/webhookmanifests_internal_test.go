package cli

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cozystack/kubernetes-worker-image/adapters/chart"
)

// Whatever the --image, imageParts never panics, and what it accepts the
// chart writes back as given (an image without a tag as :latest): with
// no space, quote, comment or newline for the YAML it lands in.
func FuzzImageParts(f *testing.F) {
	for _, s := range []string{"", "wi", "wi:", ":v1", "a/b:c", "reg:5000/wi", "reg:5000/wi:v1", "wi@sha256:0123456789abcdef0123456789abcdef",
		"wi:v1@sha256:0123456789abcdef0123456789abcdef", "/", "a//b", "wi:v1 # c", "{a: b}", "wi\n:v1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, image string) {
		repository, tag, ok := imageParts(image)
		if !ok {
			return
		}
		got := repository + ":" + tag
		if got != image && got != image+":latest" {
			t.Fatalf("%q written back as %q", image, got)
		}
		if strings.ContainsAny(got, " \t\n\r\"'#{}[],&*!|>%`") {
			t.Fatalf("%q accepted, which YAML reads otherwise", image)
		}
	})
}

// The maps the chart's templates write whole are the open ones, and only
// they: a map written whole but checked key by key would refuse a field
// the API server takes; one checked as open but read by name would let a
// misspelt value pass.
func TestWebhookManifestsOpenValuesAreTheWrittenWhole(t *testing.T) {
	whole := regexp.MustCompile(`to(?:Yaml|Json) \.Values\.([A-Za-z0-9_.]+)`)
	written := map[string]bool{}
	require.NoError(t, fs.WalkDir(chart.Files(), "templates", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(chart.Files(), path)
		for _, m := range whole.FindAllStringSubmatch(string(b), -1) {
			written[m[1]] = true
		}
		return err
	}))
	require.NotEmpty(t, written)
	assert.Equal(t, written, openValues)
}
