package bytescodec

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/zarrgw/zarrgw/tests/support/fixtures/fixturecheck"

	"github.com/zarrgw/zarrgw/tests/support/fixtures"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/codec/codectest"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

var newCodec = codectest.Builder[*Codec](New)

func TestRoundTripAllTypes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, cfg := range []string{`{"endian":"little"}`, `{"endian":"big"}`} {
		c := newCodec(t, cfg)
		for _, dt := range codectest.FixedTypes() {
			for range 20 {
				a := codectest.Array(rng, dt, codectest.Shape(rng, 4, 7))
				orig := codectest.Clone(a)
				_, dec := codectest.RoundTripArrayBytes(t, c, codectest.ArraySpec(a), a)
				codectest.EqualArrays(t, dec, orig)
				codectest.EqualArrays(t, a, orig)
			}
		}
	}
}

// Byte layouts written out by hand from the spec: big-endian integers,
// complex halves swapped separately, UTF-32 code units, bytes untouched.
func TestKnownLayouts(t *testing.T) {
	u3, _, _ := dtype.ParseV2("<U2")
	s3, _, _ := dtype.ParseV2("|S3")
	cases := []struct {
		dt     dtype.DataType
		mem    []byte
		big    []byte
		shape  []int
		config string
	}{
		{dtype.Named("int16"), []byte{1, 0, 2, 0}, []byte{0, 1, 0, 2}, []int{2}, "big"},
		{dtype.Named("uint32"), []byte{1, 2, 3, 4}, []byte{4, 3, 2, 1}, []int{1}, "big"},
		{dtype.Named("float64"), []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f}, []byte{0x3f, 0xf0, 0, 0, 0, 0, 0, 0}, []int{1}, "big"},
		// complex64 1+2i: real and imaginary float32 each swapped
		{dtype.Named("complex64"), []byte{0, 0, 0x80, 0x3f, 0, 0, 0, 0x40}, []byte{0x3f, 0x80, 0, 0, 0x40, 0, 0, 0}, []int{1}, "big"},
		{u3, []byte{'a', 0, 0, 0, 'b', 0, 0, 0}, []byte{0, 0, 0, 'a', 0, 0, 0, 'b'}, []int{1}, "big"},
		{s3, []byte("abc"), []byte("abc"), []int{1}, "big"},
		{dtype.Named("r24"), []byte{1, 2, 3}, []byte{1, 2, 3}, []int{1}, "big"},
		{dtype.Named("int16"), []byte{1, 0, 2, 0}, []byte{1, 0, 2, 0}, []int{2}, "little"},
	}
	for _, c := range cases {
		cd := newCodec(t, fmt.Sprintf(`{"endian":%q}`, c.config))
		spec := codec.Spec{DataType: c.dt, Shape: c.shape, DecodedSize: -1}
		enc, err := cd.Encode(t.Context(), spec, &ndarray.Array{DType: c.dt, Shape: c.shape, Data: c.mem})
		if err != nil || !bytes.Equal(enc, c.big) {
			t.Errorf("%s %s: encode = %x, %v; want %x", c.dt, c.config, enc, err, c.big)
		}
		dec, err := cd.Decode(t.Context(), spec, c.big)
		if err != nil || !bytes.Equal(dec.Data, c.mem) {
			t.Errorf("%s %s: decode = %v; want %x", c.dt, c.config, err, c.mem)
		}
	}
}

func TestLittleEndianIsZeroCopy(t *testing.T) {
	c := newCodec(t, `{"endian":"little"}`)
	a := &ndarray.Array{DType: dtype.Named("uint16"), Shape: []int{2}, Data: []byte{1, 2, 3, 4}}
	spec := codectest.ArraySpec(a)
	enc, _ := c.Encode(t.Context(), spec, a)
	if &enc[0] != &a.Data[0] {
		t.Error("encode copied")
	}
	dec, _ := c.Decode(t.Context(), spec, enc)
	if &dec.Data[0] != &enc[0] {
		t.Error("decode copied")
	}
}

func TestConfiguration(t *testing.T) {
	codectest.CheckRefused(t, New, `{"endian":"middle"}`, `[1]`)
	codectest.CheckConfigurations(t, New, map[string]string{`{"endian":"big","id":"x"}`: `{"endian":"big"}`, `{"endian":"little"}`: `{"endian":"little"}`, `{}`: ``, ``: ``})
	// No endian: fine for 1-byte types, an error for multi-byte ones.
	c := newCodec(t, `{}`)
	u8 := &ndarray.Array{DType: dtype.Named("uint8"), Shape: []int{2}, Data: []byte{1, 2}}
	if _, err := c.Encode(t.Context(), codectest.ArraySpec(u8), u8); err != nil {
		t.Errorf("uint8 without endian: %v", err)
	}
	i16 := &ndarray.Array{DType: dtype.Named("int16"), Shape: []int{1}, Data: []byte{1, 2}}
	if _, err := c.Encode(t.Context(), codectest.ArraySpec(i16), i16); err == nil {
		t.Error("int16 without endian accepted")
	}
	if _, err := c.Decode(t.Context(), codectest.ArraySpec(i16), []byte{1, 2}); err == nil {
		t.Error("int16 decode without endian accepted")
	}
	str := &ndarray.Array{DType: dtype.Named("string"), Shape: []int{1}, Strings: []string{"a"}}
	if _, err := newCodec(t, `{"endian":"little"}`).Encode(t.Context(), codectest.ArraySpec(str), str); err == nil {
		t.Error("variable-length type accepted")
	}
}

func TestDecodeWrongLength(t *testing.T) {
	for _, cfg := range []string{`{"endian":"little"}`, `{"endian":"big"}`} {
		c := newCodec(t, cfg)
		spec := codec.Spec{DataType: dtype.Named("int32"), Shape: []int{3}, DecodedSize: -1}
		for _, n := range []int{0, 11, 13} {
			_, err := c.Decode(t.Context(), spec, make([]byte, n))
			codectest.MustCorrupt(t, err, fmt.Sprintf("%s %d bytes", cfg, n))
		}
	}
}

func TestEncodedSize(t *testing.T) {
	c := newCodec(t, `{"endian":"big"}`)
	if n, ok := c.EncodedSize(t.Context(), codec.Spec{DataType: dtype.Named("int32"), Shape: []int{3}}, 12); !ok || n != 12 {
		t.Errorf("EncodedSize = %d, %v", n, ok)
	}
	if _, ok := c.EncodedSize(t.Context(), codec.Spec{DataType: dtype.Named("string"), Shape: []int{3}}, 12); ok {
		t.Error("EncodedSize known for strings")
	}
}

// Chunks written by zarr-python and zarrs with no compression.
func TestFixtures(t *testing.T) {
	c := newCodec(t, `{"endian":"little"}`)
	cases := []struct {
		array, key string
		dt         string
		chunk, idx []int
	}{
		{"zarrita-js/v3/data.zarr/1d.contiguous.raw.i2", "c/0", "int16", []int{4}, []int{0}},
		{"zarrita-js/v2/data.zarr/1d.contiguous.raw.i2", "0", "int16", []int{4}, []int{0}},
		{"zarrs/v3/array_none.zarr", "1.0", "float32", []int{5, 5}, []int{1, 0}},
		{"zarrs/v3_zarr_python/array_none.zarr", "c/0/1", "float32", []int{5, 5}, []int{0, 1}},
		{"zarr-python-v2/fixture/0/0", "3", "int8", []int{100}, []int{3}},
	}
	for _, tc := range cases {
		e := fixtures.Array(t, tc.array)
		raw := fixtures.Read(t, tc.array+"/"+tc.key)
		spec := codec.Spec{DataType: dtype.Named(tc.dt), Shape: tc.chunk, DecodedSize: -1}
		a, err := c.Decode(t.Context(), spec, raw)
		if err != nil {
			t.Fatalf("%s: %v", tc.array, err)
		}
		fixturecheck.CompareFloats(t, fixturecheck.Floats(t, a), fixturecheck.ArangeChunk(e, tc.chunk, tc.idx), 0)
	}
}

// zarr-python's uint64 fixture, every chunk decoded and checked against
// the digest of the whole array.
func TestFixtureDigest(t *testing.T) {
	const arr = "zarr-python-v2/fixture/7/0"
	e := fixtures.Array(t, arr)
	c := newCodec(t, `{"endian":"little"}`)
	spec := codec.Spec{DataType: dtype.Named("uint64"), Shape: e.ChunkShape, DecodedSize: -1}
	var all []byte
	for i := 0; i*e.ChunkShape[0] < e.Shape[0]; i++ {
		a, err := c.Decode(t.Context(), spec, fixtures.Read(t, fmt.Sprintf("%s/%d", arr, i)))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, a.Data...)
	}
	if got := fixturecheck.BytesSHA256(all[:e.Shape[0]*8]); got != e.Expect.SHA256 {
		t.Errorf("sha256 %s, want %s", got, e.Expect.SHA256)
	}
}

func benchmark(b *testing.B, cfg string, decode bool) {
	c := newCodec(b, cfg)
	a := codectest.Array(rand.New(rand.NewPCG(1, 1)), dtype.Named("uint16"), []int{512 * 1024})
	spec := codectest.ArraySpec(a)
	enc, _ := c.Encode(b.Context(), spec, a)
	enc = bytes.Clone(enc)
	b.SetBytes(int64(len(a.Data)))
	b.ResetTimer()
	for range b.N {
		var err error
		if decode {
			_, err = c.Decode(b.Context(), spec, enc)
		} else {
			_, err = c.Encode(b.Context(), spec, a)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeLittle(b *testing.B) { benchmark(b, `{"endian":"little"}`, false) }
func BenchmarkEncodeBig(b *testing.B)    { benchmark(b, `{"endian":"big"}`, false) }
func BenchmarkDecodeLittle(b *testing.B) { benchmark(b, `{"endian":"little"}`, true) }
func BenchmarkDecodeBig(b *testing.B)    { benchmark(b, `{"endian":"big"}`, true) }

func TestSwapMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, unit := range []int{2, 3, 4, 8, 16} {
		for n := 0; n < 50; n++ {
			src := codectest.Bytes(rng, n*unit, false)
			want := make([]byte, len(src))
			for i := range src {
				e, k := i/unit, i%unit
				want[i] = src[e*unit+unit-1-k]
			}
			got := make([]byte, len(src))
			swap(got, src, unit)
			if !bytes.Equal(got, want) {
				t.Fatalf("unit %d, %d elements: %x, want %x", unit, n, got, want)
			}
		}
	}
}
