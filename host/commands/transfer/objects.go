package transfer

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/checked"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/host/commands/transfer/layout"
	"github.com/zarrgw/zarrgw/host/commands/transfer/report"
)

// objects are the destination objects of a plan in the order partitions
// are cut from, each with its weight: one more than its estimated bytes
// (so that objects of no bytes are spread by count too).
//
//   - a metadata document weighs its length;
//   - a key of a byte copy, its stored size in the source;
//   - a chunk of a rewrite, the stored bytes of the source chunks it
//     overlaps, each source chunk's shared among the chunks it overlaps by
//     the volume of the overlap;
//   - a chunk of an array written whole (see arrayObjects.dense), the
//     array's stored bytes shared among its chunks by elements, or where
//     the source cannot list sizes, its elements' bytes.
type objects struct {
	meta      []string // metadata documents, sorted: partition 0's
	metaBytes int64
	keys      []weightedKey   // a byte copy's other keys, in byte order
	arrays    []*arrayObjects // a rewrite's arrays, by path
	count     int64           // every object, metadata included
	total     int64           // their weights
}

type weightedKey struct {
	key    string
	weight int64
}

// arrayObjects are the chunks of one array's new grid that a rewrite
// writes.
type arrayObjects struct {
	node   *outNode
	counts []int // chunks along each dimension
	enc    grid.KeyEncoder
	prefix string // of its chunk keys
	// stored are the chunks holding stored source values, by linear
	// index, with their weights: the others would hold the fill value
	// only, which is not stored. When dense, every chunk of the grid is
	// written instead: the source cannot say which chunks it stores (it
	// cannot list sizes, or a storage transformer renames its keys), or
	// the destination held data (--merge) that chunks of fill values must
	// replace.
	stored []weightedChunk
	dense  bool
	// bytes is the array's stored size in the source, -1 when unknown.
	bytes int64
}

type weightedChunk struct {
	index, weight int64
}

// objects lists the plan's destination objects with their weights, once.
func (p *Plan) objects(ctx context.Context) (*objects, error) {
	if p.objs != nil {
		return p.objs, nil
	}
	sz, err := p.sizes(ctx)
	if err != nil {
		return nil, err
	}
	o := &objects{meta: p.metadataKeys()}
	for _, k := range o.meta {
		o.metaBytes += p.docSize(k, sz) + 1
	}
	o.count, o.total = int64(len(o.meta)), o.metaBytes
	if p.Mode == report.ModeCopy {
		for _, k := range p.keys {
			if isMetadataKey(k) {
				continue
			}
			w := sz[k] + 1 // a nil map (sizes unknown) reads 0: the keys are spread by count
			o.keys = append(o.keys, weightedKey{k, w})
			o.count++
			o.total += w
		}
		p.objs = o
		return o, nil
	}
	byNode := p.sourceKeysByNode(sz)
	for _, n := range p.nodes {
		if n.out.Array == nil {
			continue
		}
		a, err := p.arrayObjects(n, sz, byNode[n.src.Path])
		if err != nil {
			return nil, err
		}
		a.each(func(_, w int64) {
			o.count++
			o.total += w
		})
		o.arrays = append(o.arrays, a)
	}
	sort.Slice(o.arrays, func(i, j int) bool { return o.arrays[i].node.out.Path < o.arrays[j].node.out.Path })
	p.objs = o
	return o, nil
}

// metadataKeys are the metadata documents the copy writes, sorted: its
// nodes' (a byte copy's keys that are documents, a rewrite's rendered
// documents, merged ones), the groups created above --path, and the
// consolidated metadata.
func (p *Plan) metadataKeys() []string {
	set := map[string]bool{}
	if p.Mode == report.ModeCopy {
		for _, k := range p.keys {
			if isMetadataKey(k) {
				set[k] = true
			}
		}
	}
	for k := range p.docs {
		set[k] = true
	}
	for _, d := range p.ancestors {
		set[d.Key] = true
	}
	if k := p.consolidatedKey(); k != "" {
		set[k] = true
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// docSize is the length of a metadata document the copy writes, as far
// as the plan knows it (0 for consolidated metadata, made at the end).
func (p *Plan) docSize(key string, sz sizes) int64 {
	if d, ok := p.docs[key]; ok {
		return int64(len(d))
	}
	for _, d := range p.ancestors {
		if d.Key == key {
			return int64(len(d.Value))
		}
	}
	return sz[key]
}

// arrayObjects lists the chunks of n's new grid that the rewrite writes.
func (p *Plan) arrayObjects(n *outNode, sz sizes, keys []string) (*arrayObjects, error) {
	out := n.out.Array
	enc, err := grid.NewKeyEncoder(out.ChunkKey)
	if err != nil {
		return nil, fmt.Errorf("array %s: %w", n.out.Name(), err)
	}
	a := &arrayObjects{node: n, counts: layout.GridCounts(out), enc: enc,
		prefix: array.ChunkPrefix(out.Format, n.out.Path), bytes: -1}
	if b := sumSizes(sz, keys); b != nil {
		a.bytes = *b
	}
	weights := chunkWeights(n, sz, keys)
	if weights == nil || p.Target.State == report.StateMerge {
		a.dense = true
		return a, nil
	}
	a.stored = make([]weightedChunk, 0, len(weights))
	for idx, w := range weights {
		a.stored = append(a.stored, weightedChunk{index: idx, weight: w + 1})
	}
	sort.Slice(a.stored, func(i, j int) bool { return a.stored[i].index < a.stored[j].index })
	return a, nil
}

// each calls fn with every chunk written, by linear index in C order of
// the grid, and its weight.
func (a *arrayObjects) each(fn func(idx, weight int64)) {
	if !a.dense {
		for _, c := range a.stored {
			fn(c.index, c.weight)
		}
		return
	}
	out := a.node.out.Array
	total := layout.Product(a.counts)
	elems := int64(ndarray.NumElements(out.Shape))
	size := int64(max(out.DataType.Size, 1))
	coords := make([]int, len(a.counts))
	for idx := int64(0); idx < total; idx++ {
		e := int64(ndarray.NumElements(layout.ChunkBox(out, coords).Counts()))
		w := e * size
		if a.bytes >= 0 && elems > 0 {
			w = checked.MulDiv(a.bytes, e, elems)
		}
		fn(idx, w+1)
		layout.Next(coords, a.counts)
	}
}

// key is the destination key of the chunk at linear index idx.
func (a *arrayObjects) key(idx int64) string {
	return a.prefix + a.enc.Key(layout.Coords(idx, a.counts))
}

// chunkWeights weighs the chunks of n's new grid that overlap a stored
// source chunk (keys are the source's keys below the array), by linear
// index; nil when the source cannot say which chunks it stores.
func chunkWeights(n *outNode, sz sizes, keys []string) map[int64]int64 {
	src, out := n.src.Array, n.out.Array
	enc, err := grid.NewKeyEncoder(src.ChunkKey)
	if sz == nil || err != nil || len(src.StorageTransformers) > 0 {
		return nil
	}
	counts := layout.GridCounts(out)
	prefix := array.ChunkPrefix(src.Format, n.src.Path)
	weights := map[int64]int64{}
	for _, key := range keys {
		if !strings.HasPrefix(key, prefix) {
			continue
		}
		if coords, ok := enc.Parse(strings.TrimPrefix(key, prefix), len(src.Shape)); ok {
			layout.WeighOverlap(weights, coords, sz[key], src, out, counts)
		}
	}
	return weights
}
