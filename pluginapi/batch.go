package pluginapi

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/zarrgw/zarrgw/core/codec"

	pb "github.com/zarrgw/zarrgw/pluginapi/zarrgwv1"
)

// Limits of batched calls. Inputs above batchItemMax, or whose output is
// expected above batchOutMax, stream on their own; a batch carries at
// most batchMaxItems calls and batchMaxBytes of input. The plugin returns
// outputs beyond batchRespMax (in total) for a retry on a stream.
const (
	batchItemMax  = 1 << 20
	batchOutMax   = 4 << 20
	batchMaxItems = 256
	batchMaxBytes = 4 << 20
	batchRespMax  = 12 << 20
)

// batcher shares round trips between concurrent codec calls. A call joins
// a queue; whoever finds a free slot takes everything queued as one Batch
// call. There is no timer: a lone call goes out at once, and calls that
// arrive while the slots are busy ride together in the next batch, so the
// batch size follows the load on its own.
type batcher struct {
	c     *Client
	mu    sync.Mutex
	queue []*batchItem
	slots chan struct{}
}

type batchItem struct {
	frame *pb.CodecFrame
	dst   []byte // where the output goes, if the caller has a buffer for it
	ctx   context.Context
	taken chan struct{} // closed when the item joins a batch
	done  chan struct{} // closed when res or err is set
	res   *pb.BatchResult
	err   error
}

func newBatcher(c *Client) *batcher {
	return &batcher{c: c, slots: make(chan struct{}, max(2, runtime.GOMAXPROCS(0)))}
}

// do runs one call through a batch and returns its output.
func (b *batcher) do(ctx context.Context, f *pb.CodecFrame, dst []byte) (*pb.Payload, []byte, error) {
	it := &batchItem{frame: f, dst: dst, ctx: ctx, taken: make(chan struct{}), done: make(chan struct{})}
	b.mu.Lock()
	b.queue = append(b.queue, it)
	b.mu.Unlock()
	slots, taken := b.slots, it.taken
	for {
		select {
		case <-it.done:
			return b.result(ctx, it)
		case <-ctx.Done():
			b.remove(it)
			return nil, nil, fmt.Errorf("plugin %s: %w", b.c.Name(), context.Cause(ctx))
		case <-taken:
			slots, taken = nil, nil // in a batch now: wait for it
		case slots <- struct{}{}:
			switch batch := b.take(); {
			case len(batch) == 1 && batch[0] == it:
				// Alone: no other caller waits on this call, so make it
				// here and save a goroutine hand-off each way.
				b.send(batch)
			case len(batch) > 0:
				go b.send(batch)
			default:
				<-b.slots
			}
		}
	}
}

// result returns the item's output; an output too large for a batch is
// fetched again on a stream of its own.
func (b *batcher) result(ctx context.Context, it *batchItem) (*pb.Payload, []byte, error) {
	if it.err != nil {
		if err := callerGaveUp(ctx); err != nil {
			// The batch was cancelled because this caller gave up: say why.
			return nil, nil, fmt.Errorf("plugin %s: %w", b.c.Name(), err)
		}
		return nil, nil, it.err
	}
	if e := it.res.Error; e != nil {
		if codes.Code(e.Code) == codes.ResourceExhausted && (e.Message == tooLargeForBatch || e.Message == notBatched) {
			return b.c.run(ctx, it.frame.Call, it.frame.Payload, it.frame.Data, it.dst)
		}
		return nil, nil, fmt.Errorf("plugin %s: %w", b.c.Name(), errorFromPB(e))
	}
	return it.res.Payload, it.res.Data, nil
}

// take removes the items of the next batch from the queue.
func (b *batcher) take() []*batchItem {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, size := 0, 0
	for n < len(b.queue) && n < batchMaxItems && (n == 0 || size+len(b.queue[n].frame.Data) <= batchMaxBytes) {
		size += len(b.queue[n].frame.Data)
		n++
	}
	batch := append([]*batchItem(nil), b.queue[:n]...)
	b.queue = append(b.queue[:0], b.queue[n:]...)
	for _, it := range batch {
		close(it.taken)
	}
	return batch
}

func (b *batcher) remove(it *batchItem) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, q := range b.queue {
		if q == it {
			b.queue = append(b.queue[:i], b.queue[i+1:]...)
			return
		}
	}
}

// send makes one Batch call and hands each item its result; it holds a
// slot until done. The call is cancelled only once every caller in it has
// given up, so one caller's deadline does not fail the others.
func (b *batcher) send(batch []*batchItem) {
	defer func() { <-b.slots }()
	// The call belongs to no one caller, but a span has one parent: it
	// joins the trace of the first (alone, the usual case, it is that
	// caller's call).
	base := context.Background()
	if sc := trace.SpanContextFromContext(batch[0].ctx); sc.IsValid() {
		base = trace.ContextWithSpanContext(base, sc)
	}
	ctx, cancel := context.WithCancel(base)
	defer cancel()
	var left atomic.Int64
	left.Store(int64(len(batch)))
	req := &pb.BatchRequest{Items: make([]*pb.CodecFrame, len(batch))}
	for i, it := range batch {
		req.Items[i] = it.frame
		stop := context.AfterFunc(it.ctx, func() {
			if left.Add(-1) == 0 {
				cancel()
			}
		})
		defer stop()
	}
	resp, err := b.call(ctx, req, batch)
	for i, it := range batch {
		switch {
		case err != nil:
			it.err = err
		case i >= len(resp.Results) || resp.Results[i] == nil:
			it.err = fmt.Errorf("plugin %s: batch answered %d of %d calls", b.c.Name(), len(resp.Results), len(batch))
		default:
			it.res = resp.Results[i]
		}
		close(it.done)
	}
}

func (b *batcher) call(ctx context.Context, req *pb.BatchRequest, batch []*batchItem) (*pb.BatchResponse, error) {
	conn, err := b.c.connect(ctx)
	if err != nil {
		return nil, err
	}
	if !conn.features(ctx).Batch {
		return notBatchedResponse(len(req.Items)), nil
	}
	var lent *slot
	if a := conn.sharedArena(ctx); a != nil {
		lent, _ = a.borrow()
	}
	if lent == nil {
		resp, err := pb.NewCodecClient(conn.cc).Batch(ctx, req)
		if err != nil {
			return nil, b.c.fail(ctx, conn, err)
		}
		return resp, nil
	}
	outFrom := packInputs(lent, req)
	resp, err := pb.NewCodecClient(conn.cc).Batch(ctx, req)
	defer lent.giveBack(abandoned(ctx, err))
	if err != nil {
		return nil, b.c.fail(ctx, conn, err)
	}
	for i, r := range resp.Results {
		if i < len(batch) {
			b.unpackOutput(lent, outFrom, r, batch[i].dst)
		}
	}
	return resp, nil
}

// notBatched marks the results of a batch the plugin cannot take (its
// features say it has no Codec.Batch): each caller makes its call on a
// stream of its own instead, as for an output too large for a batch.
const notBatched = "the plugin does not batch"

func notBatchedResponse(n int) *pb.BatchResponse {
	resp := &pb.BatchResponse{Results: make([]*pb.BatchResult, n)}
	for i := range resp.Results {
		resp.Results[i] = &pb.BatchResult{Error: &pb.Error{Code: uint32(codes.ResourceExhausted), Message: notBatched}}
	}
	return resp
}

// packInputs moves the inputs that fit in half the slot into it and lends
// the rest of the slot for outputs, whose offset it returns.
func packInputs(s *slot, req *pb.BatchRequest) int {
	off := 0
	for i, f := range req.Items {
		n := len(f.Data)
		if n == 0 || off+n > arenaSlotSize/2 {
			continue
		}
		copy(s.mem[off:], f.Data)
		p := &pb.Payload{Array: f.Payload.GetArray(), Size: f.Payload.GetSize(), Arena: s.span(off, n)}
		req.Items[i] = &pb.CodecFrame{Call: f.Call, Payload: p}
		off = alignUp(off + n)
	}
	req.Output = s.span(off, arenaSlotSize-off)
	return off
}

// unpackOutput copies an output out of the slot, into the caller's buffer
// when it has one of the right size, before the slot is given back: the
// caller owns what it gets.
func (b *batcher) unpackOutput(s *slot, from int, r *pb.BatchResult, dst []byte) {
	sp := r.GetPayload().GetArena()
	if sp == nil {
		return
	}
	src, err := s.bytes(sp, from)
	if err == nil && int64(len(src)) != r.Payload.Size {
		err = fmt.Errorf("output of %d bytes announced as %d", len(src), r.Payload.Size)
	}
	if err != nil {
		r.Payload, r.Error = nil, errorToPB(fmt.Errorf("%w: plugin %s: %v", codec.ErrCorrupt, b.c.Name(), err))
		return
	}
	if dst != nil && len(dst) == len(src) {
		r.Data = dst[:copy(dst, src)]
	} else {
		r.Data = append([]byte(nil), src...)
	}
	r.Payload.Arena = nil
}

// abandoned reports whether a call ended without the plugin having
// finished with what it was lent: cancelled, timed out or cut off.
func abandoned(ctx context.Context, err error) bool {
	if err == nil {
		return false
	}
	switch status.Code(err) {
	case codes.Canceled, codes.DeadlineExceeded, codes.Unavailable:
		return true
	}
	return ctx.Err() != nil
}
