// Package picture renders 2-D selections of arrays as images: numbers
// through a perceptually uniform colormap, booleans black and white, fill
// values and NaN transparent, large selections downsampled to a bound on
// pixels (by striding, or by block means), in bounded memory; and 1-D
// selections as line plots, a pixel column's minimum to maximum drawn
// (see Options.Plot).
package picture

import (
	"bufio"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"slices"
	"sort"
)

// Colormaps lists the colormap names, sorted.
func Colormaps() []string {
	var names []string
	for n := range colormaps {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ErrUnsupported is wrapped by errors about data that has no picture
// (complex numbers, strings, raw bytes) or selections that are not 2-D.
var ErrUnsupported = errors.New("no picture")

// levels is how many colours a colormap gets in a picture: palette index
// 0 is transparent, 1..levels the colormap from low to high.
const levels = 255

// Grid is a 2-D field of values, row-major, some of them missing (fill
// values, NaN), which are drawn transparent.
type Grid interface {
	Size() (rows, cols int)
	// Value returns element i (row-major) and false when it is missing.
	Value(i int) (float64, bool)
}

// Limits are the values drawn at the two ends of the colormap.
type Limits struct{ Min, Max float64 }

// RobustLimits returns the 2nd and 98th percentiles of the grid's values
// (from an even sample of at most 1<<16 of them): a few outliers do not
// wash out the picture. It reports false when no value is present.
func RobustLimits(g Grid) (Limits, bool) {
	rows, cols := g.Size()
	n := rows * cols
	step := max(1, n/(1<<16))
	var vals []float64
	for i := 0; i < n; i += step {
		if v, ok := g.Value(i); ok {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return Limits{}, false
	}
	slices.Sort(vals)
	at := func(p float64) float64 { return vals[int(math.Round(p*float64(len(vals)-1)))] }
	return Limits{Min: at(0.02), Max: at(0.98)}, true
}

// DefaultColormap is the colormap of pictures that name none.
const DefaultColormap = "viridis"

// palette is the named colormap as pictures draw it: index 0
// transparent, 1..levels the colormap from low to high.
func palette(cmap string) (color.Palette, error) {
	table, ok := colormaps[cmap]
	if !ok {
		return nil, fmt.Errorf("colormap %q: use one of %v", cmap, Colormaps())
	}
	pal := make(color.Palette, levels+1)
	pal[0] = color.NRGBA{}
	for j := 1; j <= levels; j++ {
		c := table[(j-1)*255/(levels-1)]
		pal[j] = color.NRGBA{c[0], c[1], c[2], 255}
	}
	return pal, nil
}

// Colorbar draws the named colormap as pictures use it, low values on
// the left: one row of levels pixels, the first the colour of a picture's
// lower limit, the last that of its upper limit (pages stretch it).
func Colorbar(cmap string) (*image.Paletted, error) {
	pal, err := palette(cmap)
	if err != nil {
		return nil, err
	}
	img := image.NewPaletted(image.Rect(0, 0, levels, 1), pal)
	for i := range img.Pix {
		img.Pix[i] = uint8(i + 1)
	}
	return img, nil
}

// Ends are the colours of the two ends of the named colormap: those of
// values at or beyond a picture's limits.
func Ends(cmap string) (lo, hi color.NRGBA, err error) {
	pal, err := palette(cmap)
	if err != nil {
		return lo, hi, err
	}
	return pal[1].(color.NRGBA), pal[levels].(color.NRGBA), nil
}

// Colorize draws a grid through the named colormap between the limits.
func Colorize(g Grid, cmap string, lim Limits) (*image.Paletted, error) {
	pal, err := palette(cmap)
	if err != nil {
		return nil, err
	}
	rows, cols := g.Size()
	img := image.NewPaletted(image.Rect(0, 0, cols, rows), pal)
	scale := 0.0
	if lim.Max > lim.Min {
		scale = float64(levels-1) / (lim.Max - lim.Min)
	}
	for i := range img.Pix {
		v, ok := g.Value(i)
		if !ok {
			continue // 0: transparent
		}
		j := (levels-1)/2 + 1
		if scale > 0 {
			j = 1 + int(math.Max(0, math.Min(float64(levels-1), (v-lim.Min)*scale+0.5)))
		}
		img.Pix[i] = uint8(j)
	}
	return img, nil
}

// Booleans draws a grid of 0 and 1 black and white.
func Booleans(g Grid) *image.Paletted {
	rows, cols := g.Size()
	img := image.NewPaletted(image.Rect(0, 0, cols, rows), color.Palette{color.NRGBA{}, color.NRGBA{0, 0, 0, 255}, color.NRGBA{255, 255, 255, 255}})
	for i := range img.Pix {
		if v, ok := g.Value(i); ok {
			img.Pix[i] = 1
			if v != 0 {
				img.Pix[i] = 2
			}
		}
	}
	return img
}

// EncodePNG writes img as a PNG, compressed for speed: pictures are made
// per request.
func EncodePNG(w io.Writer, img image.Image) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(bw, img); err != nil {
		return err
	}
	return bw.Flush()
}

func grayRamp() *[256][3]uint8 {
	var t [256][3]uint8
	for i := range t {
		t[i] = [3]uint8{uint8(i), uint8(i), uint8(i)}
	}
	return &t
}
