package blosc

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
)

func specOf(size int, dt string) codec.Spec {
	return codec.Spec{DataType: dtype.Named(dt), DecodedSize: int64(size)}
}

func mustHex(t *testing.T, s string) []byte { return mustHexTB(t, s) }

func mustHexTB(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The two memcpyed frames numcodecs writes for tiny inputs, from the
// format digest: a frame below 128 bytes is stored raw, and keeps its
// shuffle bit although the payload is not shuffled.
var digestFrames = []struct {
	cfg   Config
	dt    string
	data  []byte
	frame string
}{
	{Config{CName: "lz4", CLevel: 5, Shuffle: NoShuffle}, "uint8", []byte{1, 2, 3, 4},
		"02 01 32 01 04000000 04000000 14000000 01020304"},
	{Config{CName: "zstd", CLevel: 5, Shuffle: ByteShuffle}, "uint16", []byte{1, 0, 2, 0, 3, 0, 4, 0},
		"02 01 93 02 08000000 08000000 18000000 0100020003000400"},
}

func TestDigestFrames(t *testing.T) {
	ctx := context.Background()
	for _, tc := range digestFrames {
		c, err := NewCodec(tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		want := mustHex(t, tc.frame)
		got, err := c.EncodeBytes(ctx, specOf(len(tc.data), tc.dt), tc.data)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: encode = %x, %v; want %x", tc.cfg.CName, got, err, want)
		}
		dec, err := c.DecodeBytes(ctx, specOf(len(tc.data), tc.dt), want)
		if err != nil || !bytes.Equal(dec, tc.data) {
			t.Fatalf("%s: decode = %x, %v; want %x", tc.cfg.CName, dec, err, tc.data)
		}
	}
}

// smoothFloats is a sine wave with a little deterministic noise, as
// float32 little-endian: typical compressible scientific data.
func smoothFloats(n int) []byte {
	b := make([]byte, 4*n)
	x := uint32(12345)
	for i := range n {
		x = x*1664525 + 1013904223
		v := float32(math.Sin(float64(i)*0.001)*1000 + float64(x>>16)/65536*0.01)
		bits := math.Float32bits(v)
		b[4*i], b[4*i+1], b[4*i+2], b[4*i+3] = byte(bits), byte(bits>>8), byte(bits>>16), byte(bits>>24)
	}
	return b
}

var allCNames = []string{"blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"}

func TestRoundTrip(t *testing.T) {
	ctx := context.Background()
	sizes := []int{0, 1, 100, 127, 128, 129, 1000, 4097, 70001, 300007}
	for _, cname := range allCNames {
		for _, sh := range []Shuffle{NoShuffle, ByteShuffle, BitShuffle, AutoShuffle} {
			for _, ts := range []int{1, 2, 4, 8, 3, 16} {
				for _, n := range sizes {
					for _, par := range []int{1, 2} {
						clevel := 1 + (n+ts)%9
						data := smoothFloats((n + 3) / 4)[:n]
						c := &Codec{cfg: Config{CName: cname, CLevel: clevel, Shuffle: sh, TypeSize: ts}, par: par}
						name := fmt.Sprintf("%s/%s/ts%d/n%d/c%d/par%d", cname, sh, ts, n, clevel, par)
						frame, err := c.EncodeBytes(ctx, specOf(n, "uint8"), data)
						if err != nil {
							t.Fatalf("%s: encode: %v", name, err)
						}
						h, err := ParseHeader(frame)
						if err != nil || h.NBytes != n || h.CBytes != len(frame) {
							t.Fatalf("%s: header %+v, %v", name, h, err)
						}
						got, err := c.DecodeBytes(ctx, specOf(n, "uint8"), frame)
						if err != nil || !bytes.Equal(got, data) {
							t.Fatalf("%s: round trip failed: %v", name, err)
						}
					}
				}
			}
		}
	}
}

// TestCompresses makes sure the compressed paths are taken (not only
// memcpyed fallbacks) for compressible data.
func TestCompresses(t *testing.T) {
	data := smoothFloats(1 << 16)
	for _, cname := range allCNames {
		for _, sh := range []Shuffle{ByteShuffle, BitShuffle} {
			c := &Codec{cfg: Config{CName: cname, CLevel: 5, Shuffle: sh, TypeSize: 4}}
			frame, err := c.EncodeBytes(context.Background(), specOf(len(data), "float32"), data)
			if err != nil {
				t.Fatal(err)
			}
			h, _ := ParseHeader(frame)
			if h.Memcpyed() || len(frame) > len(data)*3/4 {
				t.Fatalf("%s/%s: %d -> %d bytes, flags %#x: not compressed", cname, sh, len(data), len(frame), h.Flags)
			}
		}
	}
}

// Block sizes written by numcodecs 0.11 / c-blosc 1.21.3 (header field),
// for shuffle=1 arrays of nbytes with the given item size.
var numcodecsBlockSizes = []struct {
	cname                  string
	clevel, ts, nbytes, bs int
	forced                 int
}{
	{"lz4", 5, 4, 1 << 20, 524288, 0},
	{"lz4", 1, 1, 1 << 20, 65536, 0},
	{"lz4", 9, 1, 1 << 20, 262144, 0},
	{"lz4", 0, 4, 1 << 20, 8192, 0},
	{"zstd", 5, 4, 1 << 20, 262144, 0},
	{"zstd", 9, 4, 1 << 20, 1048576, 0},
	{"zstd", 1, 1, 40000, 32768, 0},
	{"zstd", 0, 1, 1 << 20, 16384, 0},
	{"lz4hc", 1, 8, 1 << 20, 262144, 0},
	{"zlib", 3, 8, 1 << 20, 1048576, 0},
	{"blosclz", 6, 1, 1 << 20, 262144, 0},
	{"snappy", 3, 4, 1 << 20, 262144, 0},
	{"blosclz", 5, 8, 100, 96, 0},
	{"lz4", 1, 1, 40000, 40000, 0},
	{"lz4", 5, 4, 1 << 20, 128, 1},
	{"lz4", 5, 4, 1 << 20, 256, 256},
	{"lz4", 5, 4, 1 << 20, 65536, 1000},
	{"zstd", 5, 4, 1 << 20, 1000, 1000},
	{"lz4", 5, 4, 1 << 20, 1048576, 3 << 20},
	{"lz4", 5, 4, 0, 1, 0},
}

func TestBlockSizeMatchesNumcodecs(t *testing.T) {
	for _, tc := range numcodecsBlockSizes {
		if got := computeBlockSize(tc.cname, tc.clevel, tc.ts, tc.nbytes, tc.forced); got != tc.bs {
			t.Errorf("%+v: got %d", tc, got)
		}
	}
}

func TestParseConfig(t *testing.T) {
	cases := []struct {
		in   string
		want Config
		out  string
	}{
		{`{"cname":"zstd","clevel":3,"shuffle":"bitshuffle","typesize":4,"blocksize":0}`,
			Config{CName: "zstd", CLevel: 3, Shuffle: BitShuffle, TypeSize: 4},
			`{"cname":"zstd","clevel":3,"shuffle":"bitshuffle","typesize":4,"blocksize":0}`},
		{`{"id":"blosc","cname":"lz4","clevel":5,"shuffle":1,"blocksize":0}`,
			Config{CName: "lz4", CLevel: 5, Shuffle: ByteShuffle},
			`{"cname":"lz4","clevel":5,"shuffle":"shuffle","blocksize":0}`},
		{`{"cname":"blosclz","clevel":9.0,"shuffle":-1,"blocksize":65536,"extra":[1]}`,
			Config{CName: "blosclz", CLevel: 9, Shuffle: AutoShuffle, BlockSize: 65536},
			`{"cname":"blosclz","clevel":9,"shuffle":"shuffle","blocksize":65536}`},
		{`{"cname":"lz4hc","clevel":1,"shuffle":-1,"typesize":1}`,
			Config{CName: "lz4hc", CLevel: 1, Shuffle: AutoShuffle, TypeSize: 1},
			`{"cname":"lz4hc","clevel":1,"shuffle":"bitshuffle","typesize":1,"blocksize":0}`},
		{``, DefaultConfig(), `{"cname":"lz4","clevel":5,"shuffle":"shuffle","blocksize":0}`},
	}
	for _, tc := range cases {
		c, err := New(context.Background(), json.RawMessage(tc.in), nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if got := c.(*Codec).Config(); got != tc.want {
			t.Errorf("%s: got %+v want %+v", tc.in, got, tc.want)
		}
		if got := string(c.Configuration()); got != tc.out {
			t.Errorf("%s: configuration %s want %s", tc.in, got, tc.out)
		}
	}
	for _, bad := range []string{`{"cname":"lzma"}`, `{"clevel":10}`, `{"shuffle":3}`, `{"shuffle":"byte"}`,
		`{"typesize":-1}`, `{"clevel":"5"}`, `[1]`, `{"clevel":1.5}`} {
		if _, err := New(context.Background(), json.RawMessage(bad), nil); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

func TestEncodeTypeSizeFromSpec(t *testing.T) {
	c, _ := NewCodec(Config{CName: "lz4", CLevel: 5, Shuffle: AutoShuffle})
	data := smoothFloats(1000)
	for _, tc := range []struct {
		dt    string
		ts    int
		flags uint8
	}{{"float32", 4, flagShuffle}, {"float64", 8, flagShuffle}, {"uint8", 1, flagBitShuffle}, {"string", 1, flagBitShuffle}} {
		frame, err := c.EncodeBytes(context.Background(), specOf(len(data), tc.dt), data)
		if err != nil {
			t.Fatal(err)
		}
		h, _ := ParseHeader(frame)
		if h.TypeSize != tc.ts || h.Flags&(flagShuffle|flagBitShuffle) != tc.flags {
			t.Errorf("%s: typesize %d flags %#x", tc.dt, h.TypeSize, h.Flags)
		}
	}
}

func TestDecodeLimits(t *testing.T) {
	c, _ := NewCodec(DefaultConfig())
	data := smoothFloats(4096)
	frame, _ := c.EncodeBytes(context.Background(), specOf(len(data), "float32"), data)
	for _, spec := range []codec.Spec{
		{DecodedSize: int64(len(data)) - 1},
		{DecodedSize: -1, MaxDecodedSize: int64(len(data)) - 1},
	} {
		_, err := c.DecodeBytes(context.Background(), spec, frame)
		if !errors.Is(err, codec.ErrCorrupt) {
			t.Errorf("spec %+v: err %v", spec, err)
		}
	}
	got, err := c.DecodeBytes(context.Background(), codec.Spec{DecodedSize: -1}, frame)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("unbounded decode: %v", err)
	}
}

func TestDecodeInto(t *testing.T) {
	c := &Codec{cfg: DefaultConfig()}
	data := smoothFloats(70000)
	frame, err := c.EncodeBytes(context.Background(), specOf(len(data), "float32"), data)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 10, len(data)+5)
	got, err := c.DecodeInto(context.Background(), specOf(len(data), "float32"), buf, frame)
	if err != nil || !bytes.Equal(got, data) || &got[0] != &buf[:1][0] {
		t.Fatalf("decode into a large enough buffer: %v (same storage %v)", err, err == nil && &got[0] == &buf[:1][0])
	}
	got, err = c.DecodeInto(context.Background(), specOf(len(data), "float32"), make([]byte, 0, 100), frame)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("decode into a small buffer: %v", err)
	}
}

func TestCompressorCache(t *testing.T) {
	w := &worker{}
	a := w.compressorFor("lz4", 5)
	for i, cname := range allCNames {
		w.compressorFor(cname, i)
	}
	if len(w.comps) != maxCompressors {
		t.Fatalf("%d compressors kept", len(w.comps))
	}
	if w.compressorFor("lz4", 5) == a {
		t.Fatal("evicted compressor still returned")
	}
	b := w.compressorFor("zstd", 5)
	w.compressorFor("lz4", 1)
	if w.compressorFor("zstd", 5) != b || w.comps[0] != b {
		t.Fatal("cached compressor not reused or not moved to the front")
	}
}

// TestParallelMatchesSequential encodes and decodes multi-block frames
// large enough for the parallel paths of every codec class: the frames
// must be identical to the sequential ones.
func TestParallelMatchesSequential(t *testing.T) {
	data := oracleData(2, 3<<20+17)
	ctx := context.Background()
	for _, cname := range allCNames {
		cfg := Config{CName: cname, CLevel: 4, Shuffle: ByteShuffle, TypeSize: 4, BlockSize: 256 << 10}
		seq, par := &Codec{cfg: cfg, par: 1}, &Codec{cfg: cfg, par: 3}
		f1, err1 := seq.EncodeBytes(ctx, specOf(len(data), "float32"), data)
		f2, err2 := par.EncodeBytes(ctx, specOf(len(data), "float32"), data)
		if err1 != nil || err2 != nil || !bytes.Equal(f1, f2) {
			t.Fatalf("%s: parallel frame differs (%v, %v)", cname, err1, err2)
		}
		got, err := par.DecodeBytes(ctx, specOf(len(data), "float32"), f1)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%s: parallel decode: %v", cname, err)
		}
	}
}
