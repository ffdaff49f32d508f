package blosc

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// The benchmarks work on a 1 MiB float32 chunk (a sine wave plus noise).
// bench/blosc/run.sh sets BLOSC_BENCH_DIR to a directory holding the input
// (input.f32) and the frames numcodecs made of it (<name>.frame), so that
// Go and C are timed on identical bytes; without it the input is generated
// here and the frames encoded here.

type benchCase struct {
	name string
	cfg  Config
}

var benchCases = []benchCase{
	{"lz4_shuffle", Config{CName: "lz4", CLevel: 5, Shuffle: ByteShuffle, TypeSize: 4}},
	{"zstd_bitshuffle", Config{CName: "zstd", CLevel: 5, Shuffle: BitShuffle, TypeSize: 4}},
	{"blosclz_shuffle", Config{CName: "blosclz", CLevel: 5, Shuffle: ByteShuffle, TypeSize: 4}},
}

func benchInput(b *testing.B) []byte {
	if dir := os.Getenv("BLOSC_BENCH_DIR"); dir != "" {
		data, err := os.ReadFile(filepath.Join(dir, "input.f32"))
		if err != nil {
			b.Fatal(err)
		}
		return data
	}
	return smoothFloats(1 << 18)
}

func benchFrame(b *testing.B, bc benchCase, data []byte) []byte {
	if dir := os.Getenv("BLOSC_BENCH_DIR"); dir != "" {
		frame, err := os.ReadFile(filepath.Join(dir, bc.name+".frame"))
		if err != nil {
			b.Fatal(err)
		}
		return frame
	}
	frame, err := (&Codec{cfg: bc.cfg}).EncodeBytes(context.Background(), specOf(len(data), "float32"), data)
	if err != nil {
		b.Fatal(err)
	}
	return frame
}

// BenchmarkDecode decodes on one goroutine (par 1) like single-threaded
// c-blosc, and with the default parallelism.
func BenchmarkDecode(b *testing.B) {
	data := benchInput(b)
	for _, bc := range benchCases {
		frame := benchFrame(b, bc, data)
		for _, par := range []int{1, 0} {
			c := &Codec{cfg: bc.cfg, par: par}
			b.Run(bc.name+parName(par), func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					if _, err := c.DecodeBytes(context.Background(), specOf(len(data), "float32"), frame); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(len(data))/float64(len(frame)), "ratio")
			})
		}
	}
}

// BenchmarkDecodeInto decodes into a reused buffer, on one goroutine.
func BenchmarkDecodeInto(b *testing.B) {
	data := benchInput(b)
	for _, bc := range benchCases {
		frame := benchFrame(b, bc, data)
		c := &Codec{cfg: bc.cfg, par: 1}
		out := make([]byte, len(data))
		b.Run(bc.name+"/seq", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := c.DecodeInto(context.Background(), specOf(len(data), "float32"), out, frame); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkEncode(b *testing.B) {
	data := benchInput(b)
	for _, bc := range benchCases {
		for _, par := range []int{1, 0} {
			c := &Codec{cfg: bc.cfg, par: par}
			b.Run(bc.name+parName(par), func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				var n int
				for b.Loop() {
					frame, err := c.EncodeBytes(context.Background(), specOf(len(data), "float32"), data)
					if err != nil {
						b.Fatal(err)
					}
					n = len(frame)
				}
				b.ReportMetric(float64(len(data))/float64(n), "ratio")
			})
		}
	}
}

func parName(par int) string {
	if par == 1 {
		return "/seq"
	}
	return "/par"
}
