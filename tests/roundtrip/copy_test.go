package roundtrip

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand"
	"testing"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
)

// CopyFrom rewrites an array into another chunking and codec chain (and
// sharding), whatever the memory budget, and an interrupted copy resumed
// with Skip writes only the slabs the first run did not finish.
func TestCopyFrom(t *testing.T) {
	ctx := context.Background()
	for _, c := range streamCases() {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewSource(int64(len(c.name)) * 13))
			src, _ := newStreamArray(t, r, c, store.NewMemory(), "src")
			m := *src.Meta()
			m.ChunkShape = []int{1 + r.Intn(4), 1 + r.Intn(4), 1 + r.Intn(4)}
			m.Codecs = append([]meta.Extension(nil), stringOrBytes(c.dt)...)
			dst, err := hierarchy.CreateArray(ctx, store.NewMemory(), "dst", &m, array.Options{Codecs: registry.Codecs()})
			if err != nil {
				t.Fatal(err)
			}
			budget := array.StreamOptions{MemoryBudget: randomBudget(r, c.dt)}
			stop := errors.New("interrupted")
			done := map[int]bool{}
			err = dst.CopyFrom(ctx, src, array.CopyOptions{Stream: budget, Done: func(i int, _ int64) error {
				if len(done) == 2 {
					return stop
				}
				done[i] = true
				return nil
			}})
			if err != nil && !errors.Is(err, stop) {
				t.Fatal(err)
			}
			rewritten := 0
			err = dst.CopyFrom(ctx, src, array.CopyOptions{Stream: budget, Skip: func(i int) bool { return done[i] },
				Done: func(i int, _ int64) error {
					if done[i] {
						t.Errorf("slab %d copied twice", i)
					}
					rewritten++
					return nil
				}})
			if err != nil {
				t.Fatal(err)
			}
			want, err := src.ReadAll(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got, err := dst.ReadAll(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !sameElements(got, want) {
				t.Fatalf("shape %v chunks %v -> %v (budget %d): the copy differs", src.Shape(), src.Meta().ChunkShape, m.ChunkShape, budget.MemoryBudget)
			}
		})
	}
	// a mismatch of shape or type is refused
	a, _ := hierarchy.CreateArray(ctx, store.NewMemory(), "a", arrayMeta([]int{3}, "int8"), array.Options{Codecs: registry.Codecs()})
	b, _ := hierarchy.CreateArray(ctx, store.NewMemory(), "b", arrayMeta([]int{4}, "int8"), array.Options{Codecs: registry.Codecs()})
	if err := b.CopyFrom(ctx, a, array.CopyOptions{}); err == nil {
		t.Fatal("a copy between shapes [3] and [4] went through")
	}
}

// stringOrBytes is a chain for a data type other than the source's.
func stringOrBytes(dt dtype.DataType) []meta.Extension {
	if dt.Variable() {
		return []meta.Extension{ext("vlen-utf8", "{}"), ext("gzip", `{"level":1}`)}
	}
	return []meta.Extension{bytesCodec(dt, "big"), ext("gzip", `{"level":1}`)}
}

func arrayMeta(shape []int, dt string) *meta.ArrayMeta {
	return &meta.ArrayMeta{Format: meta.V3, Shape: shape, ChunkShape: shape, DataType: dtype.Named(dt),
		Codecs: []meta.Extension{ext("bytes", "")}, ChunkKey: meta.ChunkKeyEncoding{Name: "default", Separator: "/"},
		Attributes: json.RawMessage(`{}`)}
}
