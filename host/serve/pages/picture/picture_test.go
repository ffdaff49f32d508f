package picture_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"image/color"
	"image/png"
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

// newFloat32 creates a float32 array whose element (r, c) is value(r, c);
// fill is NaN unless fill is given.
func newFloat32(t testing.TB, shape, chunks []int, fill *float32, value func(r, c int) float32) *array.Array {
	t.Helper()
	ctx := context.Background()
	fv := make([]byte, 4)
	binary.LittleEndian.PutUint32(fv, math.Float32bits(float32(math.NaN())))
	if fill != nil {
		binary.LittleEndian.PutUint32(fv, math.Float32bits(*fill))
	}
	m := &meta.ArrayMeta{Format: meta.V3, Shape: shape, ChunkShape: chunks, DataType: dtype.Named("float32"), FillValue: fv,
		ChunkKey: meta.ChunkKeyEncoding{Name: "default", Separator: "/"}, Attributes: json.RawMessage(`{}`),
		Codecs: []meta.Extension{{Name: "bytes", Configuration: json.RawMessage(`{"endian":"little"}`)}}}
	a, err := hierarchy.CreateArray(ctx, store.NewMemory(), "a", m, array.Options{Codecs: registry.Codecs()})
	if err != nil {
		t.Fatal(err)
	}
	if value != nil {
		data := ndarray.New(m.DataType, shape)
		for r := 0; r < shape[0]; r++ {
			for c := 0; c < shape[1]; c++ {
				binary.LittleEndian.PutUint32(data.Data[4*(r*shape[1]+c):], math.Float32bits(value(r, c)))
			}
		}
		if err := a.WriteAll(ctx, data); err != nil {
			t.Fatal(err)
		}
	}
	return a
}

// render draws sel of a and decodes the PNG it encodes to.
func render(t *testing.T, a *array.Array, slice string, opts picture.Options) (w, h int, at func(x, y int) color.NRGBA) {
	t.Helper()
	sel, err := grid.Parse(slice, a.Shape())
	if err != nil {
		t.Fatal(err)
	}
	img, err := picture.Render(context.Background(), a, sel, opts)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := picture.EncodePNG(&buf, img); err != nil {
		t.Fatal(err)
	}
	dec, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	b := dec.Bounds()
	return b.Dx(), b.Dy(), func(x, y int) color.NRGBA { return color.NRGBAModel.Convert(dec.At(x, y)).(color.NRGBA) }
}

// Rows are image rows and columns image columns; the ends of the limits
// get the ends of the colormap; NaN and fill values are transparent.
func TestColormapAndTransparency(t *testing.T) {
	fill := float32(-1)
	a := newFloat32(t, []int{30, 50}, []int{8, 8}, &fill, func(r, c int) float32 {
		switch {
		case r == 5 && c == 5:
			return float32(math.NaN())
		case r == 6 && c == 6:
			return -1 // the fill value
		}
		return float32(c) / 49
	})
	w, h, at := render(t, a, "", picture.Options{Limits: &picture.Limits{Min: 0, Max: 1}})
	if w != 50 || h != 30 {
		t.Fatalf("size %dx%d, want 50x30", w, h)
	}
	if got := at(0, 0); got != (color.NRGBA{68, 1, 84, 255}) {
		t.Errorf("lowest value: %v, want viridis's first colour (68,1,84)", got)
	}
	if got := at(49, 29); got != (color.NRGBA{253, 231, 37, 255}) {
		t.Errorf("highest value: %v, want viridis's last colour (253,231,37)", got)
	}
	if got := at(5, 5); got.A != 0 {
		t.Errorf("NaN: %v, want transparent", got)
	}
	if got := at(6, 6); got.A != 0 {
		t.Errorf("fill value: %v, want transparent", got)
	}
	if _, _, gray := render(t, a, "", picture.Options{Colormap: "gray", Limits: &picture.Limits{Min: 0, Max: 1}}); gray(49, 0) != (color.NRGBA{255, 255, 255, 255}) {
		t.Errorf("gray's top: %v", gray(49, 0))
	}
	// robust limits: one huge outlier does not wash out the rest
	b := newFloat32(t, []int{40, 40}, []int{40, 40}, nil, func(r, c int) float32 {
		if r == 0 && c == 0 {
			return 1e9
		}
		return float32(c)
	})
	_, _, at = render(t, b, "", picture.Options{})
	if lo, hi := at(0, 5), at(39, 5); lo == hi {
		t.Errorf("robust limits: the first and last columns have one colour (%v)", lo)
	}
}

// A selection larger than max_pixels is downsampled below the bound: a
// 100k x 100k array is drawn in bounded time and memory, by striding or
// by block means.
func TestDownsampling(t *testing.T) {
	a := newFloat32(t, []int{100000, 100000}, []int{1000, 1000}, nil, nil)
	w, h, _ := render(t, a, "", picture.Options{MaxPixels: 10000})
	if w*h > 10000 || w < 90 || h < 90 {
		t.Fatalf("100k x 100k with max_pixels 10000: %dx%d", w, h)
	}
	// block means: a 4 x 4 of blocks of 2 x 2 averages exactly
	b := newFloat32(t, []int{4, 4}, []int{2, 3}, nil, func(r, c int) float32 { return float32(r*4 + c) })
	sel := grid.All(b.Shape())
	img, err := picture.Render(context.Background(), b, sel, picture.Options{MaxPixels: 4, Mean: true, Colormap: "gray", Limits: &picture.Limits{Min: 2.5, Max: 12.5}})
	if err != nil {
		t.Fatal(err)
	}
	// means 2.5, 4.5, 10.5, 12.5: ends of the gray ramp at the corners
	if img.Bounds().Dx() != 2 || img.Bounds().Dy() != 2 || img.ColorIndexAt(0, 0) != 1 || img.ColorIndexAt(1, 1) != 255 {
		t.Fatalf("block means: %v, indexes %d %d", img.Bounds(), img.ColorIndexAt(0, 0), img.ColorIndexAt(1, 1))
	}
}

// A selection that is not 2-D, or data that has no picture, is refused
// with ErrUnsupported before anything is read.
func TestRefusals(t *testing.T) {
	a := newFloat32(t, []int{4, 4}, []int{2, 2}, nil, nil)
	for _, slice := range []string{"1", ":", "1,1"} {
		sel, _ := grid.Parse(slice, a.Shape())
		if slice == ":" {
			sel = grid.Selection{{Start: 0, Step: 1, Count: 4}, {Start: 0, Step: 1, Count: 1, Drop: true}}
		}
		if _, err := picture.Render(context.Background(), a, sel, picture.Options{}); !errors.Is(err, picture.ErrUnsupported) {
			t.Errorf("slice %q: %v, want ErrUnsupported", slice, err)
		}
	}
}

// Booleans are drawn black (false) and white (true), the fill value
// false among them: a mask has no third value to hide.
func TestBooleans(t *testing.T) {
	ctx := context.Background()
	m := &meta.ArrayMeta{Format: meta.V3, Shape: []int{3, 4}, ChunkShape: []int{2, 2}, DataType: dtype.Named("bool"), FillValue: []byte{0},
		ChunkKey: meta.ChunkKeyEncoding{Name: "default", Separator: "/"}, Attributes: json.RawMessage(`{}`),
		Codecs: []meta.Extension{{Name: "bytes"}}}
	a, err := hierarchy.CreateArray(ctx, store.NewMemory(), "mask", m, array.Options{Codecs: registry.Codecs()})
	if err != nil {
		t.Fatal(err)
	}
	data := ndarray.New(m.DataType, m.Shape)
	for i := range data.Data {
		data.Data[i] = byte(i % 3 % 2) // 0 1 0 0 1 0 ...
	}
	if err := a.WriteAll(ctx, data); err != nil {
		t.Fatal(err)
	}
	w, h, at := render(t, a, "", picture.Options{})
	if w != 4 || h != 3 {
		t.Fatalf("size %dx%d, want 4x3", w, h)
	}
	black, white := color.NRGBA{0, 0, 0, 255}, color.NRGBA{255, 255, 255, 255}
	for i := range data.Data {
		want := black
		if data.Data[i] == 1 {
			want = white
		}
		if got := at(i%4, i/4); got != want {
			t.Errorf("element (%d, %d) = %d drawn %v, want %v", i/4, i%4, data.Data[i], got, want)
		}
	}
}
