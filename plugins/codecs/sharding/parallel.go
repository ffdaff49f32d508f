package sharding

import (
	"context"

	"golang.org/x/sync/errgroup"

	"github.com/zarrgw/zarrgw/core/grid"
)

// parallel calls fn(i) for i in [0, n) on at most workers goroutines at a
// time and returns the first error; once one call fails (or ctx ends),
// calls not yet started are skipped.
func parallel(ctx context.Context, n, workers int, fn func(i int) error) error {
	if n == 1 {
		// one call runs on the caller's goroutine: a new one costs more
		// than a small decode (its stack grows to the decoder's depth)
		if err := ctx.Err(); err != nil {
			return err
		}
		return fn(0)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(workers, 1))
	for i := range n {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			return fn(i)
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return ctx.Err()
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
