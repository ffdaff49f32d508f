package app

import (
	"os"
	"runtime/debug"

	"github.com/zarrgw/zarrgw/core/array"
)

// streamOptions bound a streamed read or write to memory bytes of
// elements in flight (0: the default).
func streamOptions(memory int64) array.StreamOptions {
	return array.StreamOptions{MemoryBudget: memory}
}

// defaultReadMemory is the memory budget of a streamed read (cat) when
// the command line does not say (array.DefaultReadMemoryBudget).
const defaultReadMemory = array.DefaultReadMemoryBudget

// heapHeadroom is what a process needs beside the elements in flight:
// stacks, codec state (a compressor's window), metadata. Kept small, as
// the process's code and the runtime's own memory come on top of the
// heap in its resident size (a rewrite with the default budget peaks
// near 225 MiB with it, 250 MiB with twice as much).
const heapHeadroom = 32 << 20

// limitHeap keeps the heap of a command that holds budget bytes of
// elements in flight near that: by default the collector lets the heap
// grow to twice what was live after the last collection, and the live
// heap of a stream or rewrite is its buffers in flight, all of which
// turn to garbage chunk after chunk, so its peak would be twice the
// budget. A soft limit of budget + heapHeadroom makes it collect sooner
// instead (cheaply: the buffers hold no pointers). A GOMEMLIMIT set in
// the environment stands. The returned func restores the limit.
func limitHeap(budget int64) func() {
	if os.Getenv("GOMEMLIMIT") != "" || budget <= 0 {
		return func() {}
	}
	prev := debug.SetMemoryLimit(budget + heapHeadroom)
	return func() { debug.SetMemoryLimit(prev) }
}
