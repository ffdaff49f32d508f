package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/agext/levenshtein"

	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/app/location"
)

// The answers to a name that is not there: the node paths and data types
// nearest to what was typed ("did you mean"), and the arrays of a group
// named where an array was wanted.

// maxWalk bounds the nodes read to suggest or complete a path: a
// hierarchy of a million arrays is not listed for a typo.
const maxWalk = 10000

var errEnough = errors.New("enough nodes")

// NodePaths lists the paths of the nodes below the root of s (the root
// excluded), arrays only when arrays, at most maxWalk.
func NodePaths(ctx context.Context, s store.Store, arrays bool) []string {
	root, err := hierarchy.Open(ctx, s, "")
	if err != nil {
		return nil
	}
	var out []string
	n := 0
	hierarchy.Walk(ctx, s, root, func(node hierarchy.Node) error {
		if n++; n > maxWalk {
			return errEnough
		}
		if node.Path != "" && (!arrays || node.Array != nil) {
			out = append(out, node.Path)
		}
		return nil
	})
	return out
}

// Nearest returns the candidates closest to s: by edit distance, at most
// about a third of s's length away, or equal ignoring case, or ending in
// s as a path segment; the closest first, at most three.
func Nearest(s string, candidates []string) []string {
	type scored struct {
		c string
		d int
	}
	var found []scored
	limit := max(2, len(s)/3)
	for _, c := range candidates {
		d := levenshtein.Distance(strings.ToLower(s), strings.ToLower(c), nil)
		if d <= limit || strings.HasSuffix(c, "/"+s) {
			found = append(found, scored{c, d})
		}
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].d < found[j].d })
	var out []string
	for i := 0; i < len(found) && i < 3; i++ {
		out = append(out, found[i].c)
	}
	return out
}

// OpenNode opens the node at path of t, explaining a failure: where it
// looked (the directory, URL or dataset, resolved) and the nearest paths
// that exist. With arrayOnly, a group is an error listing its arrays.
func OpenNode(ctx context.Context, t *location.Target, path string, arrayOnly bool) (hierarchy.Node, error) {
	n, err := hierarchy.Open(ctx, t.Store, path)
	switch {
	case errors.Is(err, hierarchy.ErrNoNode):
		hint := ""
		if clean, cerr := hierarchy.CleanPath(path); cerr == nil && clean != "" {
			if near := Nearest(clean, NodePaths(ctx, t.Store, arrayOnly)); len(near) > 0 {
				hint = "; did you mean --path " + strings.Join(near, " or --path ") + "?"
			}
		}
		return n, fmt.Errorf("%w in %s%s", err, t.Where, hint)
	case err != nil:
		return n, fmt.Errorf("%s: %w", t.Where, err)
	case arrayOnly && n.Array == nil:
		msg := fmt.Sprintf("%s in %s is a group, not an array", n.Name(), t.Where)
		if arrays := below(NodePaths(ctx, t.Store, true), n.Path); len(arrays) > 0 {
			if len(arrays) > 5 {
				arrays = append(arrays[:5], fmt.Sprintf("... (%d arrays)", len(arrays)))
			}
			msg += ": name one of its arrays with --path: " + strings.Join(arrays, ", ")
		}
		return n, errors.New(msg)
	}
	return n, nil
}

// below keeps the paths inside the group at dir ("" is the root).
func below(paths []string, dir string) []string {
	if dir == "" {
		return paths
	}
	var out []string
	for _, p := range paths {
		if strings.HasPrefix(p, dir+"/") {
			out = append(out, p)
		}
	}
	return out
}

// CreateTypes are the data types "zarrgw create" accepts, besides rN
// (N bits of raw bytes, N a multiple of 8): v3's fixed-size core types,
// then the registry's narrow number types (bfloat16, float8_e4m3, int4 ...).
var CreateTypes = append([]string{"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
	"float16", "float32", "float64", "complex64", "complex128"}, dtype.NarrowNumbers()...)

// DtypeError explains a --dtype that is not accepted: the names that
// are, and the nearest, or the v3 name of a numpy type string ("f4",
// "<i2") given instead.
func DtypeError(name string) error {
	accepted := strings.Join(CreateTypes, ", ") + ", rN (N bits of raw bytes: r8, r16, ...)"
	hint := ""
	if dt, _, err := dtype.ParseV2(name); err == nil && slices.Contains(CreateTypes, dt.Name) {
		hint = fmt.Sprintf("; did you mean %s? (numpy calls it %q)", dt.Name, name)
	} else if dt, err := dtype.ParseV3(name); err == nil && dt.Variable() {
		hint = fmt.Sprintf(" (%s elements have no fixed size)", name)
	} else if near := Nearest(name, CreateTypes); len(near) > 0 {
		hint = "; did you mean " + strings.Join(near, " or ") + "?"
	}
	return fmt.Errorf("--dtype %q: not a fixed-size v3 data type%s; accepted: %s", name, hint, accepted)
}
