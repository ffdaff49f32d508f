package picture

import (
	"fmt"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/checked"
	"github.com/zarrgw/zarrgw/core/grid"
)

// What a picture holds, per pixel and once, beyond the chunks being read.
const (
	// palettedBytes is the image Colorize or Booleans draws.
	palettedBytes = 1
	// pngBytes is the encoded picture in a growing buffer: deflate can
	// make incompressible pixels slightly larger, a buffer grows to twice
	// what it holds, and holds the old one until it is collected.
	pngBytes = 3
	// meanBytes are blockMeans' sums (float64) and counts (uint32).
	meanBytes = 8 + 4
	// fixedBytes are RobustLimits' sample (1<<16 float64) and the PNG
	// encoder's deflate state, with room to spare.
	fixedBytes = 2 << 20
)

// Cost is the memory drawing a selection takes, known before anything is
// read: callers budget it, and draw smaller pictures when it is too much.
type Cost struct {
	// Pixels is the picture's size.
	Pixels int64
	// PerPixel is what each pixel holds at once over every stage: the
	// values read (or block means' sums and counts), the paletted image
	// and the encoded PNG.
	PerPixel int64
	// Fixed is what the picture holds whatever its size; for block means
	// it includes the stream's budget (Options.Stream).
	Fixed int64
	// Read is the selection read: strided, read at once with Array.Read,
	// or (Streamed) the whole selection, streamed for block means.
	Read     grid.Selection
	Streamed bool
}

// Bytes is the most memory Render and EncodePNG hold at once, beyond the
// reading of chunks (which depends on how the caller opened the array).
func (c Cost) Bytes() int64 { return c.Fixed + c.Pixels*c.PerPixel }

// Estimate is the cost of drawing sel of a with opts, computed from the
// metadata alone.
func Estimate(a *array.Array, sel grid.Selection, opts Options) (Cost, error) {
	p, err := makePlan(a, sel, opts)
	if err != nil {
		return Cost{}, err
	}
	var c Cost
	if p.plot != nil {
		c = estimatePlot(a, p, opts)
	} else {
		c = estimatePicture(a, sel, p, opts)
	}
	// pixels are bounded by MaxPixels, which a caller may set to anything
	var calc checked.Calc
	calc.Add(c.Fixed, calc.Mul(c.Pixels, c.PerPixel))
	if calc.Overflowed() {
		return Cost{}, fmt.Errorf("array %s: a picture of %d pixels would hold more than a 64-bit count of bytes: lower max_pixels", a.Name(), c.Pixels)
	}
	return c, nil
}

// estimatePicture is the cost of a picture planned by makePlan.
func estimatePicture(a *array.Array, sel grid.Selection, p plan, opts Options) Cost {
	h, w := sel[p.d0].Count, sel[p.d1].Count
	pixels, _ := checked.Mul(int64(checked.CeilDiv(h, p.f)), int64(checked.CeilDiv(w, p.f))) // at most MaxPixels
	c := Cost{
		Pixels:   pixels,
		PerPixel: palettedBytes + pngBytes,
		Fixed:    fixedBytes,
		Read:     p.read,
		Streamed: p.mean,
	}
	if p.mean {
		c.PerPixel += meanBytes
		c.Fixed += streamBudget(opts.Stream)
	} else {
		c.PerPixel += int64(a.Meta().DataType.Size)
	}
	return c
}

// streamBudget is the memory a stream's slabs hold (see
// array.StreamOptions).
func streamBudget(o array.StreamOptions) int64 {
	if o.MemoryBudget > 0 {
		return o.MemoryBudget
	}
	return array.DefaultMemoryBudget
}

// columnBytes are what a plot holds per pixel column: each column's
// least and greatest value and the count of its values.
const columnBytes = 8 + 8 + 4

// estimatePlot is the cost of a plot planned by makePlotPlan.
func estimatePlot(a *array.Array, p plan, opts Options) Cost {
	pp := p.plot
	c := Cost{
		Pixels:   int64(pp.w) * int64(pp.h),
		PerPixel: palettedBytes + pngBytes,
		Fixed:    fixedBytes + int64(pp.w)*columnBytes,
		Read:     p.read,
		Streamed: pp.stream,
	}
	if pp.stream {
		c.Fixed += streamBudget(opts.Stream)
	} else {
		// the values read, and each as a float64 point
		c.Fixed += int64(p.read[p.d0].Count) * int64(a.Meta().DataType.Size+8)
	}
	return c
}
