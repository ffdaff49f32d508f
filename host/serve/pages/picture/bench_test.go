package picture_test

import (
	"context"
	"io"
	"math"
	"testing"

	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/host/serve/pages/picture"
)

// Drawing a 4096 x 4096 float32 selection and encoding it as PNG, from an
// array in memory (chunks of 512 x 512): read, limits, colormap, PNG.
//
//	go test -run '^$' -bench Render4096 -benchtime 5x ./host/serve/pages/picture
func BenchmarkRender4096(b *testing.B) {
	a := newFloat32(b, []int{4096, 4096}, []int{512, 512}, nil, func(r, c int) float32 {
		return float32(math.Sin(float64(r)/300) * math.Cos(float64(c)/200))
	})
	sel := grid.All(a.Shape())
	b.SetBytes(4096 * 4096 * 4)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		img, err := picture.Render(context.Background(), a, sel, picture.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := picture.EncodePNG(io.Discard, img); err != nil {
			b.Fatal(err)
		}
	}
}
