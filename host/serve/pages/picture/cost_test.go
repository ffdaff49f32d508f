package picture_test

import (
	"bytes"
	"context"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/host/serve/pages/picture"
)

// The estimate counts the picture's pixels and what each stage holds
// per pixel: values read (4 for float32) or block means' sums and counts
// (12), the paletted image (1) and the encoded PNG (3).
func TestEstimate(t *testing.T) {
	a := newFloat32(t, []int{1000, 1000}, []int{100, 100}, nil, nil)
	sel := grid.All(a.Shape())
	c, err := picture.Estimate(a, sel, picture.Options{MaxPixels: 10000})
	if err != nil {
		t.Fatal(err)
	}
	if c.Pixels != 100*100 || c.PerPixel != 4+1+3 || c.Streamed || c.Read[0].Step != 10 {
		t.Errorf("strided: %+v", c)
	}
	c, err = picture.Estimate(a, sel, picture.Options{MaxPixels: 10000, Mean: true, Stream: array.StreamOptions{MemoryBudget: 1 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Pixels != 100*100 || c.PerPixel != 12+1+3 || !c.Streamed || c.Fixed < 1<<20 || c.Read[0].Count != 1000 {
		t.Errorf("block means: %+v", c)
	}
	if _, err := picture.Estimate(a, grid.Selection{sel[0]}, picture.Options{}); err == nil {
		t.Error("a 1-D selection has an estimate")
	}
}

// What Render and EncodePNG allocate (every byte, freed or not) stays
// within the estimate plus what reading the chunks takes, for values that
// do not compress.
func TestEstimateBoundsRender(t *testing.T) {
	a := newFloat32(t, []int{2000, 2000}, []int{2000, 2000}, nil, func(r, c int) float32 { return rand.Float32() })
	sel := grid.All(a.Shape())
	for _, opts := range []picture.Options{{MaxPixels: 1 << 20}, {MaxPixels: 1 << 20, Mean: true}} {
		c, err := picture.Estimate(a, sel, opts)
		if err != nil {
			t.Fatal(err)
		}
		// the one chunk, stored and decoded (the bytes codec: 16 MB)
		chunkReading := int64(2 * 2000 * 2000 * 4)
		allocated := allocatedBy(func() {
			img, err := picture.Render(context.Background(), a, sel, opts)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := picture.EncodePNG(&buf, img); err != nil {
				t.Fatal(err)
			}
		})
		t.Logf("mean %v: allocated %d, estimate %d + %d", opts.Mean, allocated, c.Bytes(), chunkReading)
		if allocated > c.Bytes()+chunkReading {
			t.Errorf("mean %v: allocated %d bytes, estimate %d + chunk reading %d", opts.Mean, allocated, c.Bytes(), chunkReading)
		}
	}
}

// allocatedBy is the bytes fn allocates.
func allocatedBy(fn func()) int64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return int64(after.TotalAlloc - before.TotalAlloc)
}
