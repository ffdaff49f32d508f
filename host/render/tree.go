package render

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
)

// Tree prints the node and everything below it, one line per node:
// groups with their format, arrays with shape, data type, chunks and codecs.
func Tree(ctx context.Context, w io.Writer, s store.Store, root hierarchy.Node) error {
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
			_, err := fmt.Fprintf(w, "%s%s (group, %s%s)\n", indent, name, n.Group.Format, groupNotes(n))
			return err
		}
		_, err := fmt.Fprintf(w, "%s%s %s\n", indent, name, ArraySummary(n.Array))
		return err
	})
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
	parts := []string{
		fmt.Sprintf("(array, %s)", m.Format),
		"shape=" + ints(m.Shape),
		"dtype=" + DataTypeName(m),
		"chunks=" + ints(m.ChunkShape),
		"codecs=" + codecList(m.Codecs),
	}
	if len(m.StorageTransformers) > 0 {
		parts = append(parts, "transformers="+codecList(m.StorageTransformers))
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
		if len(e.Configuration) > 0 && string(e.Configuration) != "{}" {
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
