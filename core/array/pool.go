package array

import (
	"context"
	"fmt"
	"sync"

	"golang.org/x/sync/errgroup"
)

// forEach runs fn(ctx, i) for i in [0, n) on at most limit goroutines.
// The first error cancels the rest and is returned.
func forEach(ctx context.Context, n, limit int, fn func(ctx context.Context, i int) error) error {
	if n == 1 || limit <= 1 {
		for i := 0; i < n; i++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := safeCall(ctx, i, fn); err != nil {
				return err
			}
		}
		return nil
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(limit)
	for i := 0; i < n; i++ {
		if gctx.Err() != nil {
			break // a call failed: start no more
		}
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			return safeCall(gctx, i, fn)
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return ctx.Err()
}

// takeBuffer is a buffer of at least n bytes from pool (of *[]byte),
// made when the pool has none that large; the caller puts it back.
func takeBuffer(pool *sync.Pool, n int) *[]byte {
	buf, _ := pool.Get().(*[]byte)
	if buf == nil || cap(*buf) < n {
		b := make([]byte, n)
		buf = &b
	}
	return buf
}

// safeCall turns a panic in fn (a codec bug, say) into an error, so one bad
// chunk cannot take the whole process down.
func safeCall(ctx context.Context, i int, fn func(ctx context.Context, i int) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: %v", r)
		}
	}()
	return fn(ctx, i)
}
