package pluginapi

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	pb "github.com/zarrgw/zarrgw/pluginapi/zarrgwv1"
)

// A host arena is shared memory mapped into one plugin process and cut
// into slots. A call that fits borrows a slot: the host copies the input
// in, the plugin reads it in place and writes its output there (a codec
// that decodes into a buffer decodes straight into it), and the host
// copies the output out. Compared with frames this saves, per direction,
// serialisation, TLS encryption and decryption, two socket copies and
// HTTP/2 framing, which together cost more than the work of a fast codec.
// The socket still carries every call, so ordering, deadlines, errors and
// crash detection work as for any call.
//
// There is a slot for each of as many calls as a reader keeps in flight
// (core/array and bench/cloud read 256 values at once): a call that finds
// no free slot sends its value in frames, which costs the reader of 1 MiB
// values more than half its throughput. The arena is only address space
// until a slot is written: memory is used by as many slots as have been
// in use at once, and slots beyond arenaWarmSlots that stay free for
// arenaIdle give theirs back to the system.
const (
	arenaSlotSize  = 4 << 20
	arenaSlots     = 256
	arenaAlign     = 64
	arenaWarmSlots = 16
	arenaIdle      = 10 * time.Second
)

var arenaIDs atomic.Uint32

type arena struct {
	id   uint32
	mem  []byte
	mu   sync.Mutex
	free []int // a stack: the slot used last is warm and already resident
	// used is when each slot was last given back, zero once its memory
	// was given back to the system (or never used)
	used     []time.Time
	trimming bool // a trim is scheduled
	refs     int
	gone     bool // released: unmap when the last borrower returns
}

// newArena creates an arena and has the plugin on cc map it.
func newArena(ctx context.Context, client pb.PluginClient) (*arena, error) {
	size := arenaSlotSize * arenaSlots
	path, mem, done, err := createShared(size)
	if err != nil {
		return nil, err
	}
	// The name only has to work until the plugin has mapped the memory.
	defer done()
	a := arenaOver(arenaIDs.Add(1), mem)
	if _, err := client.MapArena(ctx, &pb.MapArenaRequest{Id: a.id, Path: path, Size: uint64(size)}); err != nil {
		unmapShared(mem)
		return nil, err
	}
	return a, nil
}

// arenaOver cuts mem into free slots.
func arenaOver(id uint32, mem []byte) *arena {
	a := &arena{id: id, mem: mem, used: make([]time.Time, arenaSlots)}
	for i := arenaSlots - 1; i >= 0; i-- {
		a.free = append(a.free, i)
	}
	return a
}

// slot is a borrowed slot of an arena.
type slot struct {
	a   *arena
	i   int
	mem []byte
}

// borrow lends a free slot, or reports false when all are lent (the call
// then uses frames rather than waiting).
func (a *arena) borrow() (*slot, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.gone || len(a.free) == 0 {
		return nil, false
	}
	i := a.free[len(a.free)-1]
	a.free = a.free[:len(a.free)-1]
	a.refs++
	off := i * arenaSlotSize
	return &slot{a: a, i: i, mem: a.mem[off : off+arenaSlotSize : off+arenaSlotSize]}, true
}

// giveBack returns the slot. A call that was abandoned (cancelled, or its
// connection lost) may still have the plugin writing to its slot, so such
// a slot is kept out of use for the arena's life instead.
func (s *slot) giveBack(abandoned bool) {
	a := s.a
	a.mu.Lock()
	defer a.mu.Unlock()
	if !abandoned {
		a.free = append(a.free, s.i)
		a.used[s.i] = time.Now()
		if len(a.free) > arenaWarmSlots && !a.trimming && !a.gone {
			a.trimming = true
			time.AfterFunc(arenaIdle, a.trim)
		}
	}
	a.refs--
	a.unmapIfDone()
}

// trim gives the memory of free slots idle for arenaIdle back to the
// system, but for the arenaWarmSlots at the top of the free stack, which
// the next calls take; it looks again later while other slots beyond
// those still hold memory. A trimmed slot reads as zeros and is
// allocated again when next written.
func (a *arena) trim() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.trimming = false
	if a.gone || a.mem == nil {
		return
	}
	now, pending := time.Now(), false
	for _, i := range a.free[:max(0, len(a.free)-arenaWarmSlots)] {
		switch t := a.used[i]; {
		case t.IsZero():
		case now.Sub(t) >= arenaIdle:
			off := i * arenaSlotSize
			_ = trimShared(a.mem[off : off+arenaSlotSize]) // where it fails, the memory stays in use, as before
			a.used[i] = time.Time{}
		default:
			pending = true
		}
	}
	if pending {
		a.trimming = true
		time.AfterFunc(arenaIdle, a.trim)
	}
}

// release gives the arena up; it is unmapped once no slot is lent.
func (a *arena) release() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.gone = true
	a.unmapIfDone()
}

func (a *arena) unmapIfDone() {
	if a.gone && a.refs == 0 && a.mem != nil {
		unmapShared(a.mem)
		a.mem = nil
	}
}

// span describes n bytes at off in the slot.
func (s *slot) span(off, n int) *pb.ArenaSpan {
	return &pb.ArenaSpan{Arena: s.a.id, Offset: uint64(s.i*arenaSlotSize + off), Length: uint64(n)}
}

// bytes returns the slot's bytes that sp names, which must lie within
// [from, end of slot): a plugin cannot make the host read another call's
// memory.
func (s *slot) bytes(sp *pb.ArenaSpan, from int) ([]byte, error) {
	base := uint64(s.i*arenaSlotSize + from)
	end := uint64((s.i + 1) * arenaSlotSize)
	if sp.Arena != s.a.id || sp.Offset < base || sp.Length > end-sp.Offset || sp.Offset > end {
		return nil, fmt.Errorf("output at %d+%d lies outside the region lent", sp.Offset, sp.Length)
	}
	off := int(sp.Offset) - s.i*arenaSlotSize
	return s.mem[off : off+int(sp.Length)], nil
}

func alignUp(n int) int { return (n + arenaAlign - 1) &^ (arenaAlign - 1) }
