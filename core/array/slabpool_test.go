package array

import (
	"runtime"
	"testing"

	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
)

// Small streamed reads repeated on one array take their slab buffers from
// the array's pool: the bytes allocated per read stay far below one slab.
func TestStreamReusesSmallSlabBuffers(t *testing.T) {
	s := store.NewMemory()
	a := newStreamArray(t, s, "uint16", []int{512, 512}, []int{256, 256}, []meta.Extension{{Name: "raw"}}, testResolver{"raw": rawCodec{}}, Options{})
	sel := grid.Selection{{Start: 0, Step: 1, Count: 256}, {Start: 0, Step: 1, Count: 256}}
	const slab = 256 * 256 * 2
	checkStream(t, a, sel, 0, nil) // fills the pool
	const reads = 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range reads {
		if err := a.Stream(t.Context(), sel, StreamOptions{}, func(*ndarray.Array) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if perRead := (after.TotalAlloc - before.TotalAlloc) / reads; perRead >= slab {
		t.Fatalf("%d bytes allocated per read of a %d-byte slab: its buffer is not reused", perRead, slab)
	}
}

// A recycled slab buffer holds the elements of the read before: every
// element of the next read must still be set, fill values of missing
// chunks included.
func TestStreamPooledSlabsHoldNothingStale(t *testing.T) {
	s := store.NewMemory()
	a := newStreamArray(t, s, "uint16", []int{8, 8}, []int{4, 4}, []meta.Extension{{Name: "raw"}}, testResolver{"raw": rawCodec{}}, Options{})
	missing := map[string]bool{a.ChunkKey([]int{1, 1}): true}
	if err := s.Erase(t.Context(), a.ChunkKey([]int{1, 1})); err != nil {
		t.Fatal(err)
	}
	stored := grid.Selection{{Start: 0, Step: 1, Count: 4}, {Start: 0, Step: 1, Count: 4}}
	gone := grid.Selection{{Start: 4, Step: 1, Count: 4}, {Start: 4, Step: 1, Count: 4}}
	for range 3 {
		checkStream(t, a, stored, 0, missing)
		checkStream(t, a, gone, 0, missing)
	}
}
