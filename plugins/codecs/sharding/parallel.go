package sharding

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/zarrgw/zarrgw/core/grid"
)

// parallel calls fn(i) for i in [0, n) on at most workers goroutines and
// returns the first error; once one call fails, calls not yet started are
// skipped.
func parallel(ctx context.Context, n, workers int, fn func(i int) error) error {
	workers = min(workers, n)
	if workers <= 1 {
		for i := range n {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := fn(i); err != nil {
				return err
			}
		}
		return nil
	}
	var (
		next    atomic.Int64
		failed  atomic.Bool
		errOnce sync.Once
		first   error
		wg      sync.WaitGroup
	)
	fail := func(err error) {
		errOnce.Do(func() { first = err })
		failed.Store(true)
	}
	for range workers {
		wg.Go(func() {
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := ctx.Err(); err != nil {
					fail(err)
					return
				}
				if err := fn(i); err != nil {
					fail(err)
					return
				}
			}
		})
	}
	wg.Wait()
	return first
}

// whole selects all of an array of the given shape.
func whole(shape []int) []grid.Span {
	s := make([]grid.Span, len(shape))
	for i, n := range shape {
		s[i] = grid.Span{Start: 0, Step: 1, Count: n}
	}
	return s
}

// innerRegion is where inner chunk coords lie in the shard.
func innerRegion(coords, inner []int) []grid.Span {
	s := make([]grid.Span, len(coords))
	for i, c := range coords {
		s[i] = grid.Span{Start: c * inner[i], Step: 1, Count: inner[i]}
	}
	return s
}

// selection turns chunk-local spans into a selection of the shard.
func selection(region []grid.Span) grid.Selection {
	sel := make(grid.Selection, len(region))
	for i, s := range region {
		sel[i] = grid.Dim{Start: s.Start, Step: s.Step, Count: s.Count}
	}
	return sel
}

// covers reports whether region is the whole of shape.
func covers(region []grid.Span, shape []int) bool {
	for i, s := range region {
		if s.Start != 0 || s.Count != shape[i] || (s.Count > 1 && s.Step != 1) {
			return false
		}
	}
	return true
}

// compose maps spans relative to a region of src (out) into src itself.
func compose(srcSel, out []grid.Span) []grid.Span {
	s := make([]grid.Span, len(out))
	for i, o := range out {
		s[i] = grid.Span{Start: srcSel[i].Start + o.Start*srcSel[i].Step, Step: srcSel[i].Step * o.Step, Count: o.Count}
	}
	return s
}
