package hierarchy

import (
	"context"
	"fmt"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
)

// openDraft reads a node of the draft v3 layout, whose entry point is the
// store root's zarr.json and whose documents live under meta/root.
func openDraft(ctx context.Context, s store.Store, path string) (Node, error) {
	entryDoc, found, err := get(ctx, s, "zarr.json")
	if err != nil || !found {
		return Node{}, errOr(err, fmt.Errorf("%w at /%s", ErrNoNode, path))
	}
	entry, err := meta.ParseDraftEntry(entryDoc)
	if err != nil {
		return Node{}, fmt.Errorf("%w at /%s", ErrNoNode, path)
	}
	key := array.DraftMetaKey(path, true, entry.MetadataKeySuffix)
	if doc, found, err := get(ctx, s, key); err != nil || found {
		if err != nil {
			return Node{}, err
		}
		am, err := meta.ParseDraftArray(doc)
		if err != nil {
			return Node{}, fmt.Errorf("%s: %w", key, err)
		}
		return Node{Path: path, Array: am}, nil
	}
	key = array.DraftMetaKey(path, false, entry.MetadataKeySuffix)
	doc, found, err := get(ctx, s, key)
	if err != nil {
		return Node{}, err
	}
	if found {
		gm, err := meta.ParseDraftGroup(doc)
		if err != nil {
			return Node{}, fmt.Errorf("%s: %w", key, err)
		}
		return Node{Path: path, Group: gm}, nil
	}
	// Implicit group: no document, but something below it.
	dir, err := s.ListDir(ctx, draftDir(path))
	if err != nil {
		return Node{}, fmt.Errorf("list %s: %w", draftDir(path), err)
	}
	if path == "" || len(dir.Keys)+len(dir.Prefixes) > 0 {
		return Node{Path: path, Group: &meta.GroupMeta{Format: meta.V3Draft, Attributes: []byte("{}")}, Implicit: true}, nil
	}
	return Node{}, fmt.Errorf("%w at /%s", ErrNoNode, path)
}

// draftDir is the listing prefix of a draft node's children.
func draftDir(path string) string {
	return "meta/root/" + array.NodePrefix(path)
}
