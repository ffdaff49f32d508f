package server

import (
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
