package clientgo

import (
	"context"

	"github.com/cozystack/kubernetes-worker-image/adapters/internal/clusterread"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// ReadExplained is Read, and says why each kind it left unknown is, for the
// package's own tests.
func (r *Reader) ReadExplained(ctx context.Context, req state.Request) (*state.State, []clusterread.Unread, error) {
	st, unread, err := clusterread.ReadClientGo(ctx, clusterread.ClientGo{Core: r.Core, Dynamic: r.Dynamic}, r.Discovery, r.Limit, req)
	return st, unread, public(err)
}
