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

// CreateGroup writes a group's metadata, and that of every missing
// ancestor group (both formats require ancestors to exist).
func CreateGroup(ctx context.Context, s store.Store, path string, f meta.Format, attrs json.RawMessage) (Node, error) {
	path, err := CleanPath(path)
	if err != nil {
		return Node{}, err
	}
	if err := ensureAncestors(ctx, s, path, f); err != nil {
		return Node{}, err
	}
	if len(attrs) == 0 {
		attrs = json.RawMessage("{}")
	}
	g := &meta.GroupMeta{Format: f, Attributes: attrs}
	if err := writeGroup(ctx, s, path, g); err != nil {
		return Node{}, err
	}
	return Node{Path: path, Group: g}, nil
}

// CreateArray writes an array's metadata (and missing ancestor groups) and
// opens it.
func CreateArray(ctx context.Context, s store.Store, path string, m *meta.ArrayMeta, opts array.Options) (*array.Array, error) {
	path, err := CleanPath(path)
	if err != nil {
		return nil, err
	}
	if err := validateNames(path); err != nil {
		return nil, err
	}
	if err := ensureAncestors(ctx, s, path, m.Format); err != nil {
		return nil, err
	}
	return array.Create(ctx, s, path, m, opts)
}

func validateNames(path string) error {
	if path == "" {
		return nil
	}
	for _, name := range strings.Split(path, "/") {
		if err := meta.ValidateNodeName(name); err != nil {
			return fmt.Errorf("node path /%s: %w", path, err)
		}
	}
	return nil
}

// EnsureAncestors creates every missing group above path, as groups of
// format f with no attributes (a node copied alone keeps a hierarchy).
func EnsureAncestors(ctx context.Context, s store.Store, path string, f meta.Format) error {
	return ensureAncestors(ctx, s, path, f)
}

// ensureAncestors creates every missing group above path.
func ensureAncestors(ctx context.Context, s store.Store, path string, f meta.Format) error {
	if path == "" {
		return nil
	}
	parts := strings.Split(path, "/")
	for i := 0; i < len(parts); i++ {
		p := strings.Join(parts[:i], "/")
		n, err := Open(ctx, s, p)
		if err == nil {
			if n.Array != nil {
				return fmt.Errorf("cannot create /%s: /%s is an array", path, p)
			}
			continue
		}
		if !errors.Is(err, ErrNoNode) {
			return err
		}
		g := &meta.GroupMeta{Format: f, Attributes: json.RawMessage("{}")}
		if err := writeGroup(ctx, s, p, g); err != nil {
			return err
		}
	}
	return nil
}

// writeGroup stores a group's metadata document(s).
func writeGroup(ctx context.Context, s store.Store, path string, g *meta.GroupMeta) error {
	docs, err := GroupDocs(g, path)
	if err != nil {
		return err
	}
	for _, d := range docs {
		if _, err := s.Set(ctx, d.Key, d.Value, store.Condition{}); err != nil {
			return fmt.Errorf("write %s: %w", d.Key, err)
		}
	}
	return nil
}

// GroupDocs renders a group's metadata as the documents of its format
// (array.MetadataDocs does the same for arrays).
func GroupDocs(g *meta.GroupMeta, path string) ([]array.Doc, error) {
	switch g.Format {
	case meta.V3:
		b, err := g.MarshalV3()
		if err != nil {
			return nil, err
		}
		return []array.Doc{{Key: array.V3MetaKey(path), Value: b}}, nil
	case meta.V2:
		zgroup, zattrs, err := g.MarshalV2()
		if err != nil {
			return nil, err
		}
		docs := []array.Doc{{Key: array.V2GroupKey(path), Value: zgroup}}
		if zattrs != nil {
			docs = append(docs, array.Doc{Key: array.V2AttrsKey(path), Value: zattrs})
		}
		return docs, nil
	}
	return nil, fmt.Errorf("group /%s: %w: %s metadata cannot be written", path, array.ErrReadOnly, g.Format)
}

// Consolidate gathers the metadata of every node below the group at path
// and stores it as consolidated metadata: inline in the group's zarr.json
// (v3) or as .zmetadata (v2).
func Consolidate(ctx context.Context, s store.Store, path string) error {
	doc, err := ConsolidatedDoc(ctx, s, path)
	if err != nil {
		return err
	}
	if _, err := s.Set(ctx, doc.Key, doc.Value, store.Condition{}); err != nil {
		return fmt.Errorf("write %s: %w", doc.Key, err)
	}
	return nil
}

// ConsolidatedDoc gathers the metadata of every node below the group at
// path, from the nodes' own documents (not from consolidated metadata
// already stored), and renders the document that consolidates it: the
// group's zarr.json with the metadata inline (v3), or .zmetadata (v2).
func ConsolidatedDoc(ctx context.Context, s store.Store, path string) (array.Doc, error) {
	root, err := Open(ctx, s, path)
	if err != nil {
		return array.Doc{}, err
	}
	if root.Group == nil {
		return array.Doc{}, fmt.Errorf("consolidate %s: not a group", root.Name())
	}
	g := *root.Group
	g.Consolidated = nil
	root.Group = &g
	c := &meta.Consolidated{Arrays: map[string]*meta.ArrayMeta{}, Groups: map[string]*meta.GroupMeta{}}
	err = Walk(ctx, s, root, func(n Node) error {
		if n.Path == root.Path {
			return nil
		}
		rel := strings.TrimPrefix(n.Path, array.NodePrefix(root.Path))
		if n.Array != nil {
			c.Arrays[rel] = n.Array
		} else {
			c.Groups[rel] = n.Group
		}
		return nil
	})
	if err != nil {
		return array.Doc{}, fmt.Errorf("consolidate %s: %w", root.Name(), err)
	}
	return consolidatedDoc(root, c)
}

func consolidatedDoc(root Node, c *meta.Consolidated) (array.Doc, error) {
	switch root.Group.Format {
	case meta.V3:
		g := *root.Group
		g.Consolidated = c
		b, err := g.MarshalV3()
		return array.Doc{Key: array.V3MetaKey(root.Path), Value: b}, err
	case meta.V2:
		b, err := meta.MarshalV2Consolidated(root.Group, c)
		return array.Doc{Key: array.V2ConsolidatedKey(root.Path), Value: b}, err
	}
	return array.Doc{}, fmt.Errorf("consolidate %s: %w", root.Name(), array.ErrReadOnly)
}

// OpenArray opens the array at path.
func OpenArray(ctx context.Context, s store.Store, path string, opts array.Options) (*array.Array, error) {
	n, err := Open(ctx, s, path)
	if err != nil {
		return nil, err
	}
	if n.Array == nil {
		return nil, fmt.Errorf("%s is a group, not an array", n.Name())
	}
	return array.New(ctx, s, n.Path, n.Array, opts)
}
