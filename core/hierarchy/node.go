// Package hierarchy finds, creates and lists the nodes (groups and arrays)
// of a Zarr hierarchy in a store, in any supported format: v3, v2 and the
// draft v3 layout (read only). It detects the format of each node from the
// documents it finds, preferring v3 when both are present, as zarr-python does.
package hierarchy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
)

// ErrNoNode means no array or group exists at a path.
var ErrNoNode = errors.New("no array or group")

// Node is an array or a group: exactly one of Array and Group is set.
type Node struct {
	Path  string // "" for the root, "a/b" below it
	Array *meta.ArrayMeta
	Group *meta.GroupMeta
	// Implicit is set for a group that has children but no metadata
	// document (allowed in the draft layout, tolerated elsewhere).
	Implicit bool
}

// Format is the node's metadata format.
func (n Node) Format() meta.Format {
	if n.Array != nil {
		return n.Array.Format
	}
	return n.Group.Format
}

// Name is the node's path for messages.
func (n Node) Name() string { return "/" + n.Path }

// CleanPath normalises a node path: backslashes become slashes, leading,
// trailing and doubled slashes go; "." and ".." segments are errors.
func CleanPath(p string) (string, error) {
	p = strings.ReplaceAll(p, "\\", "/")
	var parts []string
	for _, s := range strings.Split(p, "/") {
		switch s {
		case "":
			continue
		case ".", "..":
			return "", fmt.Errorf("invalid node path %q: %q segments are not allowed", p, s)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "/"), nil
}

// Open reads the node at path, detecting its format.
func Open(ctx context.Context, s store.Store, path string) (Node, error) {
	path, err := CleanPath(path)
	if err != nil {
		return Node{}, err
	}
	n, err := openV3(ctx, s, path)
	if err == nil || !errors.Is(err, ErrNoNode) {
		return n, err
	}
	if n, err = openV2(ctx, s, path); err == nil || !errors.Is(err, ErrNoNode) {
		return n, err
	}
	return openDraft(ctx, s, path)
}

// get reads a whole value; found is false when the key is absent.
func get(ctx context.Context, s store.Store, key string) (data []byte, found bool, err error) {
	v, err := s.Get(ctx, key, store.ByteRange{})
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", key, err)
	}
	return v.Data, true, nil
}

func openV3(ctx context.Context, s store.Store, path string) (Node, error) {
	key := array.V3MetaKey(path)
	doc, found, err := get(ctx, s, key)
	if err != nil || !found {
		return Node{}, errOr(err, ErrNoNode)
	}
	am, gm, err := meta.ParseV3(doc)
	if errors.Is(err, meta.ErrDraftEntry) {
		return Node{}, ErrNoNode // a draft hierarchy's entry point, not a node
	}
	if err != nil {
		return Node{}, fmt.Errorf("%s: %w", key, err)
	}
	return Node{Path: path, Array: am, Group: gm}, nil
}

func openV2(ctx context.Context, s store.Store, path string) (Node, error) {
	attrs, _, err := get(ctx, s, array.V2AttrsKey(path))
	if err != nil {
		return Node{}, err
	}
	if doc, found, err := get(ctx, s, array.V2ArrayKey(path)); err != nil || found {
		if err != nil {
			return Node{}, err
		}
		am, err := meta.ParseV2Array(doc, attrs)
		if err != nil {
			return Node{}, fmt.Errorf("%s: %w", array.V2ArrayKey(path), err)
		}
		return Node{Path: path, Array: am}, nil
	}
	doc, found, err := get(ctx, s, array.V2GroupKey(path))
	if err != nil || !found {
		return Node{}, errOr(err, ErrNoNode)
	}
	gm, err := meta.ParseV2Group(doc, attrs)
	if err != nil {
		return Node{}, fmt.Errorf("%s: %w", array.V2GroupKey(path), err)
	}
	if err := attachV2Consolidated(ctx, s, path, gm); err != nil {
		return Node{}, err
	}
	return Node{Path: path, Group: gm}, nil
}

func attachV2Consolidated(ctx context.Context, s store.Store, path string, gm *meta.GroupMeta) error {
	key := array.V2ConsolidatedKey(path)
	doc, found, err := get(ctx, s, key)
	if err != nil || !found {
		return err
	}
	c, err := meta.ParseV2Consolidated(doc)
	if err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	gm.Consolidated = c
	return nil
}

func errOr(err, def error) error {
	if err != nil {
		return err
	}
	return def
}

// Attributes returns the node's attributes (a JSON object).
func (n Node) Attributes() json.RawMessage {
	if n.Array != nil {
		return n.Array.Attributes
	}
	return n.Group.Attributes
}
