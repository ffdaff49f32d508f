package hierarchy

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
)

// Children returns the direct children of a group, sorted by path. When the
// group carries consolidated metadata it is used instead of listing the
// store; otherwise the store is listed (list_dir) and each child is read.
func Children(ctx context.Context, s store.Store, g Node) ([]Node, error) {
	if g.Group == nil {
		return nil, fmt.Errorf("%s is not a group", g.Name())
	}
	if c := g.Group.Consolidated; c != nil {
		return consolidatedChildren(g, c), nil
	}
	names, err := childNames(ctx, s, g)
	if err != nil {
		return nil, err
	}
	var out []Node
	for _, name := range names {
		n, err := Open(ctx, s, join(g.Path, name))
		if errors.Is(err, ErrNoNode) {
			continue // a prefix holding no node (e.g. chunk directories)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// childNames lists candidate child names of a group.
func childNames(ctx context.Context, s store.Store, g Node) ([]string, error) {
	prefix := array.NodePrefix(g.Path)
	if g.Format() == meta.V3Draft {
		prefix = draftDir(g.Path)
	}
	dir, err := s.ListDir(ctx, prefix)
	if err != nil {
		return nil, fmt.Errorf("group %s: list %q: %w", g.Name(), prefix, err)
	}
	seen := map[string]bool{}
	for _, p := range dir.Prefixes {
		seen[strings.TrimSuffix(strings.TrimPrefix(p, prefix), "/")] = true
	}
	if g.Format() == meta.V3Draft {
		for _, k := range dir.Keys {
			name := strings.TrimPrefix(k, prefix)
			for _, suf := range []string{".array.json", ".group.json"} {
				if strings.HasSuffix(name, suf) {
					seen[strings.TrimSuffix(name, suf)] = true
				}
			}
		}
	}
	var names []string
	for n := range seen {
		// only what may name a node: not "__..." (reserved), not
		// "zarr.json" (a node's document, though an object store may hold
		// keys below it)
		if meta.ValidateNodeName(n) == nil {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names, nil
}

func consolidatedChildren(g Node, c *meta.Consolidated) []Node {
	var out []Node
	for p, am := range c.Arrays {
		if !strings.Contains(p, "/") {
			out = append(out, Node{Path: join(g.Path, p), Array: am})
		}
	}
	for p, gm := range c.Groups {
		if p != "" && !strings.Contains(p, "/") {
			child := *gm
			// the root's consolidated metadata holds the whole tree,
			// flattened: a child group's part of it is what lies below
			// its name (its own entry may hold none)
			child.Consolidated = below(c, p+"/")
			out = append(out, Node{Path: join(g.Path, p), Group: &child})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// below is the part of c under prefix, with the prefix taken off.
func below(c *meta.Consolidated, prefix string) *meta.Consolidated {
	sub := &meta.Consolidated{Arrays: map[string]*meta.ArrayMeta{}, Groups: map[string]*meta.GroupMeta{}}
	for p, a := range c.Arrays {
		if rest, ok := strings.CutPrefix(p, prefix); ok {
			sub.Arrays[rest] = a
		}
	}
	for p, g := range c.Groups {
		if rest, ok := strings.CutPrefix(p, prefix); ok {
			sub.Groups[rest] = g
		}
	}
	return sub
}

func join(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "/" + name
}

// Walk calls fn for n and every node below it, depth first, parents before
// children, children in path order.
func Walk(ctx context.Context, s store.Store, n Node, fn func(Node) error) error {
	if err := fn(n); err != nil {
		return err
	}
	if n.Group == nil {
		return nil
	}
	kids, err := Children(ctx, s, n)
	if err != nil {
		return err
	}
	for _, k := range kids {
		if err := Walk(ctx, s, k, fn); err != nil {
			return err
		}
	}
	return nil
}
