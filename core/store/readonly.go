package store

import (
	"context"
	"fmt"
	"iter"
)

// ReadOnly returns s with writing and erasing refused (ErrUnsupported),
// for datasets declared read_only: the refusal happens here, before any
// byte reaches a store that would accept it.
// The optional operations of s stay available, and only those s has.
func ReadOnly(s Store) Store { return readOnly{s} }

type readOnly struct{ Store }

func (r readOnly) Capabilities() Capabilities {
	c := r.Store.Capabilities()
	c.Write, c.Erase, c.ConditionalWrite = false, false, false
	return c
}

func (r readOnly) Set(_ context.Context, key string, _ []byte, _ Condition) (string, error) {
	return "", fmt.Errorf("set %q: read-only store: %w", key, ErrUnsupported)
}

func (r readOnly) Erase(_ context.Context, key string) error {
	return fmt.Errorf("erase %q: read-only store: %w", key, ErrUnsupported)
}

func (r readOnly) EraseMany(_ context.Context, keys []string) error {
	return fmt.Errorf("erase %d keys: read-only store: %w", len(keys), ErrUnsupported)
}

func (r readOnly) ErasePrefix(_ context.Context, prefix string) error {
	return fmt.Errorf("erase prefix %q: read-only store: %w", prefix, ErrUnsupported)
}

// GetInto keeps the copy-free read path of the store below.
func (r readOnly) GetInto(ctx context.Context, key string, dst []byte) (bool, error) {
	return GetInto(ctx, r.Store, key, dst)
}

// ListSorted keeps the sorted listing of the store below.
func (r readOnly) ListSorted(ctx context.Context, prefix, startAfter string) iter.Seq2[string, error] {
	return ListSorted(ctx, r.Store, prefix, startAfter)
}

// ListInfo keeps the listing with sizes and versions of the store below.
func (r readOnly) ListInfo(ctx context.Context, prefix, startAfter string) iter.Seq2[Entry, error] {
	return ListInfo(ctx, r.Store, prefix, startAfter)
}
