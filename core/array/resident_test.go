package array

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
)

// regionCodec stands for sharding_indexed: it stores the chunk's element
// bytes and decodes regions of them, counting how often each inner chunk
// (of shape inner) is decoded, by key.
type regionCodec struct {
	inner   []int
	mu      sync.Mutex
	decoded map[string]int
}

func (*regionCodec) Name() string                   { return "sharding_indexed" }
func (*regionCodec) Configuration() json.RawMessage { return json.RawMessage(`{}`) }
func (*regionCodec) Encode(_ context.Context, _ codec.Spec, a *ndarray.Array) ([]byte, error) {
	return append([]byte(nil), a.Data...), nil
}
func (*regionCodec) Decode(_ context.Context, in codec.Spec, b []byte) (*ndarray.Array, error) {
	return &ndarray.Array{DType: in.DataType, Shape: in.Shape, Data: b}, nil
}

func (c *regionCodec) DecodeRegion(ctx context.Context, in codec.Spec, src codec.RangeReader, region []grid.Span) (*ndarray.Array, error) {
	counts := make([]int, len(region))
	for d, s := range region {
		counts[d] = s.Count
	}
	out := ndarray.New(in.DataType, counts)
	return out, c.DecodeRegionInto(ctx, in, src, region, out, grid.WholeSpans(counts))
}

func (c *regionCodec) DecodeRegionInto(ctx context.Context, in codec.Spec, src codec.RangeReader, region []grid.Span, dst *ndarray.Array, dstSel []grid.Span) error {
	size, err := src.Size(ctx)
	if err != nil {
		return err
	}
	parts, _, err := src.ReadRanges(ctx, []store.ByteRange{store.Range(0, size)})
	if err != nil {
		return err
	}
	chunk := &ndarray.Array{DType: in.DataType, Shape: in.Shape, Data: parts[0]}
	// every inner chunk the region touches counts as decoded
	g, err := grid.New(in.Shape, c.inner)
	if err != nil {
		return err
	}
	sel := make(grid.Selection, len(region))
	for d, s := range region {
		sel[d] = grid.Dim{Start: s.Start, Step: s.Step, Count: s.Count}
	}
	c.mu.Lock()
	for _, p := range g.Project(sel) {
		c.decoded[fmt.Sprint(src.Key(), p.Chunk)]++
	}
	c.mu.Unlock()
	return ndarray.CopyRegion(dst, dstSel, chunk, region)
}

// A sharded chunk's inner chunks cut across slabs are decoded once: the
// run of them the first slab needs stays resident for the next.
func TestStreamDecodesInnerChunksOnce(t *testing.T) {
	for _, c := range []struct {
		name                 string
		typ                  string
		shape, chunks, inner []int
	}{
		{"3d uint16", "uint16", []int{16, 6, 5}, []int{8, 6, 5}, []int{4, 3, 5}},
		{"2d int32 edge shards", "int32", []int{14, 9}, []int{8, 6}, []int{4, 3}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rc := &regionCodec{inner: c.inner, decoded: map[string]int{}}
			conf, _ := json.Marshal(map[string]any{"chunk_shape": c.inner, "codecs": []any{}})
			a := newStreamArray(t, store.NewMemory(), c.typ, c.shape, c.chunks,
				[]meta.Extension{{Name: "sharding_indexed", Configuration: conf}}, testResolver{"sharding_indexed": rc}, Options{Concurrency: 1})
			rc.decoded = map[string]int{}
			sel := grid.All(c.shape)
			// half the budget holds less than an inner chunk's rows; the
			// rest, once slabs are one row, holds them
			budget := int64(7 * ndarray.NumElements(c.shape[1:]) * a.meta.DataType.Size)
			checkStream(t, a, sel, budget, nil)
			if len(rc.decoded) == 0 {
				t.Fatal("nothing decoded through the partial decoder")
			}
			for k, n := range rc.decoded {
				if n != 1 {
					t.Fatalf("inner chunk %s decoded %d times", k, n)
				}
			}
		})
	}
}
