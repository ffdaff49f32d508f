package vlen

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/zarrgw/zarrgw/tests/support/fixtures/fixturecheck"

	"github.com/zarrgw/zarrgw/tests/support/fixtures"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/codec/codectest"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

func utf8Codec() *Codec {
	c, _ := NewUTF8(context.Background(), nil, nil)
	return c.(*Codec)
}

func bytesCodec() *Codec {
	c, _ := NewBytes(context.Background(), nil, nil)
	return c.(*Codec)
}

func strSpec(shape ...int) codec.Spec {
	return codec.Spec{DataType: dtype.Named("string"), Shape: shape, DecodedSize: -1}
}

// The digest's worked example: ["a","bc"] -> 02000000 01000000 61 02000000 6263.
func TestKnownBytes(t *testing.T) {
	a := &ndarray.Array{DType: dtype.Named("string"), Shape: []int{2}, Strings: []string{"a", "bc"}}
	enc, err := utf8Codec().Encode(t.Context(), strSpec(2), a)
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(enc); got != "0200000001000000610200000062"+"63" {
		t.Errorf("encoded %s", got)
	}
}

func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []*Codec{utf8Codec(), bytesCodec()} {
		for _, name := range []string{"string", "bytes"} {
			for range 50 {
				a := codectest.Array(rng, dtype.Named(name), codectest.Shape(rng, 3, 6))
				orig := codectest.Clone(a)
				_, dec := codectest.RoundTripArrayBytes(t, c, codectest.ArraySpec(a), a)
				codectest.EqualArrays(t, dec, orig)
			}
		}
	}
}

// vlen-utf8 keeps invalid UTF-8 as it is.
func TestInvalidUTF8Kept(t *testing.T) {
	a := &ndarray.Array{DType: dtype.Named("string"), Shape: []int{2}, Strings: []string{"\xff\xfe", "ok"}}
	enc, _ := utf8Codec().Encode(t.Context(), strSpec(2), a)
	dec, err := utf8Codec().Decode(t.Context(), strSpec(2), enc)
	if err != nil || !slices.Equal(dec.Strings, a.Strings) {
		t.Fatalf("%q %v", dec.Strings, err)
	}
}

func TestCorrupt(t *testing.T) {
	c := utf8Codec()
	good, _ := c.Encode(t.Context(), strSpec(3), &ndarray.Array{DType: dtype.Named("string"), Shape: []int{3}, Strings: []string{"ab", "", "cde"}})
	for n := range len(good) {
		_, err := c.Decode(t.Context(), strSpec(3), good[:n])
		codectest.MustCorrupt(t, err, fmt.Sprintf("prefix %d", n))
	}
	bad := bytes.Clone(good)
	binary.LittleEndian.PutUint32(bad, 4)
	_, err := c.Decode(t.Context(), strSpec(3), bad)
	codectest.MustCorrupt(t, err, "count differs from spec")
	bad = bytes.Clone(good)
	binary.LittleEndian.PutUint32(bad[4:], 0xFFFFFFFF)
	_, err = c.Decode(t.Context(), strSpec(3), bad)
	codectest.MustCorrupt(t, err, "huge length")
	// a count matching a huge spec, with no data: refused before allocating
	huge := []byte{0, 0, 0, 0x40}
	codectest.MaxAlloc(t, 1<<20, func() {
		_, err = c.Decode(t.Context(), strSpec(1<<30), huge)
	})
	codectest.MustCorrupt(t, err, "huge count")
	if _, err := c.Encode(t.Context(), codec.Spec{DataType: dtype.Named("int8"), Shape: []int{1}}, &ndarray.Array{}); err == nil {
		t.Error("fixed-size type accepted")
	}
}

func TestNames(t *testing.T) {
	if UTF8Registration.Manifest.Name != "vlen-utf8" || BytesRegistration.Manifest.Name != "vlen-bytes" || utf8Codec().Name() != "vlen-utf8" || bytesCodec().Name() != "vlen-bytes" {
		t.Error("names")
	}
	if string(utf8Codec().Configuration()) != "{}" {
		t.Error("configuration")
	}
}

// Uncompressed vlen-utf8 chunks of 47868 city names, written by zarrs and
// by zarr-python: every chunk decoded, joined and compared with the digest.
func TestFixtureCities(t *testing.T) {
	for _, arr := range []string{"zarrs/v3/cities.zarr", "zarrs/zarr_python_compat/cities_v3.zarr"} {
		e := fixtures.Array(t, arr)
		var all []string
		for i := 0; i*e.ChunkShape[0] < e.Shape[0]; i++ {
			raw := fixtures.Read(t, fmt.Sprintf("%s/c/%d", arr, i))
			a, err := utf8Codec().Decode(t.Context(), strSpec(e.ChunkShape...), raw)
			if err != nil {
				t.Fatalf("%s chunk %d: %v", arr, i, err)
			}
			all = append(all, a.Strings...)
		}
		all = all[:e.Shape[0]]
		if got := fixturecheck.StringsSHA256(all); got != e.Expect.SHA256 {
			t.Errorf("%s: sha256 %s, want %s", arr, got, e.Expect.SHA256)
		}
	}
}

// A v2 object array with the vlen-utf8 filter and no compressor.
func TestFixtureV2(t *testing.T) {
	const arr = "zarrs/zarr_python_compat/str_v2_fv_0.zarr"
	e := fixtures.Array(t, arr)
	want := fixturecheck.ExpectedStrings(t, e)
	a, err := utf8Codec().Decode(t.Context(), strSpec(2), fixtures.Read(t, arr+"/0"))
	if err != nil || !slices.Equal(a.Strings, want[:2]) {
		t.Fatalf("%q %v, want %q", a.Strings, err, want[:2])
	}
}

func BenchmarkDecode(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	a := codectest.Array(rng, dtype.Named("string"), []int{100000})
	c := utf8Codec()
	enc, _ := c.Encode(b.Context(), codectest.ArraySpec(a), a)
	b.SetBytes(int64(len(enc)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := c.Decode(b.Context(), codectest.ArraySpec(a), enc); err != nil {
			b.Fatal(err)
		}
	}
}
