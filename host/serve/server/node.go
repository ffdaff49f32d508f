package server

import (
	"context"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
)

// StoreWhole is the range of a whole value.
var StoreWhole = store.ByteRange{}

// NodeType is "array" or "group", as the array API names a node.
func NodeType(n hierarchy.Node) string {
	if n.Array != nil {
		return "array"
	}
	return "group"
}

// MetaKeys are the keys of a node's metadata documents in its format.
func MetaKeys(n hierarchy.Node) []string {
	isArray := n.Array != nil
	switch n.Format() {
	case meta.V3:
		return []string{array.V3MetaKey(n.Path)}
	case meta.V2:
		if isArray {
			return []string{array.V2ArrayKey(n.Path), array.V2AttrsKey(n.Path)}
		}
		return []string{array.V2GroupKey(n.Path), array.V2AttrsKey(n.Path), array.V2ConsolidatedKey(n.Path)}
	}
	return []string{array.DraftMetaKey(n.Path, isArray, "")}
}

// OpenArray opens the array at path, reusing the one a request opened
// before while its metadata documents read the same (see arraycache).
// The array may be shared by concurrent requests: read and write through
// it, never Resize it or SetAttributes on it.
func (ds *Dataset) OpenArray(ctx context.Context, path string) (*array.Array, error) {
	return ds.arrays.Open(ctx, path)
}
