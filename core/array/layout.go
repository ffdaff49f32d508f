package array

import (
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/meta"
)

// Metadata keys and chunk prefixes of a node at path ("" for the root,
// "a/b" below it) in each format.

// NodePrefix is the key prefix of a node (grid.NodePrefix).
func NodePrefix(path string) string { return grid.NodePrefix(path) }

// ChunkPrefix is the prefix the array's chunk keys are appended to
// (grid.ChunkPrefix, which sits with the chunk key encodings).
func ChunkPrefix(f meta.Format, path string) string { return grid.ChunkPrefix(f, path) }

// V3MetaKey is the zarr.json of a v3 node.
func V3MetaKey(path string) string { return NodePrefix(path) + "zarr.json" }

// V2 metadata keys.
func V2ArrayKey(path string) string        { return NodePrefix(path) + ".zarray" }
func V2GroupKey(path string) string        { return NodePrefix(path) + ".zgroup" }
func V2AttrsKey(path string) string        { return NodePrefix(path) + ".zattrs" }
func V2ConsolidatedKey(path string) string { return NodePrefix(path) + ".zmetadata" }

// DraftMetaKey is the document of a node in the draft v3 layout:
// meta/root.array.json for the root, meta/root/a/b.group.json below it.
func DraftMetaKey(path string, isArray bool, suffix string) string {
	kind := ".group"
	if isArray {
		kind = ".array"
	}
	if suffix == "" {
		suffix = ".json"
	}
	if path == "" {
		return "meta/root" + kind + suffix
	}
	return "meta/root/" + path + kind + suffix
}
