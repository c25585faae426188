package helm

import "github.com/cozystack/kubernetes-worker-image/internal/charttext"

// Names the tests of package helm_test read.
const (
	ImageFactoryURLPattern = imageFactoryURLPattern
	MaxIndent              = charttext.MaxIndent
)
