package array

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
)

// Read returns the selected elements; the result's shape is sel.Shape().
func (a *Array) Read(ctx context.Context, sel grid.Selection) (*ndarray.Array, error) {
	if err := sel.Check(a.meta.Shape); err != nil {
		return nil, fmt.Errorf("array %s: %w", a.Name(), err)
	}
	projections := a.grid.Project(sel)
	if pd := a.partialDecoder(); pd != nil && len(projections) == 1 {
		return a.readOnePart(ctx, pd, sel, projections[0])
	}
	out := a.newOutput(sel)
	if err := a.readProjections(ctx, projections, out); err != nil {
		return nil, err
	}
	out.Shape = sel.Shape()
	return out, nil
}

// readInto reads a checked selection into out, whose shape is
// sel.Counts() and whose every element it sets (out may hold old data).
func (a *Array) readInto(ctx context.Context, sel grid.Selection, out *ndarray.Array) error {
	return a.readProjections(ctx, a.grid.Project(sel), out)
}

// readProjections reads each chunk's part of a selection into out, in
// parallel, as one read batch (a store may fetch neighbouring chunks in
// one request).
func (a *Array) readProjections(ctx context.Context, projections []grid.Projection, out *ndarray.Array) error {
	if len(projections) > 1 {
		ctx = store.WithReadBatch(ctx)
	}
	read := a.chunkReader(projections)
	return forEach(ctx, len(projections), a.opts.concurrency(), func(ctx context.Context, i int) error {
		return read(ctx, out, projections[i])
	})
}

// chunkRead reads one chunk's part of a selection into out.
type chunkRead func(ctx context.Context, out *ndarray.Array, p grid.Projection) error

// chunkReader picks how the chunks of a read of these projections are
// read: through the chunk cache (small reads), the partial decoder
// (sharding), straight into the output (a chunk that is one contiguous
// run of it), through a recycled scratch buffer, or decoded whole and
// copied. Each call of the result is independent of the others, so a
// stream can run the chunks of several slabs at once.
func (a *Array) chunkReader(projections []grid.Projection) chunkRead {
	if a.cacheable(projections) {
		return a.readCached
	}
	if pd := a.partialDecoder(); pd != nil {
		return a.partialReader(pd)
	}
	return func(ctx context.Context, out *ndarray.Array, p grid.Projection) error {
		if dst, ok := a.directTarget(out, p); ok {
			return a.readDirect(ctx, p.Chunk, dst)
		}
		if ok, _ := a.pipe.Direct(); ok {
			return a.readViaScratch(ctx, out, p)
		}
		chunk, err := a.ReadChunk(ctx, p.Chunk)
		if err != nil {
			return err
		}
		if chunk == nil {
			ndarray.FillRegion(out, p.Out, a.fill())
			return nil
		}
		return ndarray.CopyRegion(out, p.Out, chunk, p.InChunk)
	}
}

// ReadAll returns the whole array.
func (a *Array) ReadAll(ctx context.Context) (*ndarray.Array, error) {
	return a.Read(ctx, grid.All(a.meta.Shape))
}

// ReadChunk returns the decoded chunk at coords (full chunk shape), or nil
// when the chunk is not stored (it then reads as the fill value). Any
// failure other than a missing key is an error naming the array and key.
func (a *Array) ReadChunk(ctx context.Context, coords []int) (*ndarray.Array, error) {
	key := a.ChunkKey(coords)
	v, err := a.data.Get(ctx, key, store.ByteRange{})
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("array %s: read chunk %s: %w", a.Name(), key, err)
	}
	pipe, err := a.pipeAt(ctx, coords)
	if err != nil {
		return nil, err
	}
	chunk, err := pipe.Decode(ctx, v.Data)
	if err != nil {
		return nil, fmt.Errorf("array %s: chunk %s: %w", a.Name(), key, err)
	}
	return chunk, nil
}

// partialDecoder returns the chain's array->bytes codec when it can decode
// parts of a chunk on its own (sharding), else nil.
func (a *Array) partialDecoder() codec.PartialDecoder {
	ab, sole := a.pipe.ArrayBytes()
	if !sole {
		return nil
	}
	pd, _ := ab.(codec.PartialDecoder)
	return pd
}

// readOnePart reads a selection inside one chunk through the partial
// decoder and returns its result as the output, so that reading exactly
// one inner chunk of a shard costs no further copy.
func (a *Array) readOnePart(ctx context.Context, pd codec.PartialDecoder, sel grid.Selection, p grid.Projection) (*ndarray.Array, error) {
	key := a.ChunkKey(p.Chunk)
	pipe, err := a.pipeAt(ctx, p.Chunk)
	if err != nil {
		return nil, err
	}
	part, err := pd.DecodeRegion(ctx, pipe.Spec(), newChunkRanges(a.data, key), p.InChunk)
	if errors.Is(err, store.ErrNotFound) {
		part, err = ndarray.Filled(a.meta.DataType, sel.Counts(), a.fill()), nil
	}
	if err != nil {
		return nil, fmt.Errorf("array %s: chunk %s: %w", a.Name(), key, err)
	}
	if !slices.Equal(part.Shape, sel.Counts()) || part.Check() != nil {
		return nil, fmt.Errorf("array %s: chunk %s: %w: partial decode returned shape %v, want %v", a.Name(), key, codec.ErrCorrupt, part.Shape, sel.Counts())
	}
	part.Shape = sel.Shape()
	return part, nil
}

// partialReader reads a chunk's selected region through the partial
// decoder, which fetches only the byte ranges it needs.
func (a *Array) partialReader(pd codec.PartialDecoder) chunkRead {
	return func(ctx context.Context, out *ndarray.Array, p grid.Projection) error {
		key := a.ChunkKey(p.Chunk)
		pipe, err := a.pipeAt(ctx, p.Chunk)
		if err != nil {
			return err
		}
		spec := pipe.Spec()
		if pdi, ok := pd.(codec.PartialDecoderInto); ok {
			err := pdi.DecodeRegionInto(ctx, spec, newChunkRanges(a.data, key), p.InChunk, out, p.Out)
			if errors.Is(err, store.ErrNotFound) {
				ndarray.FillRegion(out, p.Out, a.fill())
				return nil
			}
			if err != nil {
				return fmt.Errorf("array %s: chunk %s: %w", a.Name(), key, err)
			}
			return nil
		}
		part, err := pd.DecodeRegion(ctx, spec, newChunkRanges(a.data, key), p.InChunk)
		if errors.Is(err, store.ErrNotFound) {
			ndarray.FillRegion(out, p.Out, a.fill())
			return nil
		}
		if err != nil {
			return fmt.Errorf("array %s: chunk %s: %w", a.Name(), key, err)
		}
		return ndarray.CopyRegion(out, p.Out, part, grid.WholeSpans(part.Shape))
	}
}
