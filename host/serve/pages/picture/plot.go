package picture

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"math"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/checked"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// The size of a line plot, unless MaxPixels asks for fewer pixels (then
// both shrink alike).
const (
	PlotWidth  = 640
	PlotHeight = 240
)

// The colours of a plot: its background, its line and the line of zero.
var (
	PlotBackground = color.NRGBA{255, 255, 255, 255}
	PlotLine       = color.NRGBA{31, 119, 180, 255}
	PlotZero       = color.NRGBA{214, 218, 226, 255}
)

// plotPad is the space above the highest value and below the lowest, in
// pixels, so that the line at the limits stays whole.
const plotPad = 3

// plotPlan is how a plot is read and drawn.
type plotPlan struct {
	n      int  // values selected
	w, h   int  // the plot's size
	stream bool // every value streamed into its column's minimum and maximum (or mean)
}

// makePlotPlan plans the line plot of a 1-D selection: a selection of at
// most as many values as the plot has pixel columns is read at once and
// drawn point to point; a longer one is streamed whole, each pixel
// column drawn from the least to the greatest of its values (or through
// their mean, with Mean), or with Stride read about one value per column.
func makePlotPlan(sel grid.Selection, opts Options) (plan, error) {
	var kept []int
	for d, s := range sel {
		if !s.Drop {
			kept = append(kept, d)
		}
	}
	if len(kept) != 1 {
		return plan{}, fmt.Errorf("%w: a line plot needs a 1-D selection, and %d dimensions are left; fix the others with an index", ErrUnsupported, len(kept))
	}
	d := kept[0]
	n := sel[d].Count
	if n == 0 {
		return plan{}, fmt.Errorf("%w: the selection is empty", ErrUnsupported)
	}
	w, h := plotSize(opts.MaxPixels)
	pp := &plotPlan{n: n, w: w, h: h}
	p := plan{read: sel, d0: d, d1: -1, f: 1, plot: pp}
	switch {
	case n <= w:
	case opts.Stride && !opts.Mean:
		p.f = checked.CeilDiv(n, w)
		p.read = append(grid.Selection(nil), sel...)
		p.read[d] = stride(p.read[d], p.f)
	default:
		pp.stream = true
		p.mean = opts.Mean
	}
	return p, nil
}

// plotSize is PlotWidth x PlotHeight, or as much smaller (same shape) as
// fits maxPixels.
func plotSize(maxPixels int) (int, int) {
	w, h := PlotWidth, PlotHeight
	if maxPixels <= 0 || w*h <= maxPixels {
		return w, h
	}
	s := math.Sqrt(float64(maxPixels) / float64(w*h))
	w, h = max(1, int(float64(w)*s)), max(1, int(float64(h)*s))
	for w*h > maxPixels && w > 1 {
		w--
	}
	return w, h
}

// plot reads and draws a plot planned by makePlotPlan.
func plot(ctx context.Context, a *array.Array, sel grid.Selection, p plan, opts Options) (Drawn, error) {
	pp := p.plot
	fill := transparent(a)
	var lo, hi []float64 // each column's span; NaN where it has no value
	if pp.stream {
		var err error
		lo, hi, err = streamColumns(ctx, a, sel, pp, p.mean, fill, opts.Stream)
		if err != nil {
			return Drawn{}, err
		}
	} else {
		data, err := a.Read(ctx, p.read)
		if err != nil {
			return Drawn{}, err
		}
		g, err := FromArray(data, 1, data.Len(), fill)
		if err != nil {
			return Drawn{}, err
		}
		points := make([]float64, data.Len())
		for i := range points {
			points[i] = math.NaN()
			if v, ok := g.Value(i); ok {
				points[i] = v
			}
		}
		lo = columnsOf(points, pp.w)
		hi = lo
	}
	lim, ok := spanOf(lo, hi)
	if opts.Limits != nil {
		lim, ok = *opts.Limits, true
	}
	if !ok {
		lim = Limits{0, 1}
	}
	return Drawn{Image: drawLine(lo, hi, pp.w, pp.h, lim), Limits: lim, Scaled: true}, nil
}

// streamColumns reads every value of sel into the plot's columns: the
// least and greatest of each (or, with mean, its mean twice).
func streamColumns(ctx context.Context, a *array.Array, sel grid.Selection, pp *plotPlan, mean bool, fill []byte, so array.StreamOptions) (lo, hi []float64, err error) {
	w, n := pp.w, int64(pp.n)
	lo, hi = make([]float64, w), make([]float64, w)
	counts := make([]uint32, w)
	k := int64(0) // index of the next value in the selection
	err = a.Stream(ctx, sel, so, func(s *ndarray.Array) error {
		g, err := FromArray(s, 1, s.Len(), fill)
		if err != nil {
			return err
		}
		for i := 0; i < s.Len(); i, k = i+1, k+1 {
			v, ok := g.Value(i)
			if !ok {
				continue
			}
			c := int(k * int64(w) / n)
			switch {
			case mean:
				lo[c] += v
			case counts[c] == 0:
				lo[c], hi[c] = v, v
			default:
				lo[c], hi[c] = min(lo[c], v), max(hi[c], v)
			}
			counts[c]++
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	for c := range lo {
		switch {
		case counts[c] == 0:
			lo[c], hi[c] = math.NaN(), math.NaN()
		case mean:
			lo[c] /= float64(counts[c])
			hi[c] = lo[c]
		}
	}
	return lo, hi, nil
}

// columnsOf spreads m <= w points over w pixel columns, the first at the
// left edge and the last at the right, interpolating linearly between
// neighbours that are both present. One point is a short dash in the
// middle.
func columnsOf(points []float64, w int) []float64 {
	out := make([]float64, w)
	for c := range out {
		out[c] = math.NaN()
	}
	m := len(points)
	if m == 1 {
		for c := max(0, w/2-3); c < min(w, w/2+4); c++ {
			out[c] = points[0]
		}
		return out
	}
	if w == 1 {
		out[0] = points[0]
		return out
	}
	for c := range out {
		pos := float64(c) * float64(m-1) / float64(w-1)
		i := min(int(pos), m-1)
		t := pos - float64(i)
		v0 := points[i]
		switch {
		case t == 0 || i == m-1:
			out[c] = v0
		case !math.IsNaN(v0) && !math.IsNaN(points[i+1]):
			out[c] = v0 + t*(points[i+1]-v0)
		case t < 0.5:
			out[c] = v0
		default:
			out[c] = points[i+1]
		}
	}
	return out
}

// spanOf is the least and greatest finite value of the columns (a
// constant spread a little, so that it has a bottom and a top), false
// for none.
func spanOf(lo, hi []float64) (Limits, bool) {
	l := Limits{Min: math.Inf(1), Max: math.Inf(-1)}
	for c := range lo {
		if !math.IsNaN(lo[c]) && !math.IsInf(lo[c], 0) {
			l.Min = min(l.Min, lo[c])
		}
		if !math.IsNaN(hi[c]) && !math.IsInf(hi[c], 0) {
			l.Max = max(l.Max, hi[c])
		}
	}
	if l.Min > l.Max {
		return Limits{}, false
	}
	if l.Min == l.Max {
		d := math.Abs(l.Min) / 10
		if d == 0 {
			d = 1
		}
		l.Min, l.Max = l.Min-d, l.Max+d
	}
	return l, true
}

// drawLine draws the columns' spans between the limits (lim.Max at the
// top), each joined to the one before it, two pixels thick, with the
// line of zero when zero is within the limits.
func drawLine(lo, hi []float64, w, h int, lim Limits) *image.Paletted {
	img := image.NewPaletted(image.Rect(0, 0, w, h), color.Palette{PlotBackground, PlotLine, PlotZero})
	pad := plotPad
	if h < 4*plotPad {
		pad = 0
	}
	y := func(v float64) int {
		if !(lim.Max > lim.Min) {
			return h / 2
		}
		// values beyond the limits (infinities among them) at the edges
		f := max(0, min(1, (lim.Max-v)/(lim.Max-lim.Min)))
		return pad + int(math.Round(f*float64(h-1-2*pad)))
	}
	if lim.Min < 0 && lim.Max > 0 {
		row := y(0)
		for x := range w {
			img.Pix[row*img.Stride+x] = 2
		}
	}
	present := func(c int) bool { return c >= 0 && !math.IsNaN(lo[c]) && !math.IsNaN(hi[c]) }
	for c := range w {
		if !present(c) {
			continue
		}
		top, bottom := y(hi[c]), y(lo[c])
		if present(c - 1) {
			// join the column before: reach to its nearest end
			ptop, pbottom := y(hi[c-1]), y(lo[c-1])
			if pbottom < top {
				top = pbottom
			}
			if ptop > bottom {
				bottom = ptop
			}
		}
		for r := max(0, top-1); r <= bottom; r++ {
			for x := c; x <= min(w-1, c+1); x++ {
				img.Pix[r*img.Stride+x] = 1
			}
		}
	}
	return img
}
