package numeric

import (
	"bytes"
	"math"
	"testing"

	"github.com/zarrgw/zarrgw/core/dtype"
)

func typ(t *testing.T, name string) Type {
	t.Helper()
	nt, err := Of(dtype.Named(name))
	if err != nil {
		t.Fatal(err)
	}
	return nt
}

func TestCastWrapsAndTruncates(t *testing.T) {
	i8, u8, i16, u64 := typ(t, "int8"), typ(t, "uint8"), typ(t, "int16"), typ(t, "uint64")
	b := make([]byte, 8)
	cases := []struct {
		to   Type
		v    Value
		want string
	}{
		{i8, Int(200), "-56"},
		{u8, Int(-1), "255"},
		{i16, Float(-2.9), "-2"},
		{i16, Float(2.9), "2"},
		{u64, Float(0x1p63), "9223372036854775808"},
		{u8, Int(256 + 7), "7"},
	}
	for _, c := range cases {
		c.to.Store(b, c.v)
		got := c.to.Load(b)
		s := ""
		if got.Signed {
			s = itoa(int64(got.Bits))
		} else {
			s = utoa(got.Bits)
		}
		if s != c.want {
			t.Errorf("cast %+v to %+v = %s, want %s", c.v, c.to, s, c.want)
		}
	}
}

func itoa(v int64) string {
	if v < 0 {
		return "-" + utoa(uint64(-v))
	}
	return utoa(uint64(v))
}

func utoa(v uint64) string {
	if v == 0 {
		return "0"
	}
	var b []byte
	for v > 0 {
		b = append([]byte{byte('0' + v%10)}, b...)
		v /= 10
	}
	return string(b)
}

func TestFloatPrecision(t *testing.T) {
	f32 := typ(t, "float32")
	// 0.1f + 0.2f in float32 is 0.3f (0.30000001192...), not the float64 sum.
	a, b := f32.Cast(Float(0.1)), f32.Cast(Float(0.2))
	if got := f32.Add(a, b).F; got != float64(float32(0.3)) {
		t.Errorf("float32 0.1+0.2 = %v", got)
	}
	f16 := typ(t, "float16")
	// 2048 + 1 is not representable in float16: ties to even gives 2048.
	if got := f16.Add(Float(2048), Float(1)).F; got != 2048 {
		t.Errorf("float16 2048+1 = %v", got)
	}
	i16 := typ(t, "int16")
	if got := int64(i16.Add(Int(32767), Int(1)).Bits); got != -32768 {
		t.Errorf("int16 32767+1 = %d", got)
	}
	if RoundEven(Float(2.5)).F != 2 || RoundEven(Float(-3.5)).F != -4 {
		t.Error("round half to even")
	}
	if !math.IsNaN(f32.Cast(Float(math.NaN())).F) {
		t.Error("NaN cast")
	}
}

func TestScalarPromotion(t *testing.T) {
	i16, f32 := typ(t, "int16"), typ(t, "float32")
	if i16.WithScalar(Int(3)) != i16 || i16.WithScalar(Float(3)) != Float64 || f32.WithScalar(Float(1)) != f32 {
		t.Error("promotion")
	}
	if i16.DivType() != Float64 || f32.DivType() != f32 {
		t.Error("true division type")
	}
}

func TestParseType(t *testing.T) {
	for s, want := range map[string]string{"<i4": "int32", ">f8": "float64", "|u1": "uint8", "int16": "int16", "f2": "float16", "float32": "float32"} {
		dt, _, err := ParseType(s)
		if err != nil || dt.Name != want {
			t.Errorf("ParseType(%q) = %v, %v; want %s", s, dt, err, want)
		}
	}
	for _, s := range []string{"|O", "<c8", "|b1", "bool", "nope", "|S3"} {
		if _, _, err := ParseType(s); err == nil {
			t.Errorf("ParseType(%q) accepted", s)
		}
	}
}

func TestScalar(t *testing.T) {
	for s, want := range map[string]Value{"1000": Int(1000), "-3": Int(-3), "10.0": Float(10), "1e3": Float(1000), "0.5": Float(0.5)} {
		got, err := Scalar([]byte(s))
		if err != nil || got != want {
			t.Errorf("Scalar(%s) = %+v, %v", s, got, err)
		}
	}
	if _, err := Scalar([]byte(`"x"`)); err == nil {
		t.Error("string accepted")
	}
}

// The registry's narrow types store what ml_dtypes' astype gives for the
// same values (bytes from ml_dtypes 0.6.0:
// np.array([1, -1.5, 1000]).astype(ml_dtypes.X).tobytes()).
func TestNarrowTypesStoreAsMLDtypes(t *testing.T) {
	cases := []struct {
		name string
		want []byte
	}{
		{"bfloat16", []byte{0x80, 0x3f, 0xc0, 0xbf, 0x7a, 0x44}},
		{"float8_e4m3", []byte{0x38, 0xbc, 0x78}},
		{"float8_e4m3fnuz", []byte{0x40, 0xc4, 0x80}},
		{"float8_e8m0fnu", []byte{0x7f, 0xff, 0x89}},
		{"float4_e2m1fn", []byte{0x02, 0x0b, 0x07}},
		{"int4", []byte{0x01, 0x0f, 0x08}},
		{"uint2", []byte{0x01, 0x03, 0x00}},
	}
	for _, c := range cases {
		nt := typ(t, c.name)
		b := make([]byte, len(c.want))
		for i, x := range []float64{1, -1.5, 1000} {
			nt.Store(b[i*nt.Size:], Float(x))
		}
		if !bytes.Equal(b, c.want) {
			t.Errorf("%s: stored % x, ml_dtypes % x", c.name, b, c.want)
		}
	}
}

// Arithmetic in bfloat16 rounds every result to bfloat16: 1 + 2^-8 is 1.
func TestMiniFloatArithmeticRounds(t *testing.T) {
	bf := typ(t, "bfloat16")
	if got := bf.Add(Float(1), Float(0x1p-8)).F; got != 1 {
		t.Errorf("bfloat16 1 + 2^-8 = %v, want 1", got)
	}
	if got := bf.Add(Float(1), Float(0x1p-7)).F; got != 1+0x1p-7 {
		t.Errorf("bfloat16 1 + 2^-7 = %v, want %v", got, 1+0x1p-7)
	}
	i4 := typ(t, "int4")
	if got := int64(i4.Add(Int(7), Int(1)).Bits); got != -8 {
		t.Errorf("int4 7 + 1 = %d, want -8 (wraps)", got)
	}
}
