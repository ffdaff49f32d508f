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

// tasksPerWorker sizes the chunk queue of a streaming read: deep enough
// that workers rarely find it empty while the producer shapes the next slab.
const tasksPerWorker = 4

// readSlabs reads the slabs of plan and calls emit with each, in order.
// Unlike pipeSlabs, it does not read one slab at a time: one set of
// workers takes chunks from a queue that runs across slab boundaries, so
// every core decodes from the first chunk on, the next slab's chunks start
// while the last chunks of this one finish (no core waits at the end of a
// slab), and a slab is emitted as soon as its last chunk is in. The slab
// buffers bound how far the reading runs ahead of emit.
func (a *Array) readSlabs(parent context.Context, plan slabPlan, streams *chunkStreams, alloc func() *ndarray.Array, emit func(*ndarray.Array) error) error {
	ctx, cancel := context.WithCancel(store.WithReadBatch(parent))
	defer cancel()
	r := &slabReader{
		a:       a,
		ctx:     ctx,
		cancel:  cancel,
		tasks:   make(chan slabTask, tasksPerWorker*a.opts.concurrency()),
		slabs:   make(chan *readSlab, slabBuffersInFlight),
		free:    make(chan *ndarray.Array, slabBuffersInFlight),
		shared:  a.partialDecoder() != nil,
		streams: streams,
	}
	r.startWorkers(a.opts.concurrency())
	r.producer.Add(1)
	go r.produce(plan, alloc)
	r.emitInOrder(emit)
	r.cancel()
	// Nothing may write into the slab buffers once we return.
	r.producer.Wait()
	r.workers.Wait()
	if streams != nil {
		streams.closeAll()
	}
	if r.failure != nil {
		return r.failure
	}
	return parent.Err()
}

// readSlab is one slab of a streaming read: its buffer, and done closed
// once every chunk of it is read (or given up on).
type readSlab struct {
	buf  *ndarray.Array
	left atomic.Int64 // chunks not yet read
	done chan struct{}
}

// slabTask is one chunk to read into a slab's buffer.
type slabTask struct {
	s    *readSlab
	p    grid.Projection
	read chunkRead
	part *streamPart // set when the chunk is read in parts, as a stream
}

// run reads the task's chunk.
func (t slabTask) run(ctx context.Context) error {
	if t.part != nil {
		return t.part.read(ctx, t.s.buf, t.p, t.read)
	}
	return t.read(ctx, t.s.buf, t.p)
}

// slabReader holds the state readSlabs' three parts share: the producer
// that turns the plan into tasks, the workers that read them, and the
// emitter that hands out slabs in order.
type slabReader struct {
	a      *Array
	ctx    context.Context
	cancel context.CancelFunc

	tasks chan slabTask
	slabs chan *readSlab      // in plan order, for the emitter
	free  chan *ndarray.Array // slab buffers emitted and ready for reuse

	failOnce sync.Once
	failure  error

	workers  sync.WaitGroup
	producer sync.WaitGroup

	// A partial decoder (sharding) reads a shard's index once and keeps
	// it: a slab that shares a shard with the one before waits for that
	// one's reads to finish, so that it finds the index kept instead of
	// reading it again at the same time.
	shared     bool
	prev       *readSlab
	prevChunks map[string]bool

	// streams, when set, reads chunks cut across slabs as streams.
	streams *chunkStreams
}

// fail keeps the first error and stops everything else.
func (r *slabReader) fail(err error) {
	r.failOnce.Do(func() { r.failure = err })
	r.cancel()
}

// startWorkers starts n readers of tasks. A task is still counted off its
// slab after a failure, so that the emitter never waits on a slab forever.
func (r *slabReader) startWorkers(n int) {
	for range n {
		r.workers.Add(1)
		go func() {
			defer r.workers.Done()
			for t := range r.tasks {
				if r.ctx.Err() == nil {
					if err := safeCall(r.ctx, 0, func(ctx context.Context, _ int) error {
						return t.run(ctx)
					}); err != nil {
						r.fail(err)
					}
				} else if t.part != nil {
					close(t.part.done) // the next part need not wait for ctx
				}
				if t.s.left.Add(-1) == 0 {
					close(t.s.done)
				}
			}
		}()
	}
}

// produce walks the plan: for each slab it takes a buffer (waiting for
// one to come back once slabBuffersInFlight exist), hands the slab to the
// emitter and queues its chunks for the workers.
func (r *slabReader) produce(plan slabPlan, alloc func() *ndarray.Array) {
	defer r.producer.Done()
	defer close(r.tasks)
	defer close(r.slabs)
	allocated := 0
	plan.each(func(sub grid.Selection) bool {
		buf, ok := slabBuffer(r.ctx, r.free, &allocated, slabBuffersInFlight, alloc)
		if !ok {
			return false
		}
		shapeSlab(buf, sub.Counts())
		projections := r.a.grid.Project(sub)
		s := &readSlab{buf: buf, done: make(chan struct{})}
		s.left.Store(int64(len(projections)))
		if len(projections) == 0 {
			close(s.done)
		}
		// slabs has room for every buffer, so this never waits
		r.slabs <- s
		tasks := r.tasksOf(s, projections)
		if r.shared && decodes(tasks) && !r.waitForSharedShard(s, projections) {
			return false
		}
		return r.queue(tasks)
	})
}

// tasksOf is the tasks reading the chunks of slab s.
func (r *slabReader) tasksOf(s *readSlab, projections []grid.Projection) []slabTask {
	read := r.a.chunkReader(projections)
	tasks := make([]slabTask, len(projections))
	for i, p := range projections {
		tasks[i] = slabTask{s: s, p: p, read: read}
		if r.streams != nil {
			tasks[i].part = r.streams.part(p)
		}
	}
	return tasks
}

// decodes reports whether some task may read a shard's index: all but the
// parts after the first of a resident run.
func decodes(tasks []slabTask) bool {
	for _, t := range tasks {
		if t.part == nil || t.part.first {
			return true
		}
	}
	return false
}

// waitForSharedShard waits for the slab before s when the two share a
// chunk key (a shard), so that s finds that shard's index already kept;
// false when ctx ends first.
func (r *slabReader) waitForSharedShard(s *readSlab, projections []grid.Projection) bool {
	chunks := make(map[string]bool, len(projections))
	wait := false
	for _, p := range projections {
		k := r.a.ChunkKey(p.Chunk)
		chunks[k] = true
		wait = wait || r.prevChunks[k]
	}
	if wait {
		select {
		case <-r.prev.done:
		case <-r.ctx.Done():
			return false
		}
	}
	r.prev, r.prevChunks = s, chunks
	return true
}

// queue hands tasks to the workers; false when ctx ends first.
func (r *slabReader) queue(tasks []slabTask) bool {
	for _, t := range tasks {
		select {
		case r.tasks <- t:
		case <-r.ctx.Done():
			return false
		}
	}
	return true
}

// emitInOrder calls emit with each slab once all its chunks are in, in
// plan order, and recycles its buffer; it stops at the first failure.
func (r *slabReader) emitInOrder(emit func(*ndarray.Array) error) {
	for s := range r.slabs {
		if r.ctx.Err() != nil {
			return
		}
		select {
		case <-s.done:
		case <-r.ctx.Done():
		}
		if r.ctx.Err() != nil {
			return
		}
		if err := emit(s.buf); err != nil {
			r.fail(err)
			return
		}
		r.free <- s.buf
	}
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
