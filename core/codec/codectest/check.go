package codectest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"runtime"
	"slices"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// RoundTripBytes encodes data with c and decodes it back three ways: with
// the exact size known, with only a bound, and with no limit at all.
// It returns the encoded bytes.
func RoundTripBytes(t testing.TB, c codec.BytesBytes, data []byte) []byte {
	t.Helper()
	ctx := context.Background()
	orig := slices.Clone(data)
	n := int64(len(data))
	enc, err := c.EncodeBytes(ctx, BytesSpec(n, n), data)
	if err != nil {
		t.Fatalf("%s encode %d bytes: %v", c.Name(), len(data), err)
	}
	if !bytes.Equal(data, orig) {
		t.Fatalf("%s encode modified its input", c.Name())
	}
	for _, spec := range []codec.Spec{BytesSpec(n, n), BytesSpec(-1, n+1), BytesSpec(-1, 0)} {
		dec, err := c.DecodeBytes(ctx, spec, slices.Clone(enc))
		if err != nil {
			t.Fatalf("%s decode (size %d, max %d): %v", c.Name(), spec.DecodedSize, spec.MaxDecodedSize, err)
		}
		if !bytes.Equal(dec, orig) {
			t.Fatalf("%s round trip of %d bytes differs (got %d bytes)", c.Name(), len(orig), len(dec))
		}
	}
	return enc
}

// RoundTripArray encodes a, of spec in, with an array->array codec and
// decodes the result back, failing on either error. It returns both, for
// the test to compare: lossy codecs decode to something else than a.
func RoundTripArray(t testing.TB, c codec.ArrayArray, in codec.Spec, a *ndarray.Array) (enc, dec *ndarray.Array) {
	t.Helper()
	ctx := context.Background()
	enc, err := c.EncodeArray(ctx, in, a)
	if err != nil {
		t.Fatalf("%s: encode %s%v: %v", describe(c), in.DataType, in.Shape, err)
	}
	dec, err = c.DecodeArray(ctx, in, enc)
	if err != nil {
		t.Fatalf("%s: decode %s%v: %v", describe(c), in.DataType, in.Shape, err)
	}
	return enc, dec
}

// RoundTripArrayBytes is RoundTripArray for an array->bytes codec. The
// decoder gets a copy of the encoded bytes: a codec may return its input's
// memory as the encoding (bytes, in the machine's order) and decode in
// place, which would change a behind the test's back.
func RoundTripArrayBytes(t testing.TB, c codec.ArrayBytes, in codec.Spec, a *ndarray.Array) (enc []byte, dec *ndarray.Array) {
	t.Helper()
	ctx := context.Background()
	enc, err := c.Encode(ctx, in, a)
	if err != nil {
		t.Fatalf("%s: encode %s%v: %v", describe(c), in.DataType, in.Shape, err)
	}
	dec, err = c.Decode(ctx, in, slices.Clone(enc))
	if err != nil {
		t.Fatalf("%s: decode %s%v: %v", describe(c), in.DataType, in.Shape, err)
	}
	return enc, dec
}

// describe names c with its configuration, which tells apart the codecs
// of one name a test runs (bytes little-endian and big-endian).
func describe(c codec.Codec) string {
	if cfg := c.Configuration(); cfg != nil {
		return c.Name() + " " + string(cfg)
	}
	return c.Name()
}

// MustCorrupt fails unless err wraps codec.ErrCorrupt.
func MustCorrupt(t testing.TB, err error, what string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error", what)
	}
	if !errors.Is(err, codec.ErrCorrupt) {
		t.Fatalf("%s: error %q does not wrap codec.ErrCorrupt", what, err)
	}
}

// DecodeNoPanic decodes b and reports the error; a panic fails the test.
func DecodeNoPanic(t testing.TB, c codec.BytesBytes, spec codec.Spec, b []byte) (out []byte, err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("%s decode panicked on %d bytes: %v", c.Name(), len(b), r)
		}
	}()
	return c.DecodeBytes(context.Background(), spec, b)
}

// Truncations decodes every proper prefix length of enc (sampled for long
// inputs) and fails on a panic or on a prefix that decodes to want.
func Truncations(t testing.TB, c codec.BytesBytes, enc, want []byte) {
	t.Helper()
	step := max(1, len(enc)/64)
	for n := 0; n < len(enc); n += step {
		out, err := DecodeNoPanic(t, c, BytesSpec(int64(len(want)), int64(len(want))), slices.Clone(enc[:n]))
		if err == nil && bytes.Equal(out, want) && n < len(enc)-8 {
			t.Fatalf("%s: prefix of %d/%d bytes decoded to the full value", c.Name(), n, len(enc))
		}
		if err != nil && !errors.Is(err, codec.ErrCorrupt) {
			t.Fatalf("%s: prefix %d: error %q does not wrap ErrCorrupt", c.Name(), n, err)
		}
	}
}

// MaxAlloc runs fn and fails when it allocates more than limit bytes in
// total (heap bytes allocated, not retained).
func MaxAlloc(t testing.TB, limit uint64, fn func()) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > limit {
		t.Fatalf("allocated %d bytes, limit %d", got, limit)
	}
}

// WriteZeros writes n zero bytes to w in 1 MiB pieces (to build bombs).
func WriteZeros(t testing.TB, w io.Writer, n int64) {
	t.Helper()
	z := make([]byte, 1<<20)
	for ; n > 0; n -= int64(len(z)) {
		if _, err := w.Write(z[:min(int64(len(z)), n)]); err != nil {
			t.Fatalf("write zeros: %v", err)
		}
	}
}

// Zeros is an io.Reader of N zero bytes, to compress bombs without holding
// them in memory.
type Zeros struct{ N int64 }

func (z *Zeros) Read(p []byte) (int, error) {
	if z.N <= 0 {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), z.N))
	clear(p[:n])
	z.N -= int64(n)
	return n, nil
}

// EqualArrays fails unless two arrays have the same type, shape and elements.
func EqualArrays(t testing.TB, got, want *ndarray.Array) {
	t.Helper()
	if !got.DType.Equal(want.DType) || !slices.Equal(got.Shape, want.Shape) {
		t.Fatalf("got %s%v, want %s%v", got.DType, got.Shape, want.DType, want.Shape)
	}
	if want.DType.Variable() {
		if !slices.Equal(got.Strings, want.Strings) {
			t.Fatalf("%s%v: strings differ:\n got %q\nwant %q", want.DType, want.Shape, got.Strings, want.Strings)
		}
		return
	}
	if !bytes.Equal(got.Data, want.Data) {
		t.Fatalf("%s%v: data differs:\n got %x\nwant %x", want.DType, want.Shape, got.Data, want.Data)
	}
}

// Clone deep-copies an array, so a test can check that a codec leaves its
// input alone.
func Clone(a *ndarray.Array) *ndarray.Array {
	return &ndarray.Array{DType: a.DType, Shape: slices.Clone(a.Shape), Data: slices.Clone(a.Data), Strings: slices.Clone(a.Strings)}
}
