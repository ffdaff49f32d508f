package picture_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/host/serve/pages/picture"
)

// newLine creates a 1-D float32 array of values (NaN is the fill value).
func newLine(t testing.TB, chunk int, values []float32) *array.Array {
	t.Helper()
	ctx := context.Background()
	fv := make([]byte, 4)
	binary.LittleEndian.PutUint32(fv, math.Float32bits(float32(math.NaN())))
	m := &meta.ArrayMeta{Format: meta.V3, Shape: []int{len(values)}, ChunkShape: []int{chunk}, DataType: dtype.Named("float32"), FillValue: fv,
		ChunkKey: meta.ChunkKeyEncoding{Name: "default", Separator: "/"}, Attributes: json.RawMessage(`{}`),
		Codecs: []meta.Extension{{Name: "bytes", Configuration: json.RawMessage(`{"endian":"little"}`)}}}
	a, err := hierarchy.CreateArray(ctx, store.NewMemory(), "line", m, array.Options{Codecs: registry.Codecs()})
	if err != nil {
		t.Fatal(err)
	}
	data := ndarray.New(m.DataType, m.Shape)
	for i, v := range values {
		binary.LittleEndian.PutUint32(data.Data[4*i:], math.Float32bits(v))
	}
	if err := a.WriteAll(ctx, data); err != nil {
		t.Fatal(err)
	}
	return a
}

// plotOf draws the whole of a 1-D array as a plot.
func plotOf(t *testing.T, a *array.Array, opts picture.Options) picture.Drawn {
	t.Helper()
	opts.Plot = true
	d, err := picture.Draw(context.Background(), a, grid.All(a.Shape()), opts)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// lineRows are the rows of column x drawn in the line's colour.
func lineRows(d picture.Drawn, x int) []int {
	var rows []int
	for y := range d.Image.Bounds().Dy() {
		if d.Image.At(x, y) == picture.PlotLine {
			rows = append(rows, y)
		}
	}
	return rows
}

// The colorbar is the colormap as pictures draw it: its first pixel is
// the colour of the lower limit, its last that of the upper.
func TestColorbar(t *testing.T) {
	a := newFloat32(t, []int{1, 2}, []int{1, 2}, nil, func(r, c int) float32 { return float32(c) })
	for _, name := range picture.Colormaps() {
		bar, err := picture.Colorbar(name)
		if err != nil {
			t.Fatal(err)
		}
		d, err := picture.Draw(context.Background(), a, grid.All(a.Shape()), picture.Options{Colormap: name, Limits: &picture.Limits{Min: 0, Max: 1}})
		if err != nil {
			t.Fatal(err)
		}
		w := bar.Bounds().Dx()
		if w < 200 || bar.Bounds().Dy() != 1 || bar.At(0, 0) != d.Image.At(0, 0) || bar.At(w-1, 0) != d.Image.At(1, 0) {
			t.Errorf("%s: colorbar %v from %v to %v; the picture's ends %v %v", name, bar.Bounds(), bar.At(0, 0), bar.At(w-1, 0), d.Image.At(0, 0), d.Image.At(1, 0))
		}
		lo, hi, _ := picture.Ends(name)
		if bar.At(0, 0) != lo || bar.At(w-1, 0) != hi {
			t.Errorf("%s: Ends %v %v, colorbar %v %v", name, lo, hi, bar.At(0, 0), bar.At(w-1, 0))
		}
	}
	if _, err := picture.Colorbar("jet"); err == nil {
		t.Error("a colorbar of an unknown colormap")
	}
}

// Draw says the limits it drew: the ones given, else the robust ones;
// none for booleans.
func TestDrawnLimits(t *testing.T) {
	a := newFloat32(t, []int{10, 10}, []int{5, 5}, nil, func(r, c int) float32 { return float32(r*10 + c) })
	d, err := picture.Draw(context.Background(), a, grid.All(a.Shape()), picture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !d.Scaled || d.Limits != (picture.Limits{Min: 2, Max: 97}) || d.Colormap != "viridis" {
		t.Errorf("robust: %+v", d)
	}
	d, err = picture.Draw(context.Background(), a, grid.All(a.Shape()), picture.Options{Colormap: "plasma", Limits: &picture.Limits{Min: -1, Max: 5}})
	if err != nil {
		t.Fatal(err)
	}
	if d.Limits != (picture.Limits{Min: -1, Max: 5}) || d.Colormap != "plasma" {
		t.Errorf("given: %+v", d)
	}
}

// A short line is drawn point to point, from the left edge to the right,
// low values low; its limits are its least and greatest values.
func TestPlotShort(t *testing.T) {
	vals := []float32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	d := plotOf(t, newLine(t, 4, vals), picture.Options{})
	b := d.Image.Bounds()
	if b.Dx() != picture.PlotWidth || b.Dy() != picture.PlotHeight || d.Limits != (picture.Limits{Min: 0, Max: 9}) || !d.Scaled || d.Colormap != "" {
		t.Fatalf("plot %v, limits %+v", b, d)
	}
	first, last := lineRows(d, 0), lineRows(d, b.Dx()-1)
	if len(first) == 0 || len(last) == 0 || first[len(first)-1] < b.Dy()-6 || last[0] > 5 {
		t.Fatalf("a rising line: rows %v at the left, %v at the right", first, last)
	}
	// every column has the line (no gaps), and it rises steadily
	prev := b.Dy()
	for x := range b.Dx() {
		rows := lineRows(d, x)
		if len(rows) == 0 || rows[0] > prev {
			t.Fatalf("column %d: rows %v after %d", x, rows, prev)
		}
		prev = rows[0]
	}
	// given limits: values beyond them at the edges
	d = plotOf(t, newLine(t, 4, vals), picture.Options{Limits: &picture.Limits{Min: 2, Max: 4}})
	if d.Limits != (picture.Limits{Min: 2, Max: 4}) || lineRows(d, 0)[0] < b.Dy()-6 || lineRows(d, b.Dx()-1)[0] > 3 {
		t.Errorf("given limits: %+v, rows %v and %v", d.Limits, lineRows(d, 0), lineRows(d, b.Dx()-1))
	}
}

// A long line is streamed whole: each pixel column spans the least to
// the greatest of its values, so a single spike among a million values
// shows; striding reads one value per column and misses it; missing
// values leave gaps.
func TestPlotEnvelope(t *testing.T) {
	n := 1 << 20
	vals := make([]float32, n)
	spike := 654321
	vals[spike] = 1000
	for i := 100; i < 5000; i++ { // columns 1 and 2: missing
		vals[i] = float32(math.NaN())
	}
	a := newLine(t, 1<<16, vals)
	d := plotOf(t, a, picture.Options{Stream: array.StreamOptions{MemoryBudget: 1 << 20}})
	if d.Limits != (picture.Limits{Min: 0, Max: 1000}) {
		t.Fatalf("envelope limits %+v, want 0 to 1000", d.Limits)
	}
	col := int(int64(spike) * picture.PlotWidth / int64(n))
	if rows := lineRows(d, col); len(rows) < picture.PlotHeight-10 {
		t.Errorf("the spike's column %d: line rows %v, want top to bottom", col, rows)
	}
	if rows := lineRows(d, col+5); len(rows) > 3 {
		t.Errorf("a column of zeros: rows %v", rows)
	}
	if rows := lineRows(d, 2); len(rows) != 0 {
		t.Errorf("a column of missing values: rows %v", rows)
	}
	strided := plotOf(t, a, picture.Options{Stride: true})
	if strided.Limits.Max >= 1000 {
		t.Errorf("striding found the spike: %+v (then the envelope test proves nothing)", strided.Limits)
	}
	mean := plotOf(t, a, picture.Options{Mean: true})
	if mean.Limits.Max <= 0 || mean.Limits.Max >= 1000 {
		t.Errorf("means: %+v, want the spike averaged into its column", mean.Limits)
	}
}

// A plot bounded by max_pixels keeps its shape; its estimate counts the
// stream for a long line and the values for a short one; a plot needs a
// 1-D selection and a picture a 2-D one.
func TestPlotBoundsAndRefusals(t *testing.T) {
	long := newLine(t, 1000, make([]float32, 100000))
	d := plotOf(t, long, picture.Options{MaxPixels: 9600})
	if w, h := d.Image.Bounds().Dx(), d.Image.Bounds().Dy(); w*h > 9600 || w < 150 || h < 50 {
		t.Errorf("max_pixels 9600: %dx%d", w, h)
	}
	sel := grid.All(long.Shape())
	c, err := picture.Estimate(long, sel, picture.Options{Plot: true, Stream: array.StreamOptions{MemoryBudget: 1 << 20}})
	if err != nil || !c.Streamed || c.Pixels != picture.PlotWidth*picture.PlotHeight || c.Fixed < 1<<20 || c.Read[0].Count != 100000 {
		t.Errorf("long: %+v %v", c, err)
	}
	c, err = picture.Estimate(long, sel, picture.Options{Plot: true, Stride: true})
	if err != nil || c.Streamed || c.Read[0].Count > picture.PlotWidth || c.Read[0].Step < 2 {
		t.Errorf("long, strided: %+v %v", c, err)
	}
	two := newFloat32(t, []int{4, 4}, []int{2, 2}, nil, nil)
	for _, tc := range []struct {
		a     *array.Array
		slice string
		plot  bool
	}{{two, ":,:", true}, {two, "1,1", true}, {two, "1,:", false}, {long, "", false}} {
		sel, _ := grid.Parse(tc.slice, tc.a.Shape())
		if _, err := picture.Draw(context.Background(), tc.a, sel, picture.Options{Plot: tc.plot}); !errors.Is(err, picture.ErrUnsupported) {
			t.Errorf("slice %q plot %v: %v, want ErrUnsupported", tc.slice, tc.plot, err)
		}
	}
	if got := plotOf(t, newLine(t, 1, []float32{5}), picture.Options{}); got.Limits.Min >= 5 || got.Limits.Max <= 5 || len(lineRows(got, picture.PlotWidth/2)) == 0 {
		t.Errorf("one value: %+v", got.Limits)
	}
}
