package state

import "context"

// Reader reads what a Request names from a cluster, and nothing more. The
// client-go and controller-runtime adapters (packages adapters/clientgo and
// adapters/controllerruntime) implement it; a controller holds this
// interface, not an adapter's type, and a test hands it a fake.
//
// A kind that could not be read (no permission, not served) is left
// unobserved in the State rather than failing the read, so the plans that
// need it say StateUnverified; Read fails only when the cluster could not
// be read at all.
type Reader interface {
	Read(ctx context.Context, req Request) (*State, error)
}
