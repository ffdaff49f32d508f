package storetest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/zarrgw/zarrgw/core/store"
)

// maxRetries bounds the retries of one increment, so a store whose
// conditional writes never succeed fails instead of spinning forever.
const maxRetries = 10000

// Increment adds one to the decimal counter at key n times, each time by
// read-modify-write: Get's version, then Set with IfMatch (IfNoneMatch when
// the counter does not exist yet), retried on ErrConflict. It returns how
// many conflicts it retried. If the store honours conditions no increment is
// ever lost, whoever else increments the same key.
func Increment(ctx context.Context, s store.Store, key string, n int) (conflicts int, err error) {
	for range n {
		c, err := incrementOnce(ctx, s, key)
		conflicts += c
		if err != nil {
			return conflicts, err
		}
	}
	return conflicts, nil
}

func incrementOnce(ctx context.Context, s store.Store, key string) (conflicts int, err error) {
	for ; conflicts < maxRetries; conflicts++ {
		cur, cond, err := readForUpdate(ctx, s, key)
		if err != nil {
			return conflicts, err
		}
		next := strconv.AppendInt(nil, cur+1, 10)
		_, err = s.Set(ctx, key, next, cond)
		if err == nil {
			return conflicts, nil
		}
		if !errors.Is(err, store.ErrConflict) {
			return conflicts, fmt.Errorf("increment %q: %w", key, err)
		}
	}
	return conflicts, fmt.Errorf("increment %q: still conflicting after %d retries", key, maxRetries)
}

// readForUpdate returns the counter and the condition that guards its update.
func readForUpdate(ctx context.Context, s store.Store, key string) (int64, store.Condition, error) {
	v, err := s.Get(ctx, key, store.ByteRange{})
	if errors.Is(err, store.ErrNotFound) {
		return 0, store.Condition{IfNoneMatch: true}, nil
	}
	if err != nil {
		return 0, store.Condition{}, fmt.Errorf("increment %q: %w", key, err)
	}
	n, err := strconv.ParseInt(string(v.Data), 10, 64)
	if err != nil {
		return 0, store.Condition{}, fmt.Errorf("increment %q: counter is %q: %w", key, v.Data, err)
	}
	if v.Version == "" {
		return 0, store.Condition{}, fmt.Errorf("increment %q: Get returned no version", key)
	}
	return n, store.Condition{IfMatch: v.Version}, nil
}

// ReadCounter returns the counter at key (0 if it does not exist).
func ReadCounter(ctx context.Context, s store.Store, key string) (int64, error) {
	v, err := s.Get(ctx, key, store.ByteRange{})
	if errors.Is(err, store.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read counter %q: %w", key, err)
	}
	return strconv.ParseInt(string(v.Data), 10, 64)
}

// RunIncrements runs Increment(each) from workers goroutines at once and
// returns the total conflicts retried and the first error.
func RunIncrements(ctx context.Context, s store.Store, key string, workers, each int) (int, error) {
	var (
		wg        sync.WaitGroup
		mu        sync.Mutex
		conflicts int
		errs      []error
	)
	for range workers {
		wg.Go(func() {
			c, err := Increment(ctx, s, key, each)
			mu.Lock()
			defer mu.Unlock()
			conflicts += c
			errs = append(errs, err)
		})
	}
	wg.Wait()
	return conflicts, errors.Join(errs...)
}
