// Package array reads and writes Zarr arrays: selections are projected onto
// chunks, chunks travel between the store and the codec pipeline in
// parallel (bounded), and the pieces are assembled in memory.
package array

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
)

// Options configure how an array is read and written.
type Options struct {
	// Codecs resolves codec names from metadata. Required.
	Codecs codec.Resolver
	// Transformers resolves storage transformers named in metadata; nil
	// means arrays that name one cannot be opened.
	Transformers TransformerResolver
	// Concurrency bounds the chunks in flight per operation
	// (0 = 2 x GOMAXPROCS).
	Concurrency int
	// WriteEmptyChunks stores chunks whose every element equals the fill
	// value; by default they are erased instead.
	WriteEmptyChunks bool
	// MaxChunkBytes bounds decoded chunks of variable-length types
	// (0 = codec.DefaultMaxChunkBytes).
	MaxChunkBytes int64
	// Chunks, when set, keeps decoded chunks for small reads (see
	// ChunkCache); writes through the array drop what they change.
	Chunks ChunkCache
	// Limits bound what an array's metadata may ask for (zero fields:
	// meta's defaults); an array beyond them is not opened.
	Limits meta.Limits
}

// chunksPerCore is the default of Options.Concurrency per GOMAXPROCS: a
// chunk in flight often waits on its store, so two per core keep every
// core decoding while the other waits for bytes.
const chunksPerCore = 2

func (o Options) concurrency() int {
	if o.Concurrency > 0 {
		return o.Concurrency
	}
	return chunksPerCore * runtime.GOMAXPROCS(0)
}

// TransformerResolver builds the storage transformer named in an array's
// metadata on top of the store below it.
type TransformerResolver interface {
	Transformer(ctx context.Context, ext meta.Extension, next store.Store, a *meta.ArrayMeta, path string) (store.Store, error)
}

// ErrReadOnly is returned when writing an array whose format we only read.
var ErrReadOnly = errors.New("array is read-only")

// Array is an open Zarr array.
type Array struct {
	base   store.Store // the store holding metadata
	data   store.Store // the store holding chunks (after storage transformers)
	path   string
	meta   *meta.ArrayMeta
	grid   grid.Grid
	keys   grid.KeyEncoder
	prefix string
	pipe   *codec.Pipeline // the pipeline of chunks of ChunkShape
	// pipes holds a rectilinear grid's pipelines of other chunk shapes
	// (see pipeOf).
	pipes shapePipes
	opts  Options
	// scratch recycles whole-chunk decode buffers (*[]byte) between reads.
	scratch sync.Pool
	// encoded recycles buffers of stored (encoded) chunks (*[]byte).
	encoded sync.Pool
	// slabs recycles the small slab buffers of streamed reads (*[]byte).
	slabs sync.Pool
}

// New opens an array whose metadata has already been read.
func New(ctx context.Context, s store.Store, path string, m *meta.ArrayMeta, opts Options) (*Array, error) {
	a := &Array{base: s, data: s, path: path, meta: m, opts: opts, prefix: ChunkPrefix(m.Format, path)}
	if err := a.init(ctx); err != nil {
		return nil, fmt.Errorf("array %s: %w", a.Name(), err)
	}
	return a, nil
}

func (a *Array) init(ctx context.Context) error {
	if a.opts.Codecs == nil {
		return errors.New("no codec resolver configured")
	}
	// before any codec is resolved (a plugin may start) or buffer sized
	if err := a.meta.Check(a.opts.Limits); err != nil {
		return err
	}
	m, err := codec.ForArray(ctx, a.meta, a.opts.Codecs)
	if err != nil {
		return err
	}
	a.meta = m
	g, err := grid.ForArray(m, a.opts.Limits.ChunkEdgesLimit())
	if err != nil {
		return err
	}
	a.grid = g
	if a.keys, err = grid.NewKeyEncoder(m.ChunkKey); err != nil {
		return err
	}
	spec := codec.Spec{DataType: m.DataType, Shape: m.ChunkShape, FillValue: m.FillValue}
	if a.pipe, err = codec.NewPipeline(ctx, m.Codecs, a.opts.Codecs, spec, a.opts.MaxChunkBytes); err != nil {
		return err
	}
	for _, t := range m.StorageTransformers {
		if a.opts.Transformers == nil {
			if !t.MustUnderstand {
				continue
			}
			return fmt.Errorf("storage transformer not available: %s", t.Name)
		}
		if a.data, err = a.opts.Transformers.Transformer(ctx, t, a.data, m, a.path); err != nil {
			return fmt.Errorf("storage transformer %s: %w", t.Name, err)
		}
	}
	return nil
}

// Probe checks, before anything is stored, that an array of metadata m
// can be stored at path with opts: its codecs resolve and take its data
// type, its grid and chunk keys are valid, and its codec chain gives back
// a chunk of fill values it encoded (codec.Pipeline.Probe, on chunks of
// at most maxBytes; 0 for codec.DefaultProbeBytes). It stores nothing.
func Probe(ctx context.Context, path string, m *meta.ArrayMeta, opts Options, maxBytes int64) error {
	a, err := New(ctx, store.NewMemory(), path, m, opts)
	if err != nil {
		return err
	}
	if err := a.pipe.Probe(ctx, maxBytes); err != nil {
		return fmt.Errorf("array %s: %w", a.Name(), err)
	}
	return nil
}

// Name is the array's path for messages ("/" for a root array).
func (a *Array) Name() string { return "/" + a.path }

// Path is the array's node path ("" for the root).
func (a *Array) Path() string { return a.path }

// Meta returns the array's metadata. Callers must not modify it.
func (a *Array) Meta() *meta.ArrayMeta { return a.meta }

// Shape returns the array's shape.
func (a *Array) Shape() []int { return append([]int(nil), a.meta.Shape...) }

// Grid returns the chunk grid.
func (a *Array) Grid() grid.Grid { return a.grid }

// Pipeline returns the codec pipeline of the array's chunks.
func (a *Array) Pipeline() *codec.Pipeline { return a.pipe }

// ChunkKey is the store key of the chunk at coords.
func (a *Array) ChunkKey(coords []int) string { return a.prefix + a.keys.Key(coords) }

// fill is the fill value in memory form (nil = zero).
func (a *Array) fill() []byte { return a.meta.FillValue }

// writeMeta stores the array's metadata document(s).
func (a *Array) writeMeta(ctx context.Context) error {
	docs, err := MetadataDocs(a.meta, a.path)
	if err != nil {
		return err
	}
	for _, d := range docs {
		if _, err := a.base.Set(ctx, d.Key, d.Value, store.Condition{}); err != nil {
			return fmt.Errorf("write %s: %w", d.Key, err)
		}
	}
	return nil
}

// Doc is one metadata document to store.
type Doc struct {
	Key   string
	Value []byte
}

// MetadataDocs renders an array's metadata as the documents of its format.
func MetadataDocs(m *meta.ArrayMeta, path string) ([]Doc, error) {
	switch m.Format {
	case meta.V3:
		b, err := m.MarshalV3()
		if err != nil {
			return nil, err
		}
		return []Doc{{V3MetaKey(path), b}}, nil
	case meta.V2:
		zarray, zattrs, err := m.MarshalV2()
		if err != nil {
			return nil, err
		}
		docs := []Doc{{V2ArrayKey(path), zarray}}
		if zattrs != nil {
			docs = append(docs, Doc{V2AttrsKey(path), zattrs})
		}
		return docs, nil
	}
	return nil, fmt.Errorf("%w: %s metadata cannot be written", ErrReadOnly, m.Format)
}

// Create stores the metadata of a new array (not its ancestors; see the
// hierarchy package) and opens it.
func Create(ctx context.Context, s store.Store, path string, m *meta.ArrayMeta, opts Options) (*Array, error) {
	a := &Array{base: s, data: s, path: path, meta: m, opts: opts, prefix: ChunkPrefix(m.Format, path)}
	if err := a.init(ctx); err != nil {
		return nil, fmt.Errorf("array %s: %w", a.Name(), err)
	}
	if err := a.writeMeta(ctx); err != nil {
		return nil, fmt.Errorf("array %s: %w", a.Name(), err)
	}
	return a, nil
}

// SetAttributes replaces the array's attributes (a JSON object) and stores
// the metadata.
func (a *Array) SetAttributes(ctx context.Context, attrs json.RawMessage) error {
	m := *a.meta
	m.Attributes = attrs
	old := a.meta
	a.meta = &m
	if err := a.writeMeta(ctx); err != nil {
		a.meta = old
		return fmt.Errorf("array %s: %w", a.Name(), err)
	}
	return nil
}

// newOutput allocates the full-rank buffer a selection is assembled in.
func (a *Array) newOutput(sel grid.Selection) *ndarray.Array {
	return ndarray.New(a.meta.DataType, sel.Counts())
}
