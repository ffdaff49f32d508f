package array

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
)

// slabBuffersInFlight is how many slab buffers a streaming read holds: one
// being emitted (or waiting to be) while the chunks of the next are read.
// StreamOptions' budget is sized for two.
const slabBuffersInFlight = 2

// readSlabs reads the slabs of plan and calls emit with each, in order.
// Unlike pipeSlabs, it does not read one slab at a time: one set of
// workers takes chunks from a queue that runs across slab boundaries, so
// every core decodes from the first chunk on, the next slab's chunks start
// while the last chunks of this one finish (no core waits at the end of a
// slab), and a slab is emitted as soon as its last chunk is in. The slab
// buffers bound how far the reading runs ahead of emit.
func (a *Array) readSlabs(parent context.Context, plan slabPlan, alloc func() *ndarray.Array, emit func(*ndarray.Array) error) error {
	ctx, cancel := context.WithCancel(store.WithReadBatch(parent))
	defer cancel()
	var (
		failOnce sync.Once
		failure  error
	)
	fail := func(err error) {
		failOnce.Do(func() { failure = err })
		cancel()
	}

	type slab struct {
		buf  *ndarray.Array
		left atomic.Int64 // chunks not yet read
		done chan struct{}
	}
	type task struct {
		s    *slab
		p    grid.Projection
		read chunkRead
	}
	// A queue deep enough that workers rarely find it empty while the
	// producer shapes the next slab.
	tasks := make(chan task, 4*a.opts.concurrency())
	slabs := make(chan *slab, slabBuffersInFlight)
	free := make(chan *ndarray.Array, slabBuffersInFlight)

	var workers sync.WaitGroup
	for range a.opts.concurrency() {
		workers.Add(1)
		go func() {
			defer workers.Done()
			for t := range tasks {
				if ctx.Err() == nil {
					if err := safeCall(ctx, 0, func(ctx context.Context, _ int) error {
						return t.read(ctx, t.s.buf, t.p)
					}); err != nil {
						fail(err)
					}
				}
				if t.s.left.Add(-1) == 0 {
					close(t.s.done)
				}
			}
		}()
	}

	// A partial decoder (sharding) reads a shard's index once and keeps
	// it: a slab that shares a shard with the one before waits for that
	// one's reads to finish, so that it finds the index kept instead of
	// reading it again at the same time.
	shared := a.partialDecoder() != nil
	var prev *slab
	var prevChunks map[string]bool

	var producer sync.WaitGroup
	producer.Add(1)
	go func() {
		defer producer.Done()
		defer close(tasks)
		defer close(slabs)
		allocated := 0
		plan.each(func(sub grid.Selection) bool {
			buf, ok := slabBuffer(ctx, free, &allocated, slabBuffersInFlight, alloc)
			if !ok {
				return false
			}
			shapeSlab(buf, sub.Counts())
			projections := a.grid.Project(sub)
			s := &slab{buf: buf, done: make(chan struct{})}
			s.left.Store(int64(len(projections)))
			if len(projections) == 0 {
				close(s.done)
			}
			// slabs has room for every buffer, so this never waits
			slabs <- s
			if shared {
				chunks := make(map[string]bool, len(projections))
				wait := false
				for _, p := range projections {
					k := a.ChunkKey(p.Chunk)
					chunks[k] = true
					wait = wait || prevChunks[k]
				}
				if wait {
					select {
					case <-prev.done:
					case <-ctx.Done():
						return false
					}
				}
				prev, prevChunks = s, chunks
			}
			read := a.chunkReader(projections)
			for _, p := range projections {
				select {
				case tasks <- task{s, p, read}:
				case <-ctx.Done():
					return false
				}
			}
			return true
		})
	}()

	for s := range slabs {
		if ctx.Err() != nil {
			break
		}
		select {
		case <-s.done:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		if err := emit(s.buf); err != nil {
			fail(err)
			break
		}
		free <- s.buf
	}
	cancel()
	// Nothing may write into the slab buffers once we return.
	producer.Wait()
	workers.Wait()
	if failure != nil {
		return failure
	}
	return parent.Err()
}

// slabBuffer takes a recycled slab buffer from free, allocates a new one
// while fewer than max exist, or else waits for one to come back; false
// when ctx ends first. Slabs are large: never more than max at once.
func slabBuffer(ctx context.Context, free <-chan *ndarray.Array, allocated *int, max int, alloc func() *ndarray.Array) (*ndarray.Array, bool) {
	select {
	case buf := <-free:
		return buf, true
	default:
	}
	if *allocated < max {
		*allocated++
		return alloc(), true
	}
	select {
	case buf := <-free:
		return buf, true
	case <-ctx.Done():
		return nil, false
	}
}
