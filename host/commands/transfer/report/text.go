package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/zarrgw/zarrgw/core/meta"
)

// WriteJSON prints the plan as one JSON document (its schema is the
// exported fields' tags; zarrgw cp --help describes it).
func (p *Plan) WriteJSON(w io.Writer) error {
	// lists are [] when empty, never null: one less case for a script
	if p.Arrays == nil {
		p.Arrays = []ArrayPlan{}
	}
	if p.Groups == nil {
		p.Groups = []GroupPlan{}
	}
	if p.Target.Ancestors == nil {
		p.Target.Ancestors = []string{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(p)
}

// WriteText prints the plan for a person: where from and to, what the
// destination holds, a line per array (before -> after where the copy
// changes it), the groups, and the totals.
func (p *Plan) WriteText(w io.Writer) error {
	how := "byte for byte"
	if p.Mode == ModeRewrite {
		how = "rewritten through the engine"
	}
	node := ""
	if p.Path != "" {
		node = " (node /" + p.Path + ")"
	}
	fmt.Fprintf(w, "cp plan: %s -> %s%s, %s\n", p.Source, p.Destination, node, how)
	fmt.Fprintf(w, "destination: %s\n", p.Target.describe(p.Path))
	if len(p.Arrays) > 0 {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ARRAY\tFORMAT\tDATA TYPE\tSHAPE\tCHUNKS\tSHARDS\tCODECS\tKEYS\tBYTES")
		for _, a := range p.Arrays {
			b, f := a.Before, a.After
			fmt.Fprintf(tw, "/%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", a.Path, change(b.Format, f.Format), change(b.DataType, f.DataType),
				shapeText(f.Shape), change(b.gridText(b.ChunkShape, b.ShardShape == nil), f.gridText(f.ChunkShape, f.ShardShape == nil)),
				change(b.gridText(b.ShardShape, b.ShardShape != nil), f.gridText(f.ShardShape, f.ShardShape != nil)), change(codecNames(b.Codecs), codecNames(f.Codecs)),
				a.Keys, sizeText(a.Bytes))
		}
		tw.Flush()
	}
	var groupKeys int64
	for _, g := range p.Groups {
		groupKeys += g.Keys
	}
	fmt.Fprintf(w, "groups: %d (%d metadata keys); other keys: %d (%s)\n", len(p.Groups), groupKeys, p.Other.Keys, sizeText(p.Other.Bytes))
	for _, n := range p.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if p.Partition != nil {
		fmt.Fprintf(w, "%s\n", p.Partition.Describe())
	}
	_, err := fmt.Fprintf(w, "cp: dry run, nothing written: %d arrays, %d groups, %d keys to write, %s to read\n",
		p.Totals.Arrays, p.Totals.Groups, p.Totals.Keys, sizeText(p.Totals.Bytes))
	return err
}

// describe says what the destination holds and what the copy does with it.
func (t Target) describe(path string) string {
	below := ""
	if path != "" {
		below = " below /" + path
	}
	var s string
	switch t.State {
	case StateNew:
		s = "does not exist yet; it is created"
	case StateEmpty:
		s = "holds nothing" + below
	case StateSameCopy:
		s = fmt.Sprintf("holds %d keys%s, all this copy's (an earlier run of it): the copy goes on, skipping what its journal records", t.Keys, below)
	case StateOverwrite:
		s = fmt.Sprintf("holds other data (%d keys not this copy's, %d metadata documents of another hierarchy): its %d keys%s are erased first (--overwrite)",
			t.Foreign, t.Differing, t.Erase, below)
	case StateMerge:
		s = fmt.Sprintf("holds other data (%d keys not this copy's), kept (--merge)", t.Foreign)
		if len(t.Merged) > 0 {
			s += "; metadata merged at " + strings.Join(t.Merged, ", ")
		}
	}
	if len(t.Ancestors) > 0 {
		s += "; groups created above: " + strings.Join(t.Ancestors, ", ")
	}
	return s
}

// change is "a" when a and b are the same, else "a -> b".
func change(a, b string) string {
	if a == b {
		return a
	}
	return a + " -> " + b
}

func shapeText(shape []int) string {
	if shape == nil {
		return "-"
	}
	parts := make([]string, len(shape))
	for i, n := range shape {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ",")
}

// codecNames lists a codec chain by name; a sharding codec's inner chain
// in brackets.
func codecNames(raw json.RawMessage) string {
	chain, err := meta.ParseExtensions(raw)
	if err != nil {
		return "?"
	}
	names := make([]string, len(chain))
	for i, c := range chain {
		names[i] = c.Name
		var cfg struct {
			Codecs json.RawMessage `json:"codecs"`
		}
		if c.Name == "sharding_indexed" && json.Unmarshal(c.Configuration, &cfg) == nil {
			names[i] += "[" + codecNames(cfg.Codecs) + "]"
		}
	}
	return strings.Join(names, ",")
}

func sizeText(n *int64) string {
	if n == nil {
		return "unknown size"
	}
	return Bytes(*n)
}

// Describe says in a line what the partition writes of the copy.
func (pp PartitionPlan) Describe() string {
	if pp.Objects == 0 {
		return fmt.Sprintf("partition %d/%d: nothing to write; the copy's %d objects are in other partitions", pp.Index, pp.Count, pp.CopyObjects)
	}
	what := ""
	if pp.Metadata && pp.Count > 1 {
		what = ", the metadata documents among them"
	}
	return fmt.Sprintf("partition %d/%d: %d of the copy's %d objects%s, about %s of %s", pp.Index, pp.Count, pp.Objects, pp.CopyObjects,
		what, Bytes(pp.Bytes), Bytes(pp.CopyBytes))
}

// Bytes is a number of bytes for a person: in GiB or MiB past them.
func Bytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}
