package transfer

import (
	"context"
	"errors"

	"github.com/zarrgw/zarrgw/core/store"
)

// StoreFault is a failure of a store itself rather than of one key: a
// missing bucket or container, an invalid bucket name, refused
// credentials or permissions, a full disk, a read-only store, a network
// that stayed down through the retries. Every other key would fail the
// same way, so a copy stops at the first one, says it once, and leaves
// its journal for a rerun, instead of reporting it once per key.
type StoreFault struct {
	Err error
}

func (f *StoreFault) Error() string { return f.Err.Error() }
func (f *StoreFault) Unwrap() error { return f.Err }

// watchFaults marks the failures of s's calls that are not about one key
// as StoreFaults. A missing key, a key the store cannot hold, a failed
// condition and a cancelled call are about that call alone.
func watchFaults(s store.Store) store.Store {
	return store.WithHook(s, func(ctx context.Context, _, _ string, call func(context.Context) error) error {
		err := call(ctx)
		if err == nil || ctx.Err() != nil || errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrInvalidKey) ||
			errors.Is(err, store.ErrConflict) || errors.Is(err, context.Canceled) {
			return err
		}
		return &StoreFault{Err: err}
	})
}

// isFault reports a failure that ends the whole copy.
func isFault(err error) bool {
	var f *StoreFault
	return errors.As(err, &f)
}
