package render

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
)

// Tree prints the node and everything below it, one line per node:
// groups with their format, arrays with shape, data type, chunks and codecs;
// sharded arrays get a second line with their shard layout.
func Tree(ctx context.Context, w io.Writer, s store.Store, root hierarchy.Node, opts array.Options) error {
	return hierarchy.Walk(ctx, s, root, func(n hierarchy.Node) error {
		depth := 0
		if n.Path != root.Path {
			rel := strings.TrimPrefix(n.Path, root.Path)
			depth = strings.Count(strings.Trim(rel, "/"), "/") + 1
		}
		indent := strings.Repeat("  ", depth)
		name := n.Name()
		if depth > 0 {
			name = n.Path[strings.LastIndex(n.Path, "/")+1:]
		}
		if n.Group != nil {
			_, err := fmt.Fprintf(w, "%s%s %s\n", indent, name, GroupSummary(n))
			return err
		}
		if _, err := fmt.Fprintf(w, "%s%s %s\n", indent, name, ArraySummary(n.Array)); err != nil {
			return err
		}
		return shardLine(ctx, w, s, n, opts, indent)
	})
}

// shardLine prints a sharded array's layout; arrays that cannot be opened
// (a codec missing here) say why instead of ending the listing.
func shardLine(ctx context.Context, w io.Writer, s store.Store, n hierarchy.Node, opts array.Options, indent string) error {
	if opts.Codecs == nil || !usesSharding(n.Array) {
		return nil
	}
	a, err := array.New(ctx, s, n.Path, n.Array, opts)
	if err != nil {
		_, err = fmt.Fprintf(w, "%s  (cannot open: %v)\n", indent, err)
		return err
	}
	layout, err := ShardLayout(ctx, a)
	if err != nil {
		layout = "shard layout unreadable: " + err.Error()
	}
	if layout == "" {
		return nil
	}
	_, err = fmt.Fprintf(w, "%s  %s\n", indent, layout)
	return err
}

func usesSharding(m *meta.ArrayMeta) bool {
	for _, c := range m.Codecs {
		if c.Name == "sharding_indexed" {
			return true
		}
	}
	return false
}

// GroupSummary describes a group: its format, and whether it is implicit
// or carries consolidated metadata.
func GroupSummary(n hierarchy.Node) string {
	return fmt.Sprintf("(group, %s%s)", n.Group.Format, groupNotes(n))
}

func groupNotes(n hierarchy.Node) string {
	var notes []string
	if n.Implicit {
		notes = append(notes, "implicit")
	}
	if n.Group.Consolidated != nil {
		notes = append(notes, "consolidated")
	}
	if len(notes) == 0 {
		return ""
	}
	return ", " + strings.Join(notes, ", ")
}

// ArraySummary is one line describing an array.
func ArraySummary(m *meta.ArrayMeta) string {
	d := Describe(m)
	parts := []string{
		fmt.Sprintf("(array, %s)", d.Format),
		"shape=" + d.Shape,
		"dtype=" + d.DataType,
		"chunks=" + d.Chunks,
		"codecs=" + d.Codecs,
	}
	if d.Transformers != "" {
		parts = append(parts, "transformers="+d.Transformers)
	}
	return strings.Join(parts, " ")
}

func ints(s []int) string {
	b, _ := json.Marshal(nonNil(s))
	return string(b)
}

func codecList(exts []meta.Extension) string {
	names := make([]string, len(exts))
	for i, e := range exts {
		names[i] = e.Name
		// a sharded array's layout gets a line of its own
		if e.Name != "sharding_indexed" && len(e.Configuration) > 0 && string(e.Configuration) != "{}" {
			names[i] += compact(e.Configuration)
		}
	}
	return "[" + strings.Join(names, ", ") + "]"
}

func compact(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
