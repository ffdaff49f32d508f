package hierarchy_test

import (
	"context"
	"testing"

	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/store"
)

// A key below a group's zarr.json (an object store allows both) is not a
// child named "zarr.json": Zarr 3.1 has no node of that name.
func TestNoChildNamedZarrJSON(t *testing.T) {
	ctx := context.Background()
	s := store.NewMemory()
	group := []byte(`{"zarr_format": 3, "node_type": "group"}`)
	for _, key := range []string{"zarr.json", "zarr.json/zarr.json", "a/zarr.json"} {
		if _, err := s.Set(ctx, key, group, store.Condition{}); err != nil {
			t.Fatal(err)
		}
	}
	root, err := hierarchy.Open(ctx, s, "")
	if err != nil {
		t.Fatal(err)
	}
	kids, err := hierarchy.Children(ctx, s, root)
	if err != nil {
		t.Fatal(err)
	}
	if len(kids) != 1 || kids[0].Path != "a" {
		t.Errorf("children %v, want only a", kids)
	}
}
