package array

import (
	"context"
	"errors"
	"fmt"

	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
)

// directTarget returns the part of out's bytes that chunk projection p
// fills, when that part is one contiguous run holding the whole chunk in
// its own C order (chunks spanning whole rows, read in full). The chunk can
// then be read or decoded straight into the output.
func (a *Array) directTarget(out *ndarray.Array, p grid.Projection) ([]byte, bool) {
	// A compressed chunk is decompressed straight into the output too: a
	// scratch buffer would save nothing but cost a second pass over every
	// byte (the output's pages are touched either way, and a stream's slab
	// buffers are recycled, so they are warm after the first two slabs).
	if ok, _ := a.pipe.Direct(); !ok {
		return nil, false
	}
	return ndarray.BlockRun(out, p.Out, a.grid.ChunkShapeAt(p.Chunk), p.InChunk)
}

// readDirect reads one chunk into dst (see directTarget); a missing chunk
// fills dst with the fill value.
func (a *Array) readDirect(ctx context.Context, coords []int, dst []byte) error {
	found, err := a.decodeInto(ctx, coords, dst)
	if err == nil && !found {
		ndarray.FillBytes(dst, a.fillElement())
	}
	return err
}

// decodeInto reads and decodes one chunk into dst, reporting false (and
// leaving dst alone) when the chunk is not stored.
func (a *Array) decodeInto(ctx context.Context, coords []int, dst []byte) (bool, error) {
	key := a.ChunkKey(coords)
	if _, raw := a.pipe.Direct(); raw {
		if store.OptionalOf(a.data).Into {
			done, err := a.data.GetInto(ctx, key, dst)
			if errors.Is(err, store.ErrNotFound) {
				return false, nil
			}
			if err != nil {
				return false, fmt.Errorf("array %s: read chunk %s: %w", a.Name(), key, err)
			}
			if done {
				return true, nil
			}
			// wrong size: fall through so the decoder reports it
		}
	}
	encoded, release, err := a.getEncoded(ctx, key)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("array %s: read chunk %s: %w", a.Name(), key, err)
	}
	defer release()
	pipe, err := a.pipeAt(ctx, coords)
	if err != nil {
		return false, err
	}
	if err := pipe.DecodeInto(ctx, encoded, dst); err != nil {
		return false, fmt.Errorf("array %s: chunk %s: %w", a.Name(), key, err)
	}
	return true, nil
}

// getEncoded reads a stored chunk, into a recycled buffer where the store
// reads into buffers; release hands the buffer back once the bytes are
// decoded. A fresh buffer per chunk would grow the heap by every chunk
// read between two collections, and first touches of new heap memory cost
// more than the decoding (bench/stream).
func (a *Array) getEncoded(ctx context.Context, key string) ([]byte, func(), error) {
	var pooled *[]byte
	data, _, err := readWhole(ctx, a.data, key, func(n int64) []byte {
		pooled = takeBuffer(&a.encoded, int(n))
		return (*pooled)[:n]
	})
	release := func() {}
	if pooled != nil {
		release = func() { a.encoded.Put(pooled) }
	}
	if err != nil {
		release()
		return nil, nil, err
	}
	return data, release, nil
}

// fillElement is the fill value's bytes, zeroes when there is none.
func (a *Array) fillElement() []byte {
	if f := a.fill(); f != nil {
		return f
	}
	return make([]byte, a.meta.DataType.Size)
}

// readViaScratch decodes a chunk into a recycled buffer and copies its
// selected part into out: no allocation per chunk, which for fast codecs
// costs as much as the decoding itself.
func (a *Array) readViaScratch(ctx context.Context, out *ndarray.Array, p grid.Projection) error {
	shape := a.grid.ChunkShapeAt(p.Chunk)
	n := ndarray.NumElements(shape) * a.meta.DataType.Size
	buf := takeBuffer(&a.scratch, n)
	defer a.scratch.Put(buf)
	chunk := &ndarray.Array{DType: a.meta.DataType, Shape: shape, Data: (*buf)[:n]}
	found, err := a.decodeInto(ctx, p.Chunk, chunk.Data)
	if err != nil {
		return err
	}
	if !found {
		// only the selected part: a missing chunk costs nothing more
		ndarray.FillRegion(out, p.Out, a.fill())
		return nil
	}
	return ndarray.CopyRegion(out, p.Out, chunk, p.InChunk)
}
