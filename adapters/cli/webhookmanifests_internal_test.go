package cli

import (
	"strings"
	"testing"
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
