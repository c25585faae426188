package webhook_test

import (
	"context"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
)

// Each decision is one log line at the default verbosity, bounded and
// escaped whatever the request.
func TestDecisionLog(t *testing.T) {
	var lines []string
	log := funcr.NewJSON(func(obj string) { lines = append(lines, obj) }, funcr.Options{})
	ctx := logf.IntoContext(context.Background(), log)
	v := validator(cluster()...)

	name := "demo-gpu\u202e" + strings.Repeat("x", 10_000)
	refused := request(t, admissionv1.Create, poolKind, pool("tenant-a", "demo-gpu", builtin(map[string]any{"storageClass": fixtures.LocalClass})), nil)
	refused.Name = name
	bad := request(t, admissionv1.Operation("PATCH\x1b[2K"), poolKind, pool("tenant-a", "demo-md0", builtin(nil)), nil)
	planned := request(t, admissionv1.Create, poolKind, pool(fixtures.TenantNamespace, fixtures.PoolName, builtin(nil)), nil)

	hook := v.Pools()
	hook.LogConstructor = func(logr.Logger, *admission.Request) logr.Logger { return log }
	got := map[string]string{}
	for _, tc := range []struct {
		outcome string
		req     admission.Request
	}{{"refused", refused}, {"bad-request", bad}, {"admitted", planned}} {
		lines = nil
		hook.Handle(ctx, tc.req)
		require.Len(t, lines, 1, "one line per decision")
		line := lines[0]
		got[tc.outcome] = line
		assert.Contains(t, line, `"outcome":"`+tc.outcome+`"`)
		assert.Less(t, len(line), 2048, "bounded: %d bytes", len(line))
		assert.NotContains(t, line, "\u202e", "no raw override")
		assert.NotContains(t, line, "\x1b", "no raw escape")
	}
	assert.Contains(t, got["refused"], `"name":"demo-gpu\\u202exxx`, "the name, escaped and cut")
	assert.Contains(t, got["refused"], `"reasons":["StorageClassMismatch"`)
	assert.Contains(t, got["bad-request"], `"operation":"PATCH\\x1b[2K"`)
	assert.Contains(t, got["bad-request"], `"message":"the request's operation`)
}
