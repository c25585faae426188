package storage

import "fmt"

// Origin says where a resolved class came from.
type Origin string

const (
	// Explicit: the values name the class; an explicit class always wins.
	Explicit Origin = "explicit"
	// Frozen: the values leave the class empty and disks that already exist
	// are bound on it, so it stays whatever the cluster default becomes.
	Frozen Origin = "frozen"
	// Default: the values leave the class empty and nothing is bound yet,
	// so CDI will pick the cluster default.
	Default Origin = "default"
	// Cluster: the class is left to the cluster at apply time (the HTTP
	// path, or a clone planned offline).
	Cluster Origin = "cluster"
)

// Resolution is a class and where it came from.
type Resolution struct {
	Name string `json:"name"`
	From Origin `json:"from"`
}

// String reads `"replicated" (explicit)`.
func (r Resolution) String() string { return fmt.Sprintf("%q (%s)", r.Name, r.From) }
