package catalog

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
)

// TestCatalogHandsOutCopies: a compiled catalog never changes, whatever a
// caller does with what it was compiled from or with what its accessors
// return; it is shared between goroutines (a controller's plans), so a
// shared slice or pointer would let one plan edit another's catalog.
func TestCatalogHandsOutCopies(t *testing.T) {
	// A size beyond int64 is held behind a pointer in the quantity; the
	// second entry is refused, so that there are refusals to edit.
	in := func() Values {
		return values(Image{Flavor: Flavor{SchematicID: idA, Version: v1136}, Storage: "1e30"}, Image{Flavor: Flavor{SchematicID: "AAA", Version: v1136}, Storage: "x"})
	}
	v := in()
	c, untouched := Compile(v), Compile(in())
	require.NotEmpty(t, c.Refusals())

	v.Images[0].Storage = "1Gi"
	v.Images[1] = Image{}
	_ = append(v.Images[:1], Image{Flavor: Flavor{SchematicID: idB, Version: v1136}})

	vs := c.Values()
	vs.Images[0].Version = "edited"
	_ = append(vs.Images[:1], Image{Flavor: Flavor{SchematicID: idB, Version: v1136}})

	for e := range c.Entries() {
		e.Golden, e.Storage = "edited", "edited"
		e.Size.Add(resource.MustParse("1e30"))
		if rs := e.Refusals(); len(rs) > 0 {
			rs[0].Detail, rs[0].Field = "edited", "edited"
			rs[0] = nil
		}
	}
	for _, e := range []Entry{lookup(t, c, Flavor{idA, v1136}), lookupGolden(t, c, goldenA)} {
		e.URL, e.Index = "edited", 7
		e.Size.Add(resource.MustParse("1e30"))
	}
	if e, ok := c.Lookup(Flavor{"AAA", v1136}); assert.True(t, ok) && assert.NotEmpty(t, e.Refusals()) {
		e.Refusals()[0].Reason = "Edited"
	}

	rs := c.Refusals()
	rs[0].Field, rs[0].Subject = "edited", "edited"
	rs[len(rs)-1] = nil
	_ = append(rs[:0], nil)

	assert.Equal(t, untouched.Values(), c.Values(), "Values is a copy, and so was what Compile read")
	assert.Equal(t, slices.Collect(untouched.Entries()), slices.Collect(c.Entries()), "Entries yields copies")
	assert.Equal(t, lookup(t, untouched, Flavor{idA, v1136}), lookup(t, c, Flavor{idA, v1136}), "Lookup returns a copy")
	assert.Equal(t, lookupGolden(t, untouched, goldenA), lookupGolden(t, c, goldenA), "LookupGolden returns a copy")
	assert.Equal(t, untouched.Refusals(), c.Refusals(), "Refusals returns copies of the refusals")
	assert.Equal(t, untouched.Len(), c.Len())
}

// TestDecodedFindingsAreCopies: the findings a catalog keeps of its
// decoded values are handed out as copies too.
func TestDecodedFindingsAreCopies(t *testing.T) {
	in := map[string]any{"enable": true, "storage": map[string]any{}}
	c, untouched := Compile(DecodeValues(in)), Compile(DecodeValues(in))
	require.NotEmpty(t, c.Unreadable())
	require.NotEmpty(t, c.Warnings())

	u := c.Unreadable()
	u[0].Field = "edited"
	u[0] = nil
	ws := c.Warnings()
	ws[0].Field = "edited"
	rs, vws := c.Values().Findings()
	rs[0].Detail = "edited"
	vws[0].Detail = "edited"

	assert.Equal(t, untouched.Unreadable(), c.Unreadable())
	assert.Equal(t, untouched.Warnings(), c.Warnings())
	assert.Equal(t, untouched.Values(), c.Values())
}

func lookup(t *testing.T, c *Catalog, f Flavor) Entry {
	t.Helper()
	e, ok := c.Lookup(f)
	require.True(t, ok, "%s has an entry", f)
	return e
}

func lookupGolden(t *testing.T, c *Catalog, golden string) Entry {
	t.Helper()
	e, ok := c.LookupGolden(golden)
	require.True(t, ok, "%s has an entry", golden)
	return e
}
