package codectest

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// checkRoundTrip: what a chunk encodes to decodes back to it (for lossy
// codecs: to a chunk that then round-trips unchanged), encoding leaves its
// input alone, and an array codec's output has the spec OutputSpec gives.
// Bytes->bytes codecs decode with the exact size known, with only a
// bound, and with no limit.
func checkRoundTrip(t *testing.T, c codec.Codec, k Case) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, in := range k.specs() {
		x := input(c, k.chunk(rng, in))
		y := roundTrip(t, c, in, x)
		if k.Lossy {
			if z := roundTrip(t, c, in, y); !z.equal(y) {
				t.Fatalf("%v: a decoded chunk does not round-trip unchanged", in.Shape)
			}
		} else if !y.equal(x) {
			t.Fatalf("%s%v: round trip changed the chunk (%v came back as %v)", in.DataType, in.Shape, x, y)
		}
	}
}

// roundTrip encodes x and decodes it back every way the kind allows,
// failing unless every way agrees.
func roundTrip(t *testing.T, c codec.Codec, in codec.Spec, x value) value {
	t.Helper()
	orig := x.clone()
	enc, err := encode(t.Context(), c, in, x)
	if err != nil {
		t.Fatalf("%s%v: encode: %v", in.DataType, in.Shape, err)
	}
	if !x.equal(orig) {
		t.Fatalf("%s%v: encode modified its input", in.DataType, in.Shape)
	}
	checkOutputSpec(t, c, in, enc)
	n := int64(len(x.b))
	var first value
	for i, lim := range [][2]int64{{n, n}, {-1, n + 1}, {-1, 0}} {
		got, err := decode(t.Context(), c, in, enc.clone(), lim[0], lim[1])
		if err != nil {
			t.Fatalf("%s%v: decode (size %d, bound %d): %v", in.DataType, in.Shape, lim[0], lim[1], err)
		}
		if i == 0 {
			first = got
		} else if !got.equal(first) {
			t.Fatalf("%s%v: decode with size %d and bound %d gave %v, with the size known %v", in.DataType, in.Shape, lim[0], lim[1], got, first)
		}
		if codec.KindOf(c) != codec.BytesToBytes {
			break // the limits are a bytes->bytes matter
		}
	}
	return first
}

// checkOutputSpec: an array->array codec's output is what OutputSpec says.
func checkOutputSpec(t *testing.T, c codec.Codec, in codec.Spec, enc value) {
	t.Helper()
	aa, ok := c.(codec.ArrayArray)
	if !ok {
		return
	}
	out, err := aa.OutputSpec(t.Context(), in)
	if err != nil {
		t.Fatalf("OutputSpec(%s%v): %v", in.DataType, in.Shape, err)
	}
	if enc.a == nil || !enc.a.DType.Equal(out.DataType) || !equalInts(enc.a.Shape, out.Shape) || enc.a.Check() != nil {
		t.Fatalf("encoded %v, OutputSpec says %s%v", enc, out.DataType, out.Shape)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// checkSizes: a codec that says its encoded size in advance
// (codec.SizedCodec) says the size it encodes to.
func checkSizes(t *testing.T, c codec.Codec, k Case) {
	sc := c.(codec.SizedCodec) // Run runs this check on sized codecs only
	rng := rand.New(rand.NewPCG(3, 4))
	for _, in := range k.specs() {
		if in.DataType.Variable() {
			continue
		}
		x := input(c, k.chunk(rng, in))
		enc, err := encode(t.Context(), c, in, x)
		if err != nil {
			t.Fatalf("encode: %v", err)
		}
		raw := int64(ndarray.NumElements(in.Shape) * in.DataType.Size)
		size, known := sc.EncodedSize(t.Context(), in, raw)
		got := int64(len(enc.b))
		if enc.a != nil {
			got = int64(len(enc.a.Data))
		}
		if known && size != got {
			t.Fatalf("%s%v: EncodedSize says %d bytes, the codec encoded %d", in.DataType, in.Shape, size, got)
		}
	}
}

// checkCorrupt: truncated, altered and garbage encodings decode to an
// error wrapping codec.ErrCorrupt (or, unless the case Detects changes,
// to something), never to a panic; an array->bytes codec refuses every
// truncated encoding; an array->array codec given an encoded array of the
// wrong size says ErrCorrupt too.
func checkCorrupt(t *testing.T, c codec.Codec, k Case) {
	rng := rand.New(rand.NewPCG(5, 6))
	in := largest(k.specs(), 8<<10)
	x := input(c, k.chunk(rng, in))
	enc, err := encode(t.Context(), c, in, x)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	if enc.a != nil {
		wrongArray(t, c, in, enc.a)
		return
	}
	want, n := x, int64(len(x.b))
	if !k.Lossy {
		if want, err = decode(t.Context(), c, in, enc, n, n); err != nil {
			t.Fatalf("decode: %v", err)
		}
	}
	try := func(what string, b []byte) {
		t.Helper()
		got, err := decode(t.Context(), c, in, value{b: b}, n, n+n/8+64)
		switch {
		case err != nil && !errors.Is(err, codec.ErrCorrupt):
			t.Fatalf("%s: error %q does not wrap codec.ErrCorrupt", what, err)
		case err == nil && k.Detects && !k.Lossy && !got.equal(want):
			t.Fatalf("%s decoded to different data without an error", what)
		}
	}
	for i := 0; i < len(enc.b); i += max(1, len(enc.b)/64) {
		try("a truncated encoding", slicesClone(enc.b[:i]))
		if codec.KindOf(c) != codec.ArrayToBytes {
			continue
		}
		// An array->bytes codec knows the chunk's shape: a part of its
		// encoding is never a whole chunk (unframed: never another one).
		got, err := decode(t.Context(), c, in, value{b: enc.b[:i]}, -1, 0)
		if err == nil && (!k.Unframed || !got.equal(whole(t, c, in, enc))) {
			t.Fatalf("the first %d of %d encoded bytes decoded without an error", i, len(enc.b))
		}
	}
	for range 64 {
		if len(enc.b) == 0 {
			break
		}
		bad := slicesClone(enc.b)
		bad[rng.IntN(len(bad))] ^= byte(1 + rng.IntN(255))
		try("an altered encoding", bad)
	}
	for _, g := range [][]byte{nil, {0}, []byte("definitely not an encoded chunk")} {
		try("garbage", g)
	}
}

// whole decodes a whole encoding, which must succeed.
func whole(t *testing.T, c codec.Codec, in codec.Spec, enc value) value {
	t.Helper()
	v, err := decode(t.Context(), c, in, enc, -1, 0)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return v
}

func slicesClone(b []byte) []byte { return append([]byte{}, b...) }

// wrongArray decodes an encoded array one element short: an error
// wrapping codec.ErrCorrupt, not a panic and not a result.
func wrongArray(t *testing.T, c codec.Codec, in codec.Spec, enc *ndarray.Array) {
	if len(enc.Shape) == 0 || enc.Shape[0] == 0 || enc.DType.Variable() {
		return
	}
	short := Clone(enc)
	short.Shape[0]--
	short.Data = short.Data[:ndarray.NumElements(short.Shape)*short.DType.Size]
	_, err := decode(t.Context(), c, in, value{a: short}, -1, 0)
	if !errors.Is(err, codec.ErrCorrupt) {
		t.Fatalf("decoding an encoded array of shape %v for a chunk of %v: %v, want an error wrapping codec.ErrCorrupt", short.Shape, in.Shape, err)
	}
}

// largest is the largest spec of at most limit raw bytes (the first when
// none is that small).
func largest(specs []codec.Spec, limit int) codec.Spec {
	best, size := specs[0], -1
	for _, s := range specs {
		n := ndarray.NumElements(s.Shape) * max(s.DataType.Size, 8)
		if n <= limit && n > size {
			best, size = s, n
		}
	}
	return best
}
