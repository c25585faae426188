package golden

import (
	"strings"

	"github.com/cozystack/kubernetes-worker-image/internal/memo"
	"github.com/cozystack/kubernetes-worker-image/naming"
)

// NameOf is naming.GoldenName of a flavor, "" for a flavor that names no
// golden. It is remembered: the name's three patterns cost more than the
// rest of a pool's reading, and a fleet's pools share a few flavors.
func NameOf(schematicID, version string) string {
	return names.Of(schematicID + "\x00" + version)
}

var names = memo.New(func(key string) string {
	id, version, _ := strings.Cut(key, "\x00")
	name, errs := naming.GoldenName(id, version, nil, nil)
	if len(errs) > 0 {
		return ""
	}
	return name
})
