//go:build unix

package pluginapi

import (
	"sync"
	"testing"

	pb "github.com/zarrgw/zarrgw/pluginapi/zarrgwv1"
)

func testArena(t *testing.T) *arena {
	t.Helper()
	_, mem, done, err := createShared(arenaSlotSize * arenaSlots)
	if err != nil {
		t.Fatal("no shared memory on a unix system:", err)
	}
	done()
	a := arenaOver(7, mem)
	t.Cleanup(a.release)
	return a
}

// A plugin cannot point the host at memory outside what it lent.
func TestArenaSpansChecked(t *testing.T) {
	a := testArena(t)
	s, ok := a.borrow()
	if !ok {
		t.Fatal("no slot")
	}
	defer s.giveBack(false)
	if _, err := s.bytes(s.span(100, 10), 64); err != nil {
		t.Fatalf("span inside the region: %v", err)
	}
	for _, sp := range []*pb.ArenaSpan{
		s.span(0, 10),               // before the output region
		s.span(arenaSlotSize-4, 10), // past the slot
		s.span(arenaSlotSize, 1),    // the next slot
		{Arena: 8, Offset: s.span(100, 1).Offset, Length: 1}, // another arena
		{Arena: 7, Offset: s.span(100, 1).Offset, Length: 1 << 62},
	} {
		if _, err := s.bytes(sp, 64); err == nil {
			t.Errorf("span %v accepted", sp)
		}
	}
}

// Slots are lent at most once at a time, an abandoned slot is never lent
// again, and an arena is unmapped only once every slot is back.
func TestArenaLending(t *testing.T) {
	a := testArena(t)
	var lent []*slot
	for {
		s, ok := a.borrow()
		if !ok {
			break
		}
		lent = append(lent, s)
	}
	if len(lent) != arenaSlots {
		t.Fatalf("lent %d slots of %d", len(lent), arenaSlots)
	}
	lent[0].giveBack(true) // abandoned
	for _, s := range lent[1:] {
		s.giveBack(false)
	}
	seen := map[int]bool{}
	for {
		s, ok := a.borrow()
		if !ok {
			break
		}
		if s.i == lent[0].i || seen[s.i] {
			t.Fatalf("slot %d lent again while abandoned or lent", s.i)
		}
		seen[s.i] = true
		defer s.giveBack(false)
	}
	if len(seen) != arenaSlots-1 {
		t.Fatalf("%d slots lendable after one was abandoned", len(seen))
	}
}

// Concurrent outputs get disjoint, aligned pieces of a region.
func TestOutRegionAlloc(t *testing.T) {
	r := &outRegion{mem: make([]byte, 1<<16), span: &pb.ArenaSpan{Arena: 1, Offset: 4096}}
	var mu sync.Mutex
	taken := map[uint64]bool{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for {
				dst, sp, ok := r.alloc(1000)
				if !ok {
					return
				}
				if len(dst) != 1000 || sp.Offset%arenaAlign != 0 {
					t.Errorf("piece of %d at %d", len(dst), sp.Offset)
				}
				mu.Lock()
				if taken[sp.Offset] {
					t.Errorf("offset %d given twice", sp.Offset)
				}
				taken[sp.Offset] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(taken) != (1<<16)/1024 {
		t.Errorf("%d pieces of 1000 bytes in 64 KiB", len(taken))
	}
}

// Free slots idle for long give their memory back (they read as zeros
// after), but for the warm ones the next calls take; slots in use and
// slots given back recently keep theirs.
func TestArenaTrimsIdleSlots(t *testing.T) {
	a := testArena(t)
	var lent []*slot
	for range arenaWarmSlots + 8 {
		s, ok := a.borrow()
		if !ok {
			t.Fatal("no slot")
		}
		s.mem[0], s.mem[arenaSlotSize-1] = 0xAA, 0xAA
		lent = append(lent, s)
	}
	busy := lent[len(lent)-1]
	for _, s := range lent[:len(lent)-1] {
		s.giveBack(false)
	}
	// the first 4 given back went idle long ago; the others just now
	a.mu.Lock()
	for _, s := range lent[:4] {
		a.used[s.i] = a.used[s.i].Add(-2 * arenaIdle)
	}
	a.mu.Unlock()
	a.trim()
	for n, s := range lent {
		trimmed := n < 4
		if got := s.mem[0] == 0 && s.mem[arenaSlotSize-1] == 0; got != trimmed {
			t.Errorf("slot %d (given back %d of %d): trimmed %v, want %v", s.i, n, len(lent), got, trimmed)
		}
	}
	busy.giveBack(false)
}
