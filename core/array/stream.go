package array

import (
	"context"
	"fmt"

	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// DefaultMemoryBudget is the memory a stream holds in slab buffers when
// StreamOptions does not say.
const DefaultMemoryBudget = 64 << 20

// variableElemBytes is what an element of a variable-length type is
// assumed to cost when slabs are sized (a string header and its bytes).
const variableElemBytes = 64

// StreamOptions configure streaming reads and writes.
type StreamOptions struct {
	// MemoryBudget bounds the bytes of the slab buffers a stream holds
	// (0 = DefaultMemoryBudget). Two slabs are held at once, one being
	// read or written while the next is prepared; each chunk being decoded
	// or encoded adds its own size.
	MemoryBudget int64
}

func (o StreamOptions) slabBytes() int64 {
	b := o.MemoryBudget
	if b <= 0 {
		b = DefaultMemoryBudget
	}
	return max(b/2, 1)
}

// elemBytes is the memory an element takes in a slab.
func (a *Array) elemBytes() int64 {
	if a.meta.DataType.Variable() {
		return variableElemBytes
	}
	return int64(a.meta.DataType.Size)
}

func (a *Array) planSlabs(sel grid.Selection, opts StreamOptions) slabPlan {
	return planSlabs(sel, a.meta.ChunkShape, a.elemBytes(), opts.slabBytes())
}

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
	plan := a.planSlabs(sel, opts)
	return pipeSlabs(ctx, a.slabBuffers(plan), plan,
		func(ctx context.Context, sub grid.Selection, slab *ndarray.Array) error {
			return a.readInto(ctx, sub, slab)
		},
		func(_ context.Context, _ grid.Selection, slab *ndarray.Array) error {
			return emit(slab)
		})
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
	plan := a.planSlabs(sel, opts)
	return pipeSlabs(ctx, a.slabBuffers(plan), plan,
		func(_ context.Context, _ grid.Selection, slab *ndarray.Array) error {
			return fill(slab)
		},
		func(ctx context.Context, sub grid.Selection, slab *ndarray.Array) error {
			return a.Write(ctx, sub, slab)
		})
}

// slabBuffers returns a function that hands out the two slab buffers of a
// plan, allocated on first use.
func (a *Array) slabBuffers(plan slabPlan) func() *ndarray.Array {
	return func() *ndarray.Array {
		return ndarray.New(a.meta.DataType, []int{plan.maxElems})
	}
}

// pipeSlabs runs first on each slab of plan in one goroutine and then on
// the same slab in the caller's, so that the two stages overlap: while
// second works on slab i, first prepares slab i+1 in the other buffer.
// The first error of either stage ends both and is returned.
func pipeSlabs(ctx context.Context, alloc func() *ndarray.Array, plan slabPlan, first, second func(context.Context, grid.Selection, *ndarray.Array) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type slab struct {
		sub grid.Selection
		buf *ndarray.Array
		err error
	}
	free := make(chan *ndarray.Array, 2)
	ready := make(chan slab)
	allocated := 0
	go func() {
		defer close(ready)
		plan.each(func(sub grid.Selection) bool {
			var buf *ndarray.Array
			select {
			case buf = <-free:
			default:
				if allocated < 2 {
					allocated++
					buf = alloc()
				} else {
					select {
					case buf = <-free:
					case <-ctx.Done():
						return false
					}
				}
			}
			shapeSlab(buf, sub.Counts())
			err := first(ctx, sub, buf)
			select {
			case ready <- slab{sub, buf, err}:
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
			err = second(ctx, s.sub, s.buf)
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
