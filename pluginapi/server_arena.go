package pluginapi

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	pb "github.com/zarrgw/zarrgw/pluginapi/zarrgwv1"
)

// arenas are the host's shared memory arenas mapped into the plugin.
type arenas struct {
	mu sync.RWMutex
	m  map[uint32][]byte
}

func (a *arenas) add(id uint32, mem []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.m == nil {
		a.m = map[uint32][]byte{}
	}
	a.m[id] = mem
}

// bytes returns the memory sp names, checked against the arena's bounds.
func (a *arenas) bytes(sp *pb.ArenaSpan) ([]byte, error) {
	if a == nil {
		return nil, fmt.Errorf("no arenas here")
	}
	a.mu.RLock()
	mem, ok := a.m[sp.GetArena()]
	a.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("no arena %d is mapped", sp.GetArena())
	}
	if sp.Offset > uint64(len(mem)) || sp.Length > uint64(len(mem))-sp.Offset {
		return nil, fmt.Errorf("arena span %d+%d beyond its %d bytes", sp.Offset, sp.Length, len(mem))
	}
	return mem[sp.Offset : sp.Offset+sp.Length : sp.Offset+sp.Length], nil
}

// input returns a payload's data: its frame data, or its arena span.
func (a *arenas) input(p *pb.Payload, data []byte) ([]byte, error) {
	if p.GetArena() != nil {
		if len(data) > 0 {
			return nil, fmt.Errorf("payload both in frames and in an arena")
		}
		var err error
		if data, err = a.bytes(p.Arena); err != nil {
			return nil, err
		}
	}
	if int64(len(data)) != p.GetSize() {
		return nil, fmt.Errorf("payload of %d bytes announced as %d", len(data), p.GetSize())
	}
	return data, nil
}

func (p *pluginService) MapArena(_ context.Context, req *pb.MapArenaRequest) (*pb.MapArenaResponse, error) {
	mem, err := mapShared(req.Path, int(req.Size))
	if err != nil {
		return nil, toStatus(fmt.Errorf("map arena: %w", err))
	}
	p.srv.arenas.add(req.Id, mem)
	return &pb.MapArenaResponse{}, nil
}

// outRegion is the part of an arena a host lent for outputs; concurrent
// batch items take aligned pieces of it.
type outRegion struct {
	mem  []byte
	span *pb.ArenaSpan
	used atomic.Int64
}

func (a *arenas) region(sp *pb.ArenaSpan) *outRegion {
	if sp == nil || a == nil {
		return nil
	}
	mem, err := a.bytes(sp)
	if err != nil {
		return nil // outputs go back inline
	}
	return &outRegion{mem: mem, span: sp}
}

// alloc takes n bytes of the region, or reports false when they do not fit.
func (r *outRegion) alloc(n int) ([]byte, *pb.ArenaSpan, bool) {
	if r == nil {
		return nil, nil, false
	}
	for {
		cur := r.used.Load()
		start := int64(alignUp(int(cur)))
		end := start + int64(n)
		if end > int64(len(r.mem)) {
			return nil, nil, false
		}
		if r.used.CompareAndSwap(cur, end) {
			sp := &pb.ArenaSpan{Arena: r.span.Arena, Offset: r.span.Offset + uint64(start), Length: uint64(n)}
			return r.mem[start:end:end], sp, true
		}
	}
}

// place moves an output into the region when it fits; it returns the
// payload (now naming its span) and the data still to send inline.
func (r *outRegion) place(out *pb.Payload, data []byte) (*pb.Payload, []byte) {
	if len(data) == 0 {
		return out, data
	}
	dst, sp, ok := r.alloc(len(data))
	if !ok {
		return out, data
	}
	copy(dst, data)
	out.Arena = sp
	return out, nil
}
