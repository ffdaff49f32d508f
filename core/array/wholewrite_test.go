package array

import (
	"runtime"
	"testing"

	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
)

// A write of exactly one whole chunk is encoded as given, without a copy
// of the chunk assembled first (a copy chunk by chunk holds one chunk's
// bytes, not two), and reads back as written; a chunk of fill values only
// is still erased.
func TestWriteOfOneWholeChunkEncodesItAsGiven(t *testing.T) {
	s := store.NewMemory()
	a := newStreamArray(t, s, "uint16", []int{512, 512}, []int{256, 256}, []meta.Extension{{Name: "raw"}}, testResolver{"raw": rawCodec{}}, Options{})
	chunk := grid.Selection{{Start: 256, Step: 1, Count: 256}, {Start: 0, Step: 1, Count: 256}}
	data, err := a.Read(t.Context(), chunk)
	if err != nil {
		t.Fatal(err)
	}
	const chunkBytes = 256 * 256 * 2
	const writes = 10
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range writes {
		if err := a.Write(t.Context(), chunk, data); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	// the test's raw codec encodes into a new buffer and the memory store
	// copies the value it is given: two chunks' bytes; a chunk assembled
	// first would be a third
	if perWrite := (after.TotalAlloc - before.TotalAlloc) / writes; perWrite >= chunkBytes*5/2 {
		t.Fatalf("%d bytes allocated per write of a %d-byte chunk: the chunk was copied before encoding", perWrite, chunkBytes)
	}
	checkStream(t, a, chunk, 0, nil)

	key := a.ChunkKey([]int{1, 0})
	if err := a.Write(t.Context(), chunk, ndarray.New(data.DType, data.Shape)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(t.Context(), key, store.ByteRange{}); err == nil {
		t.Fatalf("chunk %s of fill values only was stored", key)
	}
}
