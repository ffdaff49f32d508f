package app

import (
	"math"
	"runtime/debug"
	"testing"
)

// A command holding a budget of elements in flight has the collector
// keep its heap near budget + heapHeadroom, and the limit it found back
// afterwards; a GOMEMLIMIT the user set stands.
func TestLimitHeap(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	before := debug.SetMemoryLimit(-1)
	restore := limitHeap(100 << 20)
	if got := debug.SetMemoryLimit(-1); got != 100<<20+heapHeadroom {
		t.Errorf("soft limit %d during the command, want %d", got, 100<<20+heapHeadroom)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("soft limit %d after the command, want %d as before", got, before)
	}

	t.Setenv("GOMEMLIMIT", "1GiB")
	debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetMemoryLimit(before)
	defer limitHeap(100 << 20)()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("soft limit %d with GOMEMLIMIT set, want it left alone", got)
	}
}
