package transfer

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/host/commands/transfer/layout"
)

// rewriteShare makes a part of a rewrite (the whole copy is the part
// 0/1): partition 0's group documents first, then the chunks of its part, each whole (read
// from the source, encoded, written once), in parallel, each recorded in
// the journal when written, then partition 0's array documents, but for
// the arrays of which a chunk failed in this partition. A chunk that
// fails is counted and the others go on; a failure of a store itself (a
// StoreFault) or the end of ctx stops the run.
func (p *Plan) rewriteShare(ctx context.Context, src, dst Endpoint, opts Options, sh *share) (Summary, error) {
	var s Summary
	var total int64
	for _, run := range sh.chunks {
		run.each(func(idx int64) bool {
			total += int64(ndarray.NumElements(layout.ChunkBox(run.a.node.out.Array, layout.Coords(idx, run.a.counts)).Counts()))
			return true
		})
	}
	progress := opts.progress()
	progress.Start("elements", total)
	defer progress.Finish()
	fail := func(err error) error { return s.failure(ctx, err) }
	if err := p.writeShareDocs(ctx, dst, opts, &s, sh, "g ", nil); err != nil {
		return s, err
	}
	failed := map[*outNode]bool{} // arrays of which a chunk failed
	for _, run := range sh.chunks {
		if err := ctx.Err(); err != nil {
			return s, err
		}
		before := s.Failed
		c, err := newChunkCopier(ctx, src, dst, run.a.node, opts)
		if err == nil {
			err = c.copyRun(ctx, run, opts, &s)
		}
		if err != nil {
			if err := fail(err); err != nil {
				return s, err
			}
		}
		if s.Failed > before {
			failed[run.a.node] = true
		}
	}
	// an array's metadata after its chunks, and not at all where one of
	// them failed here (see rewriteNode)
	return s, p.writeShareDocs(ctx, dst, opts, &s, sh, "m ", failed)
}

// writeShareDocs writes, when the partition writes metadata, the
// documents of the nodes whose journal entries begin with kind ("g " for
// groups, "m " for arrays), except those of the arrays in skip (whose
// failed chunks the summary names).
func (p *Plan) writeShareDocs(ctx context.Context, dst Endpoint, opts Options, s *Summary, sh *share, kind string, skip map[*outNode]bool) error {
	if !sh.metadata {
		return nil
	}
	for _, n := range p.nodes {
		if (n.out.Array != nil) != (kind == "m ") || skip[n] {
			continue
		}
		if err := writeDocs(ctx, dst, kind+n.out.Path, opts, s, n.docs); err != nil {
			if err := s.failure(ctx, fmt.Errorf("node %s: %w", n.out.Name(), err)); err != nil {
				return err
			}
		}
	}
	return nil
}

// chunkCopier copies whole chunks of an array's new grid from the source
// array, in bounded memory.
type chunkCopier struct {
	from, to *array.Array
	// copies of a chunk's elements held in flight: the box read (which
	// Array.Write encodes as it is when it is a whole chunk), and for a
	// shard its inner chunks; scratch is the source chunk a box is read
	// through, when the grids differ.
	copies, scratch int64
	// inner is the shape of the new chunks' inner chunks when sharded: a
	// chunk too large for memory is written in pieces cut at them.
	inner []int
	// elem is an element's bytes in memory; piece bounds a piece's.
	elem, piece int64
	// inFlight bounds the chunks copied at once: as many as the memory
	// budget holds (see memory), at most the jobs.
	inFlight int
}

func newChunkCopier(ctx context.Context, src, dst Endpoint, n *outNode, opts Options) (*chunkCopier, error) {
	from, err := array.New(ctx, src.Store, n.src.Path, n.src.Array, src.Options)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src.Name, err)
	}
	to, err := array.New(ctx, dst.Store, n.out.Path, n.out.Array, dst.Options)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dst.Name, err)
	}
	budget := opts.Stream.MemoryBudget
	if budget <= 0 {
		budget = DefaultMemoryBudget
	}
	c := &chunkCopier{from: from, to: to, inner: to.InnerChunkShape(), elem: to.ElemBytes(), copies: 1}
	if c.inner != nil {
		// the sharding codec holds its inner chunks, cut from the shard
		// and encoded, until it has the shard's bytes: a copy more
		c.copies++
	}
	if !slices.Equal(n.src.Array.ChunkShape, n.out.Array.ChunkShape) {
		// a box across source chunks decodes each through a scratch
		// buffer of a source chunk's size, as many at once as the
		// source reads chunks
		c.scratch = int64(ndarray.NumElements(n.src.Array.ChunkShape)) * from.ElemBytes() * int64(readers(src.Options))
	}
	// a piece within the budget, the chunk whole where it fits, and as
	// many in flight as the budget holds
	chunk := int64(ndarray.NumElements(n.out.Array.ChunkShape)) * c.elem
	perByte := 8*c.copies + 9 // eighths of a byte held per byte of a piece
	c.piece = max(min(chunk, (budget-c.scratch)*8/perByte), 1)
	c.inFlight = int(min(max(budget/c.memory(c.piece), 1), int64(opts.jobs())))
	return c, nil
}

// readers is how many chunks an array opened with o reads at once
// (array.Options.Concurrency, whose default is two per core).
func readers(o array.Options) int {
	if o.Concurrency > 0 {
		return o.Concurrency
	}
	return 2 * runtime.GOMAXPROCS(0)
}

// DefaultMemoryBudget is what a rewrite holds in flight when
// Options.Stream does not say: two chunks of 32 MiB (256^3 elements of 2
// bytes) copied at once, to keep two cores encoding, and the process
// under 256 MiB.
const DefaultMemoryBudget = 144 << 20

// memory is what a chunk (or piece) of n bytes holds while copied: its
// elements, read, its encoded bytes, which a compressor makes at most an
// eighth larger (see codec's incompressible slack), and the scratch
// buffer of a source chunk it is read through.
func (c *chunkCopier) memory(n int64) int64 {
	return c.copies*n + n + n/8 + c.scratch
}

// copyRun copies the chunks of run that the journal does not have.
func (c *chunkCopier) copyRun(ctx context.Context, run *chunkRun, opts Options, s *Summary) error {
	out := run.a.node.out
	var mu sync.Mutex
	progress := opts.progress()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(c.inFlight)
	run.each(func(idx int64) bool {
		coords := layout.Coords(idx, run.a.counts)
		box := layout.ChunkBox(out.Array, coords)
		elems := int64(ndarray.NumElements(box.Counts()))
		entry := "c " + out.Path + " " + strconv.FormatInt(idx, 10)
		if opts.Journal != nil {
			if _, ok := opts.Journal.Done(entry); ok {
				mu.Lock()
				s.Skipped++
				mu.Unlock()
				progress.Add(elems, 0)
				return true
			}
		}
		if gctx.Err() != nil {
			return false
		}
		g.Go(func() error {
			err := c.copy(gctx, box)
			if err == nil && opts.Journal != nil {
				err = opts.Journal.Record(entry, strconv.FormatInt(elems, 10))
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case gctx.Err() != nil:
				return gctx.Err() // stopped: what was in flight is not a failure
			case err != nil:
				return s.failure(gctx, fmt.Errorf("array %s: chunk %s: %w", out.Name(), c.to.ChunkKey(coords), err))
			default:
				s.Copied++
				s.Bytes += elems * int64(max(out.Array.DataType.Size, 1))
				progress.Add(elems, elems*int64(max(out.Array.DataType.Size, 1)))
			}
			return nil
		})
		return true
	})
	err := g.Wait()
	if err == nil {
		err = ctx.Err() // stopped before the last chunk started
	}
	return err
}

// copy reads the chunk's box from the source and writes it: at once, or
// in pieces when larger than the piece the memory budget allows (each
// piece then updates the part of the chunk it holds).
func (c *chunkCopier) copy(ctx context.Context, box grid.Selection) error {
	for _, piece := range layout.Pieces(box, c.inner, c.elem, c.piece) {
		data, err := c.from.Read(ctx, piece)
		if err != nil {
			return err
		}
		if err := c.to.Write(ctx, piece, data); err != nil {
			return err
		}
	}
	return nil
}
