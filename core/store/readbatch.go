package store

import (
	"context"
	"sync"
)

// ReadBatch marks the reads made with a context as parts of one larger
// read (the chunks of a selection), so that a store whose values are
// ranges of larger objects may fetch neighbouring ranges in one request
// and keep them for the batch's other reads. A store keeps what it holds
// for a batch in the batch (Memo), so that it is freed with it.
type ReadBatch struct {
	mu    sync.Mutex
	memos map[any]any
}

type readBatchKey struct{}

// WithReadBatch returns ctx carrying a read batch: ctx itself when it
// already carries one (a stream's slabs share the stream's batch).
func WithReadBatch(ctx context.Context) context.Context {
	if ReadBatchFrom(ctx) != nil {
		return ctx
	}
	return context.WithValue(ctx, readBatchKey{}, &ReadBatch{})
}

// ReadBatchFrom returns the read batch ctx carries, or nil.
func ReadBatchFrom(ctx context.Context) *ReadBatch {
	b, _ := ctx.Value(readBatchKey{}).(*ReadBatch)
	return b
}

// Memo returns what owner keeps for this batch, made by make on first use.
func (b *ReadBatch) Memo(owner any, make func() any) any {
	b.mu.Lock()
	defer b.mu.Unlock()
	if v, ok := b.memos[owner]; ok {
		return v
	}
	if b.memos == nil {
		b.memos = map[any]any{}
	}
	v := make()
	b.memos[owner] = v
	return v
}
