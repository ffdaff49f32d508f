package packbits

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

func build(t *testing.T, cfg string) codec.ArrayBytes {
	t.Helper()
	c, err := New(context.Background(), json.RawMessage(cfg), nil)
	if err != nil {
		t.Fatalf("%s: %v", cfg, err)
	}
	return c.(codec.ArrayBytes)
}

func roundTrip(t *testing.T, cfg string, a *ndarray.Array, want []byte) {
	t.Helper()
	c := build(t, cfg)
	spec := codec.Spec{DataType: a.DType, Shape: a.Shape}
	enc, err := c.Encode(context.Background(), spec, a)
	if err != nil {
		t.Fatalf("%s: encode: %v", cfg, err)
	}
	if want != nil && string(enc) != string(want) {
		t.Errorf("%s: encoded % x, want % x", cfg, enc, want)
	}
	if n, ok := c.(codec.SizedCodec).EncodedSize(context.Background(), spec, int64(len(a.Data))); !ok || n != int64(len(enc)) {
		t.Errorf("%s: EncodedSize %d, encoded %d bytes", cfg, n, len(enc))
	}
	dec, err := c.Decode(context.Background(), spec, enc)
	if err != nil || string(dec.Data) != string(a.Data) {
		t.Errorf("%s: decoded % x %v, want % x", cfg, dec.Data, err, a.Data)
	}
}

// Bools take one bit each, least significant first; the padding count
// goes first or last, or nowhere.
func TestBool(t *testing.T) {
	a := ndarray.New(dtype.Named("bool"), []int{9})
	copy(a.Data, []byte{1, 0, 1, 1, 0, 0, 0, 0, 1})
	roundTrip(t, ``, a, []byte{0x0d, 0x01})
	roundTrip(t, `{"padding_encoding":"first_byte"}`, a, []byte{7, 0x0d, 0x01})
	roundTrip(t, `{"padding_encoding":"last_byte"}`, a, []byte{0x0d, 0x01, 7})
	roundTrip(t, `{"padding_encoding":"start_byte"}`, a, []byte{7, 0x0d, 0x01})
}

// A run of bits of each element: the high nibble of uint8, the low 12
// bits of int16 (sign-extended back), the whole of complex64.
func TestBitRanges(t *testing.T) {
	u := ndarray.New(dtype.Named("uint8"), []int{3})
	copy(u.Data, []byte{0xa0, 0x50, 0xf0})
	roundTrip(t, `{"first_bit":4,"last_bit":7}`, u, []byte{0x5a, 0x0f})
	i := ndarray.New(dtype.Named("int16"), []int{2})
	binary.LittleEndian.PutUint16(i.Data, uint16(0xffff&-5)) // -5
	binary.LittleEndian.PutUint16(i.Data[2:], 2047)
	// 12 bits each: 0xffb then 0x7ff: bytes fb, ff, 7f
	roundTrip(t, `{"last_bit":11}`, i, []byte{0xfb, 0xff, 0x7f})
	c := ndarray.New(dtype.Named("complex64"), []int{2})
	for k := range c.Data {
		c.Data[k] = byte(k * 7)
	}
	roundTrip(t, `{}`, c, c.Data)
}

// Stored bits cannot make elements of bits a type does not have; a
// stored length or padding count that does not match is corrupt.
func TestRefusals(t *testing.T) {
	for cfg, want := range map[string]string{
		`{"padding_encoding":"middle"}`: "padding_encoding",
		`{"first_bit":5,"last_bit":2}`:  "last_bit",
		`{"first_bit":1,"start_bit":1}`: "both",
		`{"last_bit":99}`:               "last_bit",
		`{"bits":3}`:                    "bits",
	} {
		if _, err := New(context.Background(), json.RawMessage(cfg), nil); err == nil || !strings.Contains(err.Error(), "packbits") || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", cfg, err)
		}
	}
	c := build(t, `{"last_bit":8}`)
	spec := codec.Spec{DataType: dtype.Named("uint8"), Shape: []int{2}}
	if _, err := c.Encode(context.Background(), spec, ndarray.New(spec.DataType, spec.Shape)); err == nil {
		t.Error("bit 8 of uint8 accepted")
	}
	if _, err := build(t, ``).Encode(context.Background(), codec.Spec{DataType: dtype.Named("string"), Shape: []int{1}}, ndarray.New(dtype.Named("string"), []int{1})); err == nil {
		t.Error("strings accepted")
	}
	b := build(t, `{"padding_encoding":"first_byte"}`)
	bs := codec.Spec{DataType: dtype.Named("bool"), Shape: []int{9}}
	for _, enc := range [][]byte{{7, 1}, {6, 1, 1}, {7, 1, 1, 1}} {
		if _, err := b.Decode(context.Background(), bs, enc); err == nil {
			t.Errorf("% x decoded", enc)
		}
	}
}

// The registry's sub-byte types pack their own width, held as ml_dtypes
// holds them (the value in the low bits, zeros above: int4 -1 is 0x0f,
// and decodes back so, not sign-extended); complex_float4_e2m1fn packs
// both components.
func TestNarrowTypes(t *testing.T) {
	i4 := ndarray.New(dtype.Named("int4"), []int{3})
	copy(i4.Data, []byte{0x0f, 0x01, 0x08}) // -1, 1, -8
	roundTrip(t, ``, i4, []byte{0x1f, 0x08})
	u2 := ndarray.New(dtype.Named("uint2"), []int{5})
	copy(u2.Data, []byte{3, 0, 1, 2, 3})
	roundTrip(t, ``, u2, []byte{0x93, 0x03})
	f6 := ndarray.New(dtype.Named("float6_e2m3fn"), []int{2})
	copy(f6.Data, []byte{0x3f, 0x01})
	roundTrip(t, ``, f6, []byte{0x7f, 0x00})
	c4 := ndarray.New(dtype.Named("complex_float4_e2m1fn"), []int{2})
	copy(c4.Data, []byte{0x01, 0x0f, 0x08, 0x02})
	roundTrip(t, ``, c4, []byte{0xf1, 0x28})
}
