package array

import (
	"context"
	"fmt"
	"slices"

	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// DefaultMemoryBudget is the memory a stream holds in slab buffers when
// StreamOptions does not say.
const DefaultMemoryBudget = 64 << 20

// StreamOptions configure streaming reads and writes.
type StreamOptions struct {
	// MemoryBudget bounds the bytes of the slab buffers a stream holds
	// (0 = DefaultMemoryBudget). Two slabs are held at once, one being
	// read or written while the next is prepared; each chunk being decoded
	// or encoded adds its own size.
	MemoryBudget int64
}

// DefaultReadMemoryBudget is the memory a streamed read (Stream) holds
// when StreamOptions does not say: more than a write's, so that chunks cut
// across slabs can stay open as streams (a compressed chunk's stream holds
// its window, 8 MiB for zstd's default level on large chunks) for every
// chunk of a chunk row of the usual arrays.
const DefaultReadMemoryBudget = 160 << 20

func (o StreamOptions) slabBytes() int64 {
	b := o.MemoryBudget
	if b <= 0 {
		b = DefaultMemoryBudget
	}
	return max(b/slabBuffersInFlight, 1)
}

func (o StreamOptions) readBudget() int64 {
	if o.MemoryBudget > 0 {
		return o.MemoryBudget
	}
	return DefaultReadMemoryBudget
}

// streamedSlabShare: when a read streams chunks cut across slabs, each of
// its two slab buffers takes 1/streamedSlabShare of the budget, and the
// open streams the rest (a slab of a few MiB keeps the cores as busy as a
// larger one).
const streamedSlabShare = 16

// ElemBytes is the memory an element takes in a slab (a variable-length
// element counts as dtype.VariableMemBytes).
func (a *Array) ElemBytes() int64 { return a.meta.DataType.MemBytes() }

func (a *Array) planSlabs(sel grid.Selection, opts StreamOptions) (slabPlan, error) {
	return a.planSlabsOf(sel, opts.slabBytes())
}

func (a *Array) planSlabsOf(sel grid.Selection, slabBytes int64) (slabPlan, error) {
	p, err := planSlabs(sel, a.grid.Axis, a.InnerChunkShape(), a.ElemBytes(), slabBytes)
	if err != nil {
		return p, fmt.Errorf("array %s: %w", a.Name(), err)
	}
	return p, nil
}

// InnerChunkShape is the shape of the inner chunks of a sharded array
// (meta.ArrayMeta.InnerChunkShape), or nil.
func (a *Array) InnerChunkShape() []int { return a.meta.InnerChunkShape() }

// Stream reads the selected elements slab by slab and calls emit with each
// slab, in order: the slabs' elements, one after the other, are the
// selection's elements in C order. A slab's shape is that of its part of
// the selection at full rank (dropped dimensions count 1). The slab is
// valid only during the call: its buffer is reused. The next slab is read
// while emit runs. A failed read ends the stream with an error naming the
// array and chunk; slabs already emitted are not taken back, so callers
// must treat the whole output as failed.
func (a *Array) Stream(ctx context.Context, sel grid.Selection, opts StreamOptions, emit func(*ndarray.Array) error) error {
	if err := sel.Check(a.meta.Shape); err != nil {
		return fmt.Errorf("array %s: %w", a.Name(), err)
	}
	plan, streams, err := a.planRead(ctx, sel, opts.readBudget())
	if err != nil {
		return err
	}
	alloc, release := a.pooledSlabBuffers(plan)
	defer release()
	return a.readSlabs(ctx, plan, streams, alloc, emit)
}

// maxPooledSlab bounds the slab buffers a read takes from and gives back
// to the array's pool: the small reads a server repeats on one kept array
// (a tile, an inner chunk) then allocate nothing, where a fresh buffer costs
// the runtime's clearing of it, as much as decoding a small chunk. Larger
// slabs are rare and would only pin memory between reads.
const maxPooledSlab = 8 << 20

// pooledSlabBuffers is slabBuffers for a streamed read whose slabs are
// small and fixed-size: its buffers come from the array's pool and go back
// to it when release is called, after the read has ended (readSlabs
// returns only once nothing writes into them).
func (a *Array) pooledSlabBuffers(plan slabPlan) (alloc func() *ndarray.Array, release func()) {
	size := int64(plan.maxElems) * int64(a.meta.DataType.Size)
	if a.meta.DataType.Variable() || size > maxPooledSlab || size == 0 {
		return a.slabBuffers(plan), func() {}
	}
	var taken []*[]byte
	alloc = func() *ndarray.Array {
		buf := takeBuffer(&a.slabs, int(size))
		taken = append(taken, buf) // alloc runs on the producer alone
		return &ndarray.Array{DType: a.meta.DataType, Shape: []int{plan.maxElems}, Data: (*buf)[:size]}
	}
	release = func() {
		for _, buf := range taken {
			a.slabs.Put(buf)
		}
	}
	return alloc, release
}

// planRead plans a streamed read within budget: two slabs of half of it,
// unless those slabs cut chunks that can be read as streams and the
// streams of a slab fit what smaller slabs leave of the budget.
func (a *Array) planRead(ctx context.Context, sel grid.Selection, budget int64) (slabPlan, *chunkStreams, error) {
	plan, err := a.planSlabsOf(sel, max(budget/slabBuffersInFlight, 1))
	if err != nil || a.newChunkStreams(plan, 0) == nil {
		return plan, nil, err
	}
	// no smaller than one index at the level: smaller slabs would move
	// the level down and cut every chunk along the level before it
	row := a.ElemBytes()
	for _, n := range plan.counts[plan.level+1:] {
		row *= int64(n) // fits: one index at the level fit the first plan
	}
	slab := max(budget/streamedSlabShare, row)
	if slabBuffersInFlight*slab >= budget {
		return plan, nil, nil
	}
	small, err := a.planSlabsOf(sel, slab)
	if err != nil {
		return plan, nil, err
	}
	streams := a.newChunkStreams(small, budget-slabBuffersInFlight*slab)
	if streams == nil || !streams.fit(ctx, small) {
		return plan, nil, nil
	}
	return small, streams, nil
}

// WriteStream writes the selected elements slab by slab: fill is called
// with each slab, in order, to set its elements (the next part of the
// input, in C order), and the slab is then written while fill prepares
// the next one. Chunks a slab covers only in part are merged with their
// stored contents, as Write does.
func (a *Array) WriteStream(ctx context.Context, sel grid.Selection, opts StreamOptions, fill func(*ndarray.Array) error) error {
	if err := a.checkWrite(sel); err != nil {
		return err
	}
	plan, err := a.planSlabs(sel, opts)
	if err != nil {
		return err
	}
	return pipeSlabs(ctx, a.slabBuffers(plan), plan, nil,
		func(_ context.Context, _ int, _ grid.Selection, slab *ndarray.Array) error {
			return fill(slab)
		},
		func(ctx context.Context, _ int, sub grid.Selection, slab *ndarray.Array) error {
			return a.Write(ctx, sub, slab)
		})
}

// CopyOptions configure CopyFrom.
type CopyOptions struct {
	Stream StreamOptions
	// Skip, when set, reports the slabs (by index) already copied by an
	// earlier, interrupted copy with the same options: they are left as
	// they are.
	Skip func(slab int) bool
	// Done, when set, is called after each slab is written, with its
	// index and element count; an error from it ends the copy.
	Done func(slab int, elements int64) error
}

// CopyFrom writes every element of src, an array of the same shape and
// data type, into a, slab by slab: slabs follow a's chunks, so each of
// its chunks is encoded once (unless one chunk row is larger than the
// memory budget), and memory stays within the budget.
func (a *Array) CopyFrom(ctx context.Context, src *Array, opts CopyOptions) error {
	if !slices.Equal(src.meta.Shape, a.meta.Shape) || !src.meta.DataType.Equal(a.meta.DataType) {
		return fmt.Errorf("array %s: copy from %s of shape %v and type %s into shape %v and type %s",
			a.Name(), src.Name(), src.meta.Shape, src.meta.DataType, a.meta.Shape, a.meta.DataType)
	}
	sel := grid.All(a.meta.Shape)
	if err := a.checkWrite(sel); err != nil {
		return err
	}
	plan, err := a.planSlabs(sel, opts.Stream)
	if err != nil {
		return err
	}
	return pipeSlabs(ctx, a.slabBuffers(plan), plan, opts.Skip,
		func(ctx context.Context, _ int, sub grid.Selection, slab *ndarray.Array) error {
			return src.readInto(ctx, sub, slab)
		},
		func(ctx context.Context, i int, sub grid.Selection, slab *ndarray.Array) error {
			if err := a.Write(ctx, sub, slab); err != nil {
				return err
			}
			if opts.Done != nil {
				return opts.Done(i, int64(slab.Len()))
			}
			return nil
		})
}

// slabBuffers returns a function that hands out the two slab buffers of a
// plan, allocated on first use.
func (a *Array) slabBuffers(plan slabPlan) func() *ndarray.Array {
	return func() *ndarray.Array {
		return ndarray.New(a.meta.DataType, []int{plan.maxElems})
	}
}

// slabStage is one stage of pipeSlabs, given the slab's index in the plan.
type slabStage func(ctx context.Context, i int, sub grid.Selection, slab *ndarray.Array) error

// pipeSlabs runs first on each slab of plan (but those skip reports) in
// one goroutine and then on the same slab in the caller's, so that the two
// stages overlap: while second works on slab i, first prepares slab i+1 in
// the other buffer. The first error of either stage ends both and is
// returned.
func pipeSlabs(ctx context.Context, alloc func() *ndarray.Array, plan slabPlan, skip func(int) bool, first, second slabStage) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type slab struct {
		i   int
		sub grid.Selection
		buf *ndarray.Array
		err error
	}
	free := make(chan *ndarray.Array, slabBuffersInFlight)
	ready := make(chan slab)
	allocated := 0
	go func() {
		defer close(ready)
		i := -1
		plan.each(func(sub grid.Selection) bool {
			i++
			if skip != nil && skip(i) {
				return ctx.Err() == nil
			}
			buf, ok := slabBuffer(ctx, free, &allocated, slabBuffersInFlight, alloc)
			if !ok {
				return false
			}
			shapeSlab(buf, sub.Counts())
			err := first(ctx, i, sub, buf)
			select {
			case ready <- slab{i, sub, buf, err}:
				return err == nil
			case <-ctx.Done():
				return false
			}
		})
	}()
	var err error
	for s := range ready {
		if err == nil {
			err = s.err
		}
		if err == nil {
			err = second(ctx, s.i, s.sub, s.buf)
		}
		if err != nil {
			cancel() // the producer stops; the loop drains what it sent
			continue
		}
		free <- s.buf
	}
	if err == nil {
		err = ctx.Err()
	}
	return err
}

// shapeSlab gives a slab buffer the shape of the slab it is about to hold.
func shapeSlab(buf *ndarray.Array, shape []int) {
	n := ndarray.NumElements(shape)
	buf.Shape = append(buf.Shape[:0], shape...)
	if buf.DType.Variable() {
		buf.Strings = buf.Strings[:n]
	} else {
		buf.Data = buf.Data[:n*buf.DType.Size]
	}
}
