package castvalue

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

func build(t *testing.T, cfg string) *Codec {
	t.Helper()
	c, err := New(context.Background(), json.RawMessage(cfg), nil)
	if err != nil {
		t.Fatalf("%s: %v", cfg, err)
	}
	return c.(*Codec)
}

func f64s(v ...float64) *ndarray.Array {
	a := ndarray.New(dtype.Named("float64"), []int{len(v)})
	for i, f := range v {
		binary.LittleEndian.PutUint64(a.Data[8*i:], math.Float64bits(f))
	}
	return a
}

func encode(t *testing.T, c *Codec, a *ndarray.Array) (*ndarray.Array, error) {
	t.Helper()
	return c.EncodeArray(context.Background(), codec.Spec{DataType: a.DType, Shape: a.Shape}, a)
}

// The spec's own examples: 128.0 to int8 fails, clamps to 127, wraps to
// -128; 32768, 32769 and -32769 wrap in int16 to -32768, -32767, 32767.
func TestSpecExamples(t *testing.T) {
	if _, err := encode(t, build(t, `{"data_type":"int8"}`), f64s(128)); err == nil || !strings.Contains(err.Error(), "out of the range of int8") {
		t.Errorf("128 to int8 without out_of_range: %v", err)
	}
	for cfg, want := range map[string]int8{`{"data_type":"int8","out_of_range":"clamp"}`: 127, `{"data_type":"int8","out_of_range":"wrap"}`: -128} {
		got, err := encode(t, build(t, cfg), f64s(128))
		if err != nil || int8(got.Data[0]) != want {
			t.Errorf("%s: %v %v, want %d", cfg, got, err, want)
		}
	}
	got, err := encode(t, build(t, `{"data_type":"int16","out_of_range":"wrap"}`), f64s(32768, 32769, -32769))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int16{-32768, -32767, 32767} {
		if g := int16(binary.LittleEndian.Uint16(got.Data[2*i:])); g != want {
			t.Errorf("wrap element %d: %d, want %d", i, g, want)
		}
	}
}

// Each rounding, to an integer and to float32, against math's own
// rounding and float32 neighbours computed with math.Nextafter32.
func TestRoundings(t *testing.T) {
	in := []float64{2.5, -2.5, 0.1, -0.1, 1 + 0x1p-24, 1 + 3*0x1p-25}
	ints := map[string]func(float64) float64{
		"nearest-even": math.RoundToEven, "towards-zero": math.Trunc, "towards-positive": math.Ceil,
		"towards-negative": math.Floor, "nearest-away": math.Round,
	}
	for name, f := range ints {
		got, err := encode(t, build(t, `{"data_type":"int32","rounding":"`+name+`"}`), f64s(in...))
		if err != nil {
			t.Fatal(err)
		}
		for i, x := range in {
			if g := int32(binary.LittleEndian.Uint32(got.Data[4*i:])); float64(g) != f(x) {
				t.Errorf("%s %v: %d, want %v", name, x, g, f(x))
			}
		}
	}
	for name := range ints {
		got, err := encode(t, build(t, `{"data_type":"float32","rounding":"`+name+`"}`), f64s(in...))
		if err != nil {
			t.Fatal(err)
		}
		for i, x := range in {
			g := math.Float32frombits(binary.LittleEndian.Uint32(got.Data[4*i:]))
			if want := round32(x, name); g != want {
				t.Errorf("%s %v: %v, want %v", name, x, g, want)
			}
		}
	}
}

// round32 rounds x to float32 by the named rule from its two float32
// neighbours.
func round32(x float64, rule string) float32 {
	n := float32(x)
	if float64(n) == x {
		return n
	}
	lo, hi := n, n
	if float64(n) > x {
		lo = math.Nextafter32(n, float32(math.Inf(-1)))
	} else {
		hi = math.Nextafter32(n, float32(math.Inf(1)))
	}
	switch rule {
	case "towards-zero":
		if x > 0 {
			return lo
		}
		return hi
	case "towards-positive":
		return hi
	case "towards-negative":
		return lo
	case "nearest-away":
		if x-float64(lo) == float64(hi)-x {
			if x > 0 {
				return hi
			}
			return lo
		}
	}
	return n
}

// NaN: propagates between floats, fails into integers unless mapped;
// infinities likewise; a finite float past float32's range fails unless
// clamped (to infinity).
func TestSpecialValues(t *testing.T) {
	got, err := encode(t, build(t, `{"data_type":"float32"}`), f64s(math.NaN(), math.Inf(-1), math.Copysign(0, -1)))
	if err != nil {
		t.Fatal(err)
	}
	if g := math.Float32frombits(binary.LittleEndian.Uint32(got.Data)); !math.IsNaN(float64(g)) {
		t.Errorf("NaN became %v", g)
	}
	if g := math.Float32frombits(binary.LittleEndian.Uint32(got.Data[4:])); !math.IsInf(float64(g), -1) {
		t.Errorf("-Inf became %v", g)
	}
	if g := binary.LittleEndian.Uint32(got.Data[8:]); g != 0x80000000 {
		t.Errorf("-0 became bits %#x", g)
	}
	if _, err := encode(t, build(t, `{"data_type":"uint8","out_of_range":"clamp"}`), f64s(math.NaN())); err == nil {
		t.Error("NaN to uint8 did not fail")
	}
	c := build(t, `{"data_type":"uint8","rounding":"towards-zero","out_of_range":"wrap","scalar_map":{"encode":[["NaN",0],["+Infinity",0],["-Infinity",0]]}}`)
	got, err = encode(t, c, f64s(math.NaN(), math.Inf(1), 300.7, -1.5))
	if err != nil {
		t.Fatal(err)
	}
	if want := []byte{0, 0, 300 - 256, 255}; string(got.Data) != string(want) {
		t.Errorf("numpy-compatible cast: %v, want %v", got.Data, want)
	}
	if _, err := encode(t, build(t, `{"data_type":"float32"}`), f64s(1e300)); err == nil {
		t.Error("1e300 to float32 did not fail")
	}
	got, err = encode(t, build(t, `{"data_type":"float32","out_of_range":"clamp"}`), f64s(1e300))
	if err != nil || !math.IsInf(float64(math.Float32frombits(binary.LittleEndian.Uint32(got.Data))), 1) {
		t.Errorf("1e300 clamped: %v %v", got, err)
	}
	got, err = encode(t, build(t, `{"data_type":"float32","rounding":"towards-zero"}`), f64s(1e300))
	if err != nil || math.Float32frombits(binary.LittleEndian.Uint32(got.Data)) != math.MaxFloat32 {
		t.Errorf("1e300 towards zero: %v %v", got, err)
	}
}

// Integers to integers: range checks, clamp and wrap at every width.
func TestIntegers(t *testing.T) {
	a := ndarray.New(dtype.Named("int64"), []int{3})
	for i, v := range []int64{-1, 70000, math.MinInt64} {
		binary.LittleEndian.PutUint64(a.Data[8*i:], uint64(v))
	}
	if _, err := encode(t, build(t, `{"data_type":"uint16"}`), a); err == nil {
		t.Error("-1 to uint16 did not fail")
	}
	got, err := encode(t, build(t, `{"data_type":"uint16","out_of_range":"clamp"}`), a)
	if err != nil || binary.LittleEndian.Uint16(got.Data) != 0 || binary.LittleEndian.Uint16(got.Data[2:]) != 65535 || binary.LittleEndian.Uint16(got.Data[4:]) != 0 {
		t.Errorf("clamp: %v %v", got, err)
	}
	got, err = encode(t, build(t, `{"data_type":"uint16","out_of_range":"wrap"}`), a)
	if err != nil || binary.LittleEndian.Uint16(got.Data) != 65535 || binary.LittleEndian.Uint16(got.Data[2:]) != 70000-65536 || binary.LittleEndian.Uint16(got.Data[4:]) != 0 {
		t.Errorf("wrap: %v %v", got, err)
	}
	// int64 to float32: 2^24+1 is not a float32; towards-positive goes up
	b := ndarray.New(dtype.Named("int64"), []int{1})
	binary.LittleEndian.PutUint64(b.Data, 1<<24+1)
	got, err = encode(t, build(t, `{"data_type":"float32","rounding":"towards-positive"}`), b)
	if err != nil || math.Float32frombits(binary.LittleEndian.Uint32(got.Data)) != 1<<24+2 {
		t.Errorf("2^24+1 towards positive: %v %v", got, err)
	}
}

// A round trip through the pipeline with the fill value, and the fill
// value rule: one that does not survive the casts is refused.
func TestRoundTripAndFill(t *testing.T) {
	c := build(t, `{"data_type":"uint8","scalar_map":{"encode":[["NaN",0]],"decode":[[0,"NaN"]]}}`)
	nan := make([]byte, 8)
	binary.LittleEndian.PutUint64(nan, math.Float64bits(math.NaN()))
	spec := codec.Spec{DataType: dtype.Named("float64"), Shape: []int{4}, FillValue: nan}
	out, err := c.OutputSpec(context.Background(), spec)
	if err != nil || out.DataType.Name != "uint8" || out.FillValue[0] != 0 {
		t.Fatalf("output spec %+v: %v", out, err)
	}
	a := f64s(math.NaN(), 1, 2, 255)
	enc, err := c.EncodeArray(context.Background(), spec, a)
	if err != nil || string(enc.Data) != "\x00\x01\x02\xff" {
		t.Fatalf("encode: %v %v", enc, err)
	}
	dec, err := c.DecodeArray(context.Background(), spec, enc)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(math.Float64frombits(binary.LittleEndian.Uint64(dec.Data))) || string(dec.Data[8:]) != string(a.Data[8:]) {
		t.Errorf("decode: %v", dec.Data)
	}
	// NaN maps to 0 on encode only: 0 decodes to 0, not NaN
	c2 := build(t, `{"data_type":"uint8","scalar_map":{"encode":[["NaN",0]]}}`)
	if _, err := c2.OutputSpec(context.Background(), spec); err == nil || !strings.Contains(err.Error(), "does not survive") {
		t.Errorf("fill value NaN without a decode map: %v", err)
	}
}

// Bad configuration is refused naming the codec and the field.
func TestBadConfiguration(t *testing.T) {
	for cfg, want := range map[string]string{
		``:                                      `needs "data_type"`,
		`{}`:                                    `needs "data_type"`,
		`{"data_type":"string"}`:                "data_type",
		`{"data_type":"nope"}`:                  "data_type",
		`{"data_type":"uint8","rounding":"up"}`: "rounding",
		`{"data_type":"uint8","out_of_range":"x"}`:                "out_of_range",
		`{"data_type":"float32","out_of_range":"wrap"}`:           "wrap",
		`{"data_type":"uint8","extra":1}`:                         "extra",
		`{"data_type":"uint8","scalar_map":{"decode":[["x",1]]}}`: "scalar_map",
		`{"data_type":"uint8","scalar_map":{"other":[]}}`:         "other",
		`{"data_type":"uint8","scalar_map":{"decode":[[1,2,3]]}}`: "3 elements",
	} {
		_, err := New(context.Background(), json.RawMessage(cfg), nil)
		if err == nil || !strings.Contains(err.Error(), "cast_value") || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error about %s", cfg, err, want)
		}
	}
}

// A numpy.datetime64 target holds int64 counts: 3.0 and -7.0 become the
// counts 3 and -7 (and back), the fill value with them.
func TestDatetimeTarget(t *testing.T) {
	c := build(t, `{"data_type":{"name":"numpy.datetime64","configuration":{"unit":"ns","scale_factor":1}}}`)
	spec := codec.Spec{DataType: dtype.Named("float64"), Shape: []int{2}, FillValue: dtype.Float64Fill(3)}
	out, err := c.OutputSpec(context.Background(), spec)
	if err != nil || out.DataType.Kind != dtype.Datetime || int64(binary.LittleEndian.Uint64(out.FillValue)) != 3 {
		t.Fatalf("output spec %+v: %v", out, err)
	}
	enc, err := encode(t, c, f64s(3, -7))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int64{3, -7} {
		if g := int64(binary.LittleEndian.Uint64(enc.Data[8*i:])); g != want {
			t.Errorf("element %d: count %d, want %d", i, g, want)
		}
	}
}
