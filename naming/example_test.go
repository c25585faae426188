package naming_test

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/naming"
)

func ExampleGoldenName() {
	name, rs := naming.GoldenName("ce4c98", "v1.13.6", field.NewPath("images").Index(0).Child("schematicID"), field.NewPath("images").Index(0).Child("version"))
	fmt.Println(name, rs.Err())
	// Output: talos-worker-ce4c98-v1.13.6 <nil>
}

func ExampleImageURL() {
	// One trailing slash is trimmed, as the chart's trimSuffix does.
	fmt.Println(naming.ImageURL("https://factory.talos.dev/", "ce4c98", "v1.13.6"))
	// Output: https://factory.talos.dev/image/ce4c98/v1.13.6/openstack-amd64.raw.xz
}

// A pre-release is not a Talos release the catalog can pin: the refusal
// names the field the value came from.
func ExampleValidateVersion() {
	err := naming.ValidateVersion("v1.13.6-rc.1", field.NewPath("osImage", "builtin", "version")).Err()
	var r *guard.Refusal
	if errors.As(err, &r) {
		fmt.Println(r.Reason, r.Field, r.BadValue)
	}
	// Output: InvalidVersion osImage.builtin.version v1.13.6-rc.1
}

func ExampleParseGoldenName() {
	id, version, ok := naming.ParseGoldenName("talos-worker-ce4c98-v1.13.6")
	fmt.Println(id, version, ok)
	_, _, ok = naming.ParseGoldenName("talos-worker-ce4c98-v1.13")
	fmt.Println(ok)
	// Output:
	// ce4c98 v1.13.6 true
	// false
}
