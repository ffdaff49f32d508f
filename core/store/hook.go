package store

import (
	"context"
	"iter"
)

// Hook runs around every call to a store wrapped by WithHook: op names the
// call ("get", "get_into", "stat", "set", "set_stream" (a SetFrom), "erase", "erase_many",
// "erase_prefix", "list", "list_dir"), key is its key (or prefix; for
// "erase_many" its first key, the batch being one call), and call performs it with the
// context it is given. A hook may wait before calling (to bound
// concurrency), time the call, or refuse it by returning an error without
// calling.
type Hook func(ctx context.Context, op, key string, call func(context.Context) error) error

// WithHook returns s with hook around each of its calls. The optional
// operations of s (the copy-free read, the sorted listings, the files)
// stay available, and only those s has.
func WithHook(s Store, hook Hook) Store { return &hooked{next: s, hook: hook} }

type hooked struct {
	next Store
	hook Hook
}

func (h *hooked) Capabilities() Capabilities { return h.next.Capabilities() }
func (h *hooked) Close() error               { return h.next.Close() }

func (h *hooked) Get(ctx context.Context, key string, r ByteRange) (v Value, err error) {
	err = h.hook(ctx, "get", key, func(ctx context.Context) error {
		v, err = h.next.Get(ctx, key, r)
		return err
	})
	return v, err
}

func (h *hooked) GetInto(ctx context.Context, key string, dst []byte) (done bool, err error) {
	err = h.hook(ctx, "get_into", key, func(ctx context.Context) error {
		done, err = GetInto(ctx, h.next, key, dst)
		return err
	})
	return done, err
}

func (h *hooked) Stat(ctx context.Context, key string) (info Info, err error) {
	err = h.hook(ctx, "stat", key, func(ctx context.Context) error {
		info, err = h.next.Stat(ctx, key)
		return err
	})
	return info, err
}

func (h *hooked) Set(ctx context.Context, key string, data []byte, cond Condition) (version string, err error) {
	err = h.hook(ctx, "set", key, func(ctx context.Context) error {
		version, err = h.next.Set(ctx, key, data, cond)
		return err
	})
	return version, err
}

func (h *hooked) Erase(ctx context.Context, key string) error {
	return h.hook(ctx, "erase", key, func(ctx context.Context) error { return h.next.Erase(ctx, key) })
}

// EraseMany runs the hook once around the batch: a hook that bounds
// concurrency counts the batch as the one call to the store it is.
func (h *hooked) EraseMany(ctx context.Context, keys []string) error {
	first := ""
	if len(keys) > 0 {
		first = keys[0]
	}
	return h.hook(ctx, "erase_many", first, func(ctx context.Context) error { return h.next.EraseMany(ctx, keys) })
}

func (h *hooked) ErasePrefix(ctx context.Context, prefix string) error {
	return h.hook(ctx, "erase_prefix", prefix, func(ctx context.Context) error { return h.next.ErasePrefix(ctx, prefix) })
}

func (h *hooked) ListDir(ctx context.Context, prefix string) (d Dir, err error) {
	err = h.hook(ctx, "list_dir", prefix, func(ctx context.Context) error {
		d, err = h.next.ListDir(ctx, prefix)
		return err
	})
	return d, err
}

// List runs the hook around the whole listing: the keys are yielded from
// inside the call.
func (h *hooked) List(ctx context.Context, prefix string) iter.Seq2[string, error] {
	return h.hookSeq(ctx, prefix, func(ctx context.Context) iter.Seq2[string, error] { return h.next.List(ctx, prefix) })
}

func (h *hooked) ListSorted(ctx context.Context, prefix, startAfter string) iter.Seq2[string, error] {
	return h.hookSeq(ctx, prefix, func(ctx context.Context) iter.Seq2[string, error] {
		return ListSorted(ctx, h.next, prefix, startAfter)
	})
}

func (h *hooked) hookSeq(ctx context.Context, prefix string, list func(context.Context) iter.Seq2[string, error]) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		stopped := false
		err := h.hook(ctx, "list", prefix, func(ctx context.Context) error {
			for k, err := range list(ctx) {
				if err != nil {
					return err
				}
				if !yield(k, nil) {
					stopped = true
					return nil
				}
			}
			return nil
		})
		if err != nil && !stopped {
			yield("", err)
		}
	}
}

// Limit returns a hook that lets at most n calls run at once; the others
// wait for a place or for their context to end.
func Limit(n int) Hook {
	slots := make(chan struct{}, n)
	return func(ctx context.Context, _, _ string, call func(context.Context) error) error {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
		defer func() { <-slots }()
		return call(ctx)
	}
}

// ListInfo runs the hook around the whole listing, as List does.
func (h *hooked) ListInfo(ctx context.Context, prefix, startAfter string) iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		stopped := false
		err := h.hook(ctx, "list", prefix, func(ctx context.Context) error {
			for e, err := range ListInfo(ctx, h.next, prefix, startAfter) {
				if err != nil {
					return err
				}
				if !yield(e, nil) {
					stopped = true
					return nil
				}
			}
			return nil
		})
		if err != nil && !stopped {
			yield(Entry{}, err)
		}
	}
}
