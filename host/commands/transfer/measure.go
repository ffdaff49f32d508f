package transfer

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/commands/transfer/layout"
	"github.com/zarrgw/zarrgw/host/commands/transfer/report"
)

// sizes are the stored sizes of the source keys below the copied node;
// nil when the source cannot list them.
type sizes map[string]int64

// sourceSizes lists the source with sizes.
func (p *Plan) sourceSizes(ctx context.Context) (sizes, error) {
	out := sizes{}
	for e, err := range store.ListInfo(ctx, p.src.Store, p.scope, "") {
		if errors.Is(err, store.ErrUnsupported) {
			p.Notes = append(p.Notes, fmt.Sprintf("%s cannot list its keys: sizes are unknown, and every chunk of the new grid is counted", p.src.Name))
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: list: %w", p.src.Name, err)
		}
		out[e.Key] = e.Info.Size
	}
	return out, nil
}

// sizes lists the source with sizes, once: measure and the partitions'
// weights need them.
func (p *Plan) sizes(ctx context.Context) (sizes, error) {
	if p.sized {
		return p.sz, nil
	}
	sz, err := p.sourceSizes(ctx)
	if err != nil {
		return nil, err
	}
	p.sz, p.sized = sz, true
	return sz, nil
}

// measure fills the plan's report: per array and group, the keys written
// and the bytes read, and the totals.
func (p *Plan) measure(ctx context.Context) error {
	sz, err := p.sizes(ctx)
	if err != nil {
		return err
	}
	p.Other.Bytes = known(sz)
	if p.Mode == report.ModeCopy {
		err = p.measureCopy(ctx, sz)
	} else {
		p.measureRewrite(sz)
	}
	if err != nil {
		return err
	}
	p.measureTotals()
	p.sortPlans()
	return nil
}

// measureCopy attributes each key a byte copy writes to its array, its
// group, or to neither.
func (p *Plan) measureCopy(ctx context.Context, sz sizes) error {
	nodes, err := p.sourceNodes(ctx)
	if err != nil {
		return err
	}
	arrays, groups := p.nodePlans(nodes, sz)
	for _, key := range p.keys {
		size, ok := sz[key]
		if !ok {
			size = int64(len(p.docs[key])) // merged metadata: not read, written
		}
		keys, bytes := &p.Other.Keys, p.Other.Bytes
		if a := arrays[arrayOf(arrays, key)]; a != nil {
			keys, bytes = &a.Keys, a.Bytes
		} else if g := groups[nodeOfDoc(key)]; g != nil && isMetadataKey(key) {
			keys, bytes = &g.Keys, g.Bytes
		}
		*keys++
		add(bytes, size)
	}
	return nil
}

// sourceNodes reads the nodes of a byte copy: every node whose metadata
// document is among its keys. A document that cannot be read is noted,
// and its keys counted as other keys.
func (p *Plan) sourceNodes(ctx context.Context) ([]hierarchy.Node, error) {
	seen := map[string]bool{}
	var out []hierarchy.Node
	for _, key := range p.keys {
		name := nodeOfDoc(key)
		if !isMetadataKey(key) || seen[name] || strings.HasSuffix(key, ".zattrs") || strings.HasSuffix(key, ".zmetadata") {
			continue
		}
		seen[name] = true
		n, err := hierarchy.Open(ctx, p.src.Store, name)
		switch {
		case errors.Is(err, hierarchy.ErrNoNode):
		case err != nil:
			p.Notes = append(p.Notes, fmt.Sprintf("/%s: %v: its keys are copied as they are", name, err))
		default:
			out = append(out, n)
		}
	}
	return out, nil
}

// nodePlans starts the report of each node, and indexes it by path.
func (p *Plan) nodePlans(nodes []hierarchy.Node, sz sizes) (map[string]*report.ArrayPlan, map[string]*report.GroupPlan) {
	arrays, groups := map[string]*report.ArrayPlan{}, map[string]*report.GroupPlan{}
	for _, n := range nodes {
		if n.Array != nil {
			p.Arrays = append(p.Arrays, report.ArrayPlan{Path: n.Path, Before: report.LayoutOf(n.Array), After: report.LayoutOf(n.Array), Bytes: known(sz)})
		} else {
			p.Groups = append(p.Groups, report.GroupPlan{Path: n.Path, Format: n.Group.Format.String(), Bytes: known(sz)})
		}
	}
	for i := range p.Arrays {
		arrays[p.Arrays[i].Path] = &p.Arrays[i]
	}
	for i := range p.Groups {
		groups[p.Groups[i].Path] = &p.Groups[i]
	}
	return arrays, groups
}

// measureRewrite counts, per array, its metadata documents and the
// chunks (or shards) of its new grid that hold stored source values, and
// the stored bytes below it in the source.
func (p *Plan) measureRewrite(sz sizes) {
	byNode := p.sourceKeysByNode(sz)
	for _, n := range p.nodes {
		bytes := sumSizes(sz, byNode[n.src.Path])
		if n.out.Group != nil {
			p.Groups = append(p.Groups, report.GroupPlan{Path: n.out.Path, Format: n.out.Group.Format.String(), Keys: int64(len(n.docs)), Bytes: bytes})
			continue
		}
		chunks := newChunks(n, sz, byNode[n.src.Path])
		p.Arrays = append(p.Arrays, report.ArrayPlan{Path: n.out.Path, Before: report.LayoutOf(n.src.Array), After: report.LayoutOf(n.out.Array),
			Keys: int64(len(n.docs)) + chunks, Bytes: bytes})
	}
}

// sourceKeysByNode sorts the source's keys by the node of a rewrite they
// are below: an array's chunks and documents by the array, a group's
// documents by the group.
func (p *Plan) sourceKeysByNode(sz sizes) map[string][]string {
	byNode := map[string][]string{}
	srcArrays := map[string]bool{}
	for _, n := range p.nodes {
		if n.src.Array != nil {
			srcArrays[n.src.Path] = true
		}
	}
	for key := range sz {
		node := arrayOf(srcArrays, key)
		if node == "" && !srcArrays[""] {
			if !isMetadataKey(key) {
				continue // below no node: a rewrite does not copy it
			}
			node = nodeOfDoc(key)
		}
		byNode[node] = append(byNode[node], key)
	}
	return byNode
}

// newChunks counts the chunks of n's new grid that hold elements of a
// stored source chunk; those are the chunks the rewrite writes (but for
// any whose every element is the fill value, which are not stored). When
// the source cannot say which chunks it stores, every chunk counts.
func newChunks(n *outNode, sz sizes, keys []string) int64 {
	if w := chunkWeights(n, sz, keys); w != nil {
		return int64(len(w))
	}
	return layout.Product(layout.GridCounts(n.out.Array))
}

// measureTotals sums the report, adding the groups created above the
// copied node and a consolidated metadata document not written otherwise.
func (p *Plan) measureTotals() {
	written := map[string]bool{}
	for _, d := range p.ancestors {
		written[d.Key] = true
	}
	for _, a := range p.Target.Ancestors {
		g := report.GroupPlan{Path: strings.TrimPrefix(a, "/"), Format: p.rootFormat().String(), Bytes: new(int64), Created: true}
		for _, d := range p.ancestors {
			if nodeOfDoc(d.Key) == g.Path {
				g.Keys++
			}
		}
		p.Groups = append(p.Groups, g)
	}
	t := report.Totals{Arrays: len(p.Arrays), Groups: len(p.Groups), Keys: p.Other.Keys, Bytes: p.Other.Bytes}
	for _, a := range p.Arrays {
		t.Keys += a.Keys
		t.Bytes = addPtr(t.Bytes, a.Bytes)
	}
	for _, g := range p.Groups {
		t.Keys += g.Keys
		t.Bytes = addPtr(t.Bytes, g.Bytes)
	}
	if key := p.consolidatedKey(); key != "" && !written[key] && !p.writes(key) && p.docs[key] == nil {
		t.Keys++
	}
	p.Totals = t
}

// consolidatedKey is the document consolidation writes, "" for none.
func (p *Plan) consolidatedKey() string {
	if p.consolidate == nil {
		return ""
	}
	if p.rootFormat() == meta.V2 {
		return array.V2ConsolidatedKey(*p.consolidate)
	}
	return array.V3MetaKey(*p.consolidate)
}

// arrayOf is the path of the array below which key lies, "" for none (or
// the root array); draft keys (data/root/..., meta/root/...) included.
func arrayOf[T any](arrays map[string]T, key string) string {
	if rest, ok := strings.CutPrefix(key, "data/root/"); ok {
		key = rest
	} else if rest, ok := strings.CutPrefix(key, "meta/root/"); ok && strings.HasSuffix(key, ".array.json") {
		return strings.TrimSuffix(rest, ".array.json")
	}
	for dir := key; dir != ""; {
		dir = parentDir(dir)
		if _, ok := arrays[dir]; ok {
			return dir
		}
	}
	return ""
}

func known(sz sizes) *int64 {
	if sz == nil {
		return nil
	}
	return new(int64)
}

func add(total *int64, n int64) {
	if total != nil {
		*total += n
	}
}

func addPtr(total, n *int64) *int64 {
	if total == nil || n == nil {
		return nil
	}
	sum := *total + *n
	return &sum
}

func sumSizes(sz sizes, keys []string) *int64 {
	if sz == nil {
		return nil
	}
	var n int64
	for _, k := range keys {
		n += sz[k]
	}
	return &n
}

// sortPlans orders the report by path.
func (p *Plan) sortPlans() {
	sort.Slice(p.Arrays, func(i, j int) bool { return p.Arrays[i].Path < p.Arrays[j].Path })
	sort.Slice(p.Groups, func(i, j int) bool { return p.Groups[i].Path < p.Groups[j].Path })
}
