package picture

import (
	"context"
	"fmt"
	"image"
	"math"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/checked"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// DefaultMaxPixels bounds a picture's pixels when Options do not: a
// 4096 x 4096 selection is drawn whole.
const DefaultMaxPixels = 4096 * 4096

// Options say how to draw an array.
type Options struct {
	// Colormap names the colormap ("" = viridis).
	Colormap string
	// Limits are the values at the ends of the colormap (of a plot, at
	// its bottom and top); nil = the robust limits of the data drawn (of
	// a plot, its minimum and maximum).
	Limits *Limits
	// MaxPixels bounds the picture (0 = DefaultMaxPixels): a larger
	// selection is downsampled by the smallest whole factor that fits.
	MaxPixels int
	// Mean downsamples by block means (every element read, streamed)
	// instead of by striding (only the elements drawn read). A plot
	// draws each pixel column's mean.
	Mean bool
	// Plot draws a 1-D selection as a line plot (see Plot) instead of a
	// 2-D selection as a picture.
	Plot bool
	// Stride makes a plot of more values than it has pixel columns read
	// about one value per column (every f-th) instead of every value
	// (streamed, each column drawn from its minimum to its maximum).
	// Pictures always stride unless Mean.
	Stride bool
	// Stream bounds the memory of a block-mean read.
	Stream array.StreamOptions
}

// plan is how a picture is read: the selection read (strided, or whole
// for block means), its image axes and the downsampling factor; for a
// plot, its axis (d0), its size and whether every value is streamed.
type plan struct {
	read   grid.Selection
	d0, d1 int
	f      int
	mean   bool
	plot   *plotPlan
}

// makePlan checks a selection and options against an array.
func makePlan(a *array.Array, sel grid.Selection, opts Options) (plan, error) {
	if err := sel.Check(a.Meta().Shape); err != nil {
		return plan{}, fmt.Errorf("array %s: %w", a.Name(), err)
	}
	dt := a.Meta().DataType
	if _, err := reader(dt, nil); err != nil {
		return plan{}, fmt.Errorf("array %s: %w", a.Name(), err)
	}
	if opts.Plot {
		return makePlotPlan(sel, opts)
	}
	d0, d1, err := imageAxes(sel)
	if err != nil {
		return plan{}, err
	}
	h, w := sel[d0].Count, sel[d1].Count
	if h == 0 || w == 0 {
		return plan{}, fmt.Errorf("%w: the selection is empty (%d x %d)", ErrUnsupported, h, w)
	}
	maxPixels := opts.MaxPixels
	if maxPixels <= 0 {
		maxPixels = DefaultMaxPixels
	}
	p := plan{read: sel, d0: d0, d1: d1, f: factor(h, w, maxPixels)}
	p.mean = opts.Mean && p.f > 1 && dt.Kind != dtype.Bool
	if !p.mean {
		p.read = append(grid.Selection(nil), sel...)
		for _, d := range []int{d0, d1} {
			p.read[d] = stride(p.read[d], p.f)
		}
	}
	return p, nil
}

// ReadSelection is the selection Render reads to draw sel with opts (for
// callers that tag pictures with the versions of the chunks they read).
func ReadSelection(a *array.Array, sel grid.Selection, opts Options) (grid.Selection, error) {
	p, err := makePlan(a, sel, opts)
	return p.read, err
}

// Render draws the selection sel of a, which must leave exactly two
// dimensions (fix the others with an index), or one with Options.Plot.
func Render(ctx context.Context, a *array.Array, sel grid.Selection, opts Options) (*image.Paletted, error) {
	d, err := Draw(ctx, a, sel, opts)
	if err != nil {
		return nil, err
	}
	return d.Image, nil
}

// Drawn is a picture and how it was drawn.
type Drawn struct {
	Image *image.Paletted
	// Limits are the values drawn at the two ends of the colormap (the
	// ones given, else those found in the data); for a plot, the values
	// at its bottom and top. Scaled is false when there are none: a
	// picture of booleans, black and white.
	Limits Limits
	Scaled bool
	// Colormap names the colormap of a scaled picture ("" for a plot or
	// booleans).
	Colormap string
}

// Draw draws the selection sel of a as Render does, and says with which
// limits and colormap: what a colorbar beside the picture shows.
func Draw(ctx context.Context, a *array.Array, sel grid.Selection, opts Options) (Drawn, error) {
	p, err := makePlan(a, sel, opts)
	if err != nil {
		return Drawn{}, err
	}
	if p.plot != nil {
		return plot(ctx, a, sel, p, opts)
	}
	dt := a.Meta().DataType
	var g Grid
	if p.mean {
		g, err = blockMeans(ctx, a, sel, sel[p.d0].Count, sel[p.d1].Count, p.f, opts.Stream)
	} else {
		g, err = strided(ctx, a, p)
	}
	if err != nil {
		return Drawn{}, err
	}
	if dt.Kind == dtype.Bool {
		return Drawn{Image: Booleans(g)}, nil
	}
	lim := Limits{0, 1}
	if opts.Limits != nil {
		lim = *opts.Limits
	} else if l, ok := RobustLimits(g); ok {
		lim = l
	}
	cmap := opts.Colormap
	if cmap == "" {
		cmap = DefaultColormap
	}
	img, err := Colorize(g, cmap, lim)
	if err != nil {
		return Drawn{}, err
	}
	return Drawn{Image: img, Limits: lim, Scaled: true, Colormap: cmap}, nil
}

// transparent is the value drawn transparent: the fill value, except for
// booleans, whose fill (usually false) is one of the only two values and
// is drawn black like any other false.
func transparent(a *array.Array) []byte {
	if a.Meta().DataType.Kind == dtype.Bool {
		return nil
	}
	return a.Meta().FillValue
}

// imageAxes returns the two dimensions a selection keeps.
func imageAxes(sel grid.Selection) (int, int, error) {
	var kept []int
	for d, s := range sel {
		if !s.Drop {
			kept = append(kept, d)
		}
	}
	if len(kept) == 1 {
		return 0, 0, fmt.Errorf("%w: a picture needs a 2-D selection, and 1 dimension is left; draw it as a line plot with plot=line", ErrUnsupported)
	}
	if len(kept) != 2 {
		return 0, 0, fmt.Errorf("%w: a picture needs a 2-D selection, and %d dimensions are left; fix the others with an index (such as slice=5,:,:)", ErrUnsupported, len(kept))
	}
	return kept[0], kept[1], nil
}

// factor is the smallest whole downsampling factor that fits h x w into
// maxPixels, found by bisection: the pixels only shrink as the factor
// grows, and a long thin selection (h in the billions, w of 1) needs a
// factor of h/maxPixels, far from the square root of h*w/maxPixels.
func factor(h, w, maxPixels int) int {
	fits := func(f int) bool {
		n, ok := checked.Mul(checked.CeilDiv(h, f), checked.CeilDiv(w, f))
		return ok && n <= maxPixels
	}
	lo, hi := 1, max(h, w, 1) // a factor of max(h, w) leaves one pixel
	for lo < hi {
		mid := lo + (hi-lo)/2
		if fits(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// stride keeps every f-th index d selects. The step grows by f only
// while two indexes are kept: a longer step is then within d's span, and
// one that would overflow is never taken.
func stride(d grid.Dim, f int) grid.Dim {
	d.Count = checked.CeilDiv(d.Count, f)
	if d.Count > 1 {
		d.Step *= f // (Count-1)*Step*f is at most d's span
	}
	return d
}

// strided reads every f-th element along the two axes.
func strided(ctx context.Context, a *array.Array, p plan) (Grid, error) {
	data, err := a.Read(ctx, p.read)
	if err != nil {
		return nil, err
	}
	return FromArray(data, p.read[p.d0].Count, p.read[p.d1].Count, transparent(a))
}

// blockMeans streams the whole selection and averages each f x f block of
// present values; a block with none is missing.
func blockMeans(ctx context.Context, a *array.Array, sel grid.Selection, h, w, f int, so array.StreamOptions) (Grid, error) {
	rows, cols := checked.CeilDiv(h, f), checked.CeilDiv(w, f)
	sums := make([]float64, rows*cols)
	counts := make([]uint32, rows*cols)
	k := 0 // flat index of the next element in the selection
	fill := transparent(a)
	err := a.Stream(ctx, sel, so, func(s *ndarray.Array) error {
		g, err := FromArray(s, 1, s.Len(), fill)
		if err != nil {
			return err
		}
		for i := 0; i < s.Len(); i, k = i+1, k+1 {
			if v, ok := g.Value(i); ok {
				cell := (k/w/f)*cols + (k%w)/f
				sums[cell] += v
				counts[cell]++
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i := range sums {
		if counts[i] == 0 {
			sums[i] = math.NaN()
		} else {
			sums[i] /= float64(counts[i])
		}
	}
	return &floatGrid{rows: rows, cols: cols, v: sums}, nil
}
