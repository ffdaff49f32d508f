package sharding

import (
	"encoding/binary"
	"testing"

	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
)

// One shard [64 64] of int32 inner chunks [8 8]: 64 inner chunks of 256
// raw bytes and an index of 64*16+4 bytes.
const (
	indexBytes = 64*16 + 4
	chunkBytes = 8 * 8 * 4
)

func ioArray(t *testing.T, s store.Store, m *meta.ArrayMeta) *ndarray.Array {
	t.Helper()
	a, err := hierarchy.CreateArray(ctx, s, "big", m, opts())
	if err != nil {
		t.Fatal(err)
	}
	data := ndarray.New(m.DataType, m.Shape)
	for i := range data.Len() {
		binary.LittleEndian.PutUint32(data.Data[4*i:], uint32(i+1))
	}
	if err := a.WriteAll(ctx, data); err != nil {
		t.Fatal(err)
	}
	return data
}

// reads opens the array afresh (no cached index) on a counting store and
// reads sel; it returns the counter.
func reads(t *testing.T, s store.Store, ref *ndarray.Array, sels ...grid.Selection) *counting {
	t.Helper()
	c := &counting{Store: s}
	// without the optional operations of s: every read is a counted Get
	a, err := hierarchy.OpenArray(ctx, store.WithOptional(c, store.Optional{}), "big", opts())
	if err != nil {
		t.Fatal(err)
	}
	c.reset()
	for _, sel := range sels {
		got, err := a.Read(ctx, sel)
		if err != nil {
			t.Fatal(err)
		}
		if string(got.Data) != string(expect(ref, sel).Data) {
			t.Fatalf("read %+v differs", sel)
		}
	}
	return c
}

func TestRequestCounts(t *testing.T) {
	dt := dtype.Named("int32")
	for _, sk := range storeKinds {
		t.Run(sk.name, func(t *testing.T) {
			s := sk.open(t)
			ref := ioArray(t, s, shardedMeta(dt, []int{64, 64}, []int{64, 64}, []int{8, 8}, `[{"name":"bytes","configuration":{"endian":"little"}}]`, "end"))
			cases := []struct {
				name     string
				sels     []grid.Selection
				gets     int64
				maxBytes int64
			}{
				{"one inner chunk", []grid.Selection{grid.Box([]int{8, 16}, []int{8, 8})}, 2, indexBytes + chunkBytes},
				{"one element", []grid.Selection{grid.Box([]int{9, 17}, []int{1, 1})}, 2, indexBytes + chunkBytes},
				{"a row of inner chunks", []grid.Selection{grid.Box([]int{8, 0}, []int{8, 64})}, 2, indexBytes + 8*chunkBytes},
				{"the whole shard", []grid.Selection{grid.All([]int{64, 64})}, 1, indexBytes + 64*chunkBytes},
				{"two chunks, index cached", []grid.Selection{grid.Box([]int{0, 0}, []int{8, 8}), grid.Box([]int{56, 56}, []int{8, 8})}, 3, indexBytes + 2*chunkBytes},
			}
			for _, c := range cases {
				n := reads(t, s, ref, c.sels...)
				if n.gets.Load() != c.gets || n.bytes.Load() > c.maxBytes {
					t.Errorf("%s: %d reads of %d bytes, want %d reads of at most %d bytes:\n%v", c.name, n.gets.Load(), n.bytes.Load(), c.gets, c.maxBytes, n.log)
				}
			}
		})
	}
}

// TestTransformerRequestCounts: reading one chunk through the transformer
// reads the shard's index and the chunk; with the index cached, the chunk.
func TestTransformerRequestCounts(t *testing.T) {
	dt := dtype.Named("int32")
	s := store.NewMemory()
	ref := ioArray(t, s, transformedMeta(dt, []int{64, 64}, []int{8, 8}, []int{8, 8}, []meta.Extension{bytesLE(dt)}))
	rawIndex := int64(64 * 16)
	n := reads(t, s, ref, grid.Box([]int{8, 16}, []int{8, 8}))
	if n.gets.Load() != 2 || n.bytes.Load() != rawIndex+chunkBytes {
		t.Errorf("one chunk: %d reads of %d bytes: %v", n.gets.Load(), n.bytes.Load(), n.log)
	}
	n = reads(t, s, ref, grid.Box([]int{8, 16}, []int{8, 8}), grid.Box([]int{16, 16}, []int{8, 8}))
	if n.gets.Load() != 3 {
		t.Errorf("two chunks of one shard: %d reads, want 3 (index once): %v", n.gets.Load(), n.log)
	}
}
