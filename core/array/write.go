package array

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
)

// maxConflictRetries bounds the read-modify-write retries of one chunk.
const maxConflictRetries = 64

// Write stores data (of shape sel.Shape() and the array's data type) into
// the selected elements.
func (a *Array) Write(ctx context.Context, sel grid.Selection, data *ndarray.Array) error {
	if err := a.checkWrite(sel); err != nil {
		return err
	}
	if err := a.checkInput(sel, data); err != nil {
		return fmt.Errorf("array %s: %w", a.Name(), err)
	}
	src := *data
	src.Shape = sel.Counts()
	projections := a.grid.Project(sel)
	// Dropped before and after: a read racing the write may cache the
	// chunk as it was.
	a.dropCached(projections)
	defer a.dropCached(projections)
	return forEach(ctx, len(projections), a.opts.concurrency(), func(ctx context.Context, i int) error {
		p := projections[i]
		if p.Full(a.grid) {
			return a.writeFullChunk(ctx, p, &src)
		}
		return a.writePartialChunk(ctx, p, &src)
	})
}

// checkWrite verifies that the array can be written and sel selects in it.
func (a *Array) checkWrite(sel grid.Selection) error {
	if a.meta.Format == meta.V3Draft {
		return fmt.Errorf("array %s: %w (draft v3 layout)", a.Name(), ErrReadOnly)
	}
	if err := sel.Check(a.meta.Shape); err != nil {
		return fmt.Errorf("array %s: %w", a.Name(), err)
	}
	return nil
}

// WriteAll stores data as the whole array.
func (a *Array) WriteAll(ctx context.Context, data *ndarray.Array) error {
	return a.Write(ctx, grid.All(a.meta.Shape), data)
}

func (a *Array) checkInput(sel grid.Selection, data *ndarray.Array) error {
	if !data.DType.Equal(a.meta.DataType) {
		return fmt.Errorf("data of type %s written to an array of type %s", data.DType, a.meta.DataType)
	}
	if !slices.Equal(data.Shape, sel.Shape()) && !slices.Equal(data.Shape, sel.Counts()) {
		return fmt.Errorf("data of shape %v written to a selection of shape %v", data.Shape, sel.Shape())
	}
	return data.Check()
}

// chunkFrom builds a whole chunk: fill value, overlaid with the projection
// of src.
func (a *Array) chunkFrom(base *ndarray.Array, p grid.Projection, src *ndarray.Array) (*ndarray.Array, error) {
	if base == nil {
		base = ndarray.Filled(a.meta.DataType, a.grid.ChunkShapeAt(p.Chunk), a.fill())
	}
	if err := ndarray.CopyRegion(base, p.InChunk, src, p.Out); err != nil {
		return nil, err
	}
	return base, nil
}

// writeFullChunk replaces a chunk wholly covered by the write. A write
// whose data is that one chunk exactly (a copy chunk by chunk) is encoded
// as it is: assembling a copy of it first would hold a chunk's bytes more
// and pass over them once more. (Codecs never modify what they encode.)
func (a *Array) writeFullChunk(ctx context.Context, p grid.Projection, src *ndarray.Array) error {
	chunk := src
	if !slices.Equal(src.Shape, a.grid.ChunkShapeAt(p.Chunk)) || !slices.Equal(grid.WholeSpans(src.Shape), p.Out) {
		var err error
		if chunk, err = a.chunkFrom(nil, p, src); err != nil {
			return err
		}
	}
	key := a.ChunkKey(p.Chunk)
	if !a.opts.WriteEmptyChunks && chunk.IsFilled(a.fill()) {
		if err := a.data.Erase(ctx, key); err != nil {
			return fmt.Errorf("array %s: erase empty chunk %s: %w", a.Name(), key, err)
		}
		return nil
	}
	return a.storeChunk(ctx, key, chunk, store.Condition{})
}

// writePartialChunk merges the write into the stored chunk. Where the store
// supports conditional writes the merge is committed only if the chunk did
// not change since it was read, and retried otherwise, so concurrent
// writers to different parts of one chunk never lose each other's updates.
func (a *Array) writePartialChunk(ctx context.Context, p grid.Projection, src *ndarray.Array) error {
	if pe := a.partialEncoder(); pe != nil {
		return a.encodePartialChunk(ctx, p, src, pe)
	}
	key := a.ChunkKey(p.Chunk)
	conditional := a.data.Capabilities().ConditionalWrite
	for attempt := 0; attempt < maxConflictRetries; attempt++ {
		old, version, err := a.readForUpdate(ctx, key, p.Chunk)
		if err != nil {
			return err
		}
		chunk, err := a.chunkFrom(old, p, src)
		if err != nil {
			return err
		}
		cond := store.Condition{}
		if conditional {
			cond = store.Condition{IfMatch: version, IfNoneMatch: version == ""}
		}
		if !a.opts.WriteEmptyChunks && !conditional && chunk.IsFilled(a.fill()) {
			// Without conditional writes an erase is as safe as a write.
			if err := a.data.Erase(ctx, key); err != nil {
				return fmt.Errorf("array %s: erase empty chunk %s: %w", a.Name(), key, err)
			}
			return nil
		}
		err = a.storeChunk(ctx, key, chunk, cond)
		if !errors.Is(err, store.ErrConflict) {
			return err
		}
	}
	return fmt.Errorf("array %s: chunk %s: gave up after %d conflicting concurrent updates", a.Name(), key, maxConflictRetries)
}

// readForUpdate returns the decoded chunk (nil if absent) and its version
// ("" if absent).
func (a *Array) readForUpdate(ctx context.Context, key string, coords []int) (*ndarray.Array, string, error) {
	b, version, err := a.readStored(ctx, key)
	if b == nil || err != nil {
		return nil, "", err
	}
	pipe, err := a.pipeAt(ctx, coords)
	if err != nil {
		return nil, "", err
	}
	chunk, err := pipe.Decode(ctx, b)
	if err != nil {
		return nil, "", fmt.Errorf("array %s: chunk %s: %w", a.Name(), key, err)
	}
	return chunk, version, nil
}

// readStored returns the stored bytes of a chunk (nil if absent) and their
// version ("" if absent).
func (a *Array) readStored(ctx context.Context, key string) ([]byte, string, error) {
	v, err := a.data.Get(ctx, key, store.ByteRange{})
	if errors.Is(err, store.ErrNotFound) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("array %s: read chunk %s: %w", a.Name(), key, err)
	}
	if v.Version == "" && a.data.Capabilities().ConditionalWrite {
		return nil, "", fmt.Errorf("array %s: chunk %s: store returned no version for a conditional update", a.Name(), key)
	}
	if v.Data == nil {
		v.Data = []byte{}
	}
	return v.Data, v.Version, nil
}

// partialEncoder returns the chain's array->bytes codec when it can update
// part of a chunk on its own (sharding), else nil.
func (a *Array) partialEncoder() codec.PartialEncoder {
	ab, sole := a.pipe.ArrayBytes()
	if !sole {
		return nil
	}
	pe, _ := ab.(codec.PartialEncoder)
	return pe
}

// encodePartialChunk merges the write into the stored chunk through the
// codec's partial encoder, which re-uses the encoded bytes of the parts the
// write does not touch. It commits like writePartialChunk: conditionally
// on the version read, retried on conflict.
func (a *Array) encodePartialChunk(ctx context.Context, p grid.Projection, src *ndarray.Array, pe codec.PartialEncoder) error {
	key := a.ChunkKey(p.Chunk)
	pipe, err := a.pipeAt(ctx, p.Chunk)
	if err != nil {
		return err
	}
	conditional := a.data.Capabilities().ConditionalWrite
	for attempt := 0; attempt < maxConflictRetries; attempt++ {
		old, version, err := a.readStored(ctx, key)
		if err != nil {
			return err
		}
		b, empty, err := pe.EncodeRegion(ctx, pipe.Spec(), old, p.InChunk, src, p.Out)
		if err != nil {
			return fmt.Errorf("array %s: chunk %s: %w", a.Name(), key, err)
		}
		if empty && !a.opts.WriteEmptyChunks && !conditional {
			if err := a.data.Erase(ctx, key); err != nil {
				return fmt.Errorf("array %s: erase empty chunk %s: %w", a.Name(), key, err)
			}
			return nil
		}
		cond := store.Condition{}
		if conditional {
			cond = store.Condition{IfMatch: version, IfNoneMatch: version == ""}
		}
		_, err = a.data.Set(ctx, key, b, cond)
		if err == nil {
			return nil
		}
		if !errors.Is(err, store.ErrConflict) {
			return fmt.Errorf("array %s: write chunk %s: %w", a.Name(), key, err)
		}
	}
	return fmt.Errorf("array %s: chunk %s: gave up after %d conflicting concurrent updates", a.Name(), key, maxConflictRetries)
}

func (a *Array) storeChunk(ctx context.Context, key string, chunk *ndarray.Array, cond store.Condition) error {
	pipe, err := a.pipeOf(ctx, chunk.Shape)
	if err != nil {
		return err
	}
	b, err := pipe.Encode(ctx, chunk)
	if err != nil {
		return fmt.Errorf("array %s: encode chunk %s: %w", a.Name(), key, err)
	}
	if _, err := a.data.Set(ctx, key, b, cond); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return err
		}
		return fmt.Errorf("array %s: write chunk %s: %w", a.Name(), key, err)
	}
	return nil
}
