package dtype

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"math/big"
	"os"
	"strconv"
	"strings"
	"testing"
)

// mlDtypes is testdata/ml_dtypes.json: what ml_dtypes' numpy does with each
// format (see testdata/ml_dtypes_gen.py for how it was made).
type mlDtypes struct {
	Floats map[string]struct {
		Casts             [][2]json.RawMessage `json:"casts"`   // [float64 hex, bits]
		Decoded           [][2]json.RawMessage `json:"decoded"` // [bits, float64 hex]
		Max               string               `json:"max"`
		SmallestSubnormal string               `json:"smallest_subnormal"`
	} `json:"floats"`
	Ints map[string]struct {
		Casts   [][2]int64 `json:"casts"`   // [int64, bits]
		Decoded [][2]int64 `json:"decoded"` // [byte, value]
	} `json:"ints"`
}

func loadMLDtypes(t *testing.T) mlDtypes {
	t.Helper()
	b, err := os.ReadFile("testdata/ml_dtypes.json")
	if err != nil {
		t.Fatal(err)
	}
	var m mlDtypes
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Floats) != len(FloatFormats()) || len(m.Ints) != 4 {
		t.Fatalf("testdata has %d float formats and %d int types, want %d and 4", len(m.Floats), len(m.Ints), len(FloatFormats()))
	}
	return m
}

func f64FromHex(t *testing.T, raw json.RawMessage) float64 {
	t.Helper()
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 8 {
		t.Fatalf("bad float64 hex %q", s)
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b))
}

func jsonUint(t *testing.T, raw json.RawMessage) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(string(raw), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func sameFloat(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
}

// TestFloatFormatsMatchMLDtypes compares every conversion with ml_dtypes:
// each code decoded to float64, and float64 inputs (ties, overflows,
// subnormals, NaN, infinities, random values) cast to each format.
func TestFloatFormatsMatchMLDtypes(t *testing.T) {
	m := loadMLDtypes(t)
	for name, want := range m.Floats {
		dt, err := ParseV3(name)
		if err != nil {
			t.Fatal(err)
		}
		f, ok := FloatFormatOf(dt)
		if !ok {
			t.Fatalf("%s: no float format", name)
		}
		bad := 0
		for _, d := range want.Decoded {
			code, v := jsonUint(t, d[0]), f64FromHex(t, d[1])
			if got := f.ToFloat64(code); !sameFloat(got, v) && bad < 5 {
				bad++
				t.Errorf("%s: code %#x decodes to %v, ml_dtypes %v", name, code, got, v)
			}
		}
		for _, c := range want.Casts {
			x, bits := f64FromHex(t, c[0]), jsonUint(t, c[1])
			if got := f.FromFloat64(x); got != bits && bad < 10 {
				bad++
				t.Errorf("%s: %v (%#x) casts to %#x, ml_dtypes %#x", name, x, math.Float64bits(x), got, bits)
			}
		}
		if got, w := f.MaxFinite(), f64FromHex(t, json.RawMessage(strconv.Quote(want.Max))); got != w {
			t.Errorf("%s: max %v, ml_dtypes %v", name, got, w)
		}
		if got, w := f.ToFloat64(1), f64FromHex(t, json.RawMessage(strconv.Quote(want.SmallestSubnormal))); f.Variant != E8M0 && got != w {
			t.Errorf("%s: smallest subnormal %v, ml_dtypes %v", name, got, w)
		}
	}
}

// exactDecimal writes x's exact value in decimal (every float64 above
// 2^-300 has fewer than 300 significant digits).
func exactDecimal(x float64) string {
	s := new(big.Float).SetFloat64(x).Text('e', 300)
	mant, exp, _ := strings.Cut(s, "e")
	mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
	return mant + "e" + exp
}

// TestMiniFloatFillMatchesMLDtypes parses the exact decimal of each cast
// input as a fill value: in range it must give ml_dtypes' bits; where
// ml_dtypes overflows (to infinity or NaN, or saturates in the formats
// without NaN) the fill value is refused.
func TestMiniFloatFillMatchesMLDtypes(t *testing.T) {
	m := loadMLDtypes(t)
	for name, want := range m.Floats {
		dt := Named(name)
		f, _ := FloatFormatOf(dt)
		maxV := f.MaxFinite()
		ulp := maxV - f.ToFloat64(f.maxCode()-1) // the spacing of the top binade
		checked := 0
		for _, c := range want.Casts {
			x, bits := f64FromHex(t, c[0]), jsonUint(t, c[1])
			if math.IsNaN(x) || math.IsInf(x, 0) || (x != 0 && math.Abs(x) < 0x1p-300) {
				continue
			}
			if float64(float32(x)) != x {
				continue // ml_dtypes rounds to float32 first; a fill value rounds once
			}
			if f.Variant == E8M0 && x == 0 {
				bits = 0 // no zero: 0 is read as the all-zero pattern, as tensorstore writes it
			}
			raw := json.RawMessage(exactDecimal(x))
			got, err := ParseFill(dt, raw, false)
			overflow := f.IsNaN(bits) || math.IsInf(f.ToFloat64(bits), 0) ||
				(f.Variant == Finite && math.Abs(x) >= maxV+ulp/2) ||
				(f.Variant == E8M0 && x != 0 && x < 0.75*0x1p-127) // no zero: ml_dtypes clamps, a fill value is refused
			switch {
			case overflow && err == nil:
				t.Errorf("%s: fill %s accepted as %x; ml_dtypes overflows it to %#x", name, raw, got, bits)
			case !overflow && err != nil:
				t.Errorf("%s: fill %s: %v (ml_dtypes: %#x)", name, raw, err, bits)
			case !overflow && getUint(got) != bits:
				t.Errorf("%s: fill %s parsed to %x, ml_dtypes %#x", name, raw, got, bits)
			}
			checked++
		}
		if checked < 30 {
			t.Errorf("%s: only %d fill values checked", name, checked)
		}
	}
}

// TestMiniFloatFillFormatsBack writes each code's fill value and parses it
// back to the same bits (NaNs other than the canonical one as hex).
func TestMiniFloatFillFormatsBack(t *testing.T) {
	m := loadMLDtypes(t)
	for name, want := range m.Floats {
		dt := Named(name)
		for _, d := range want.Decoded {
			code := jsonUint(t, d[0])
			fill := make([]byte, dt.Size)
			putUint(fill, code)
			raw, err := FormatFill(dt, fill, false)
			if err != nil {
				t.Fatalf("%s: %#x: %v", name, code, err)
			}
			back, err := ParseFill(dt, raw, false)
			if err != nil || getUint(back) != code {
				t.Errorf("%s: %#x written as %s, read back as %x (%v)", name, code, raw, back, err)
			}
		}
	}
}

func TestSubByteIntsMatchMLDtypes(t *testing.T) {
	m := loadMLDtypes(t)
	for name, want := range m.Ints {
		dt := Named(name)
		for _, d := range want.Decoded {
			if got := SubByteValue(dt, byte(d[0])); got != d[1] {
				t.Errorf("%s: byte %#x holds %d, ml_dtypes %d", name, d[0], got, d[1])
			}
		}
		for _, c := range want.Casts {
			if got := SubByteFromInt(dt, c[0]); int64(got) != c[1] {
				t.Errorf("%s: %d casts to %#x, ml_dtypes %#x", name, c[0], got, c[1])
			}
			raw := json.RawMessage(strconv.FormatInt(c[0], 10))
			got, err := ParseFill(dt, raw, false)
			inRange := SubByteValue(dt, byte(c[1])) == c[0]
			switch {
			case inRange && (err != nil || int64(got[0]) != c[1]):
				t.Errorf("%s: fill %s: %x, %v; want %#x", name, raw, got, err, c[1])
			case !inRange && err == nil:
				t.Errorf("%s: fill %s out of range accepted as %x", name, raw, got)
			}
		}
	}
}

// The fill values the registry's READMEs spell out (zarr-extensions
// 4da7b37, data-types/<name>/README.md "Fill value representation"), and
// the refusals they imply.
func TestMiniFloatFillSpecials(t *testing.T) {
	tests := []struct {
		dt, raw, want string // want: hex bits, or "error"
	}{
		{"bfloat16", `"NaN"`, "7fc0"},
		{"bfloat16", `"Infinity"`, "7f80"},
		{"bfloat16", `"-Infinity"`, "ff80"},
		{"bfloat16", `"0x7fc1"`, "7fc1"},
		{"float8_e3m4", `"NaN"`, "78"},
		{"float8_e4m3", `"NaN"`, "7c"},
		{"float8_e5m2", `"NaN"`, "7e"},
		{"float8_e4m3fnuz", `"NaN"`, "80"},
		{"float8_e4m3b11fnuz", `"NaN"`, "80"},
		{"float8_e5m2fnuz", `"NaN"`, "80"},
		{"float8_e8m0fnu", `"NaN"`, "ff"},
		{"float8_e4m3fnuz", `"Infinity"`, "error"},
		// float8_e4m3fn (tensorstore 0.1.86 writes it; ml_dtypes 0.6.0):
		// NaN only at S.1111.111, no infinities, -0 exists, max 448.
		{"float8_e4m3fn", `"NaN"`, "7f"},
		{"float8_e4m3fn", `"0xff"`, "ff"},
		{"float8_e4m3fn", `"0x7e"`, "7e"},
		{"float8_e4m3fn", `"Infinity"`, "error"},
		{"float8_e4m3fn", `"-Infinity"`, "error"},
		{"float8_e4m3fn", `"0x17f"`, "error"},
		{"float8_e4m3fn", "448", "7e"},
		{"float8_e4m3fn", "-448", "fe"},
		{"float8_e4m3fn", "464", "7e"}, // tie between 448 and 0x7f's 480 (NaN): even
		{"float8_e4m3fn", "464.0001", "error"},
		{"float8_e4m3fn", "256", "78"},  // the all-ones exponent holds finite values
		{"float8_e4m3fn", "-0.0", "80"}, // negative zero exists
		{"float8_e4m3fn", "0.001953125", "01"},
		{"float8_e8m0fnu", `"-Infinity"`, "error"},
		{"float8_e8m0fnu", "-2", "error"},
		{"float6_e2m3fn", `"NaN"`, "error"},
		{"float6_e3m2fn", `"Infinity"`, "error"},
		{"float4_e2m1fn", `"NaN"`, "error"},
		{"float4_e2m1fn", `"0x0f"`, "0f"},
		{"float4_e2m1fn", `"0x10"`, "error"}, // wider than 4 bits
		{"float4_e2m1fn", "6", "07"},
		{"float4_e2m1fn", "7", "error"}, // beyond 6 + half a step: refused, not saturated
		{"float4_e2m1fn", "1.25", "02"}, // tie between 1 and 1.5: even
		{"float4_e2m1fn", "1.2500000000000000001", "03"},
		{"float8_e4m3fnuz", "-0.0", "00"}, // no negative zero
		{"float8_e4m3", "1e-999999999", "00"},
		{"float8_e4m3", "1e999999999", "error"},
		{"bfloat16", "3.4e38", "error"},
		{"int4", "-8", "08"},
		{"int4", "7", "07"},
		{"int4", "8", "error"},
		{"uint2", "3", "03"},
		{"uint2", "-1", "error"},
		{"uint4", `"0x0f"`, "0f"},
		{"uint4", `"0x1f"`, "error"},
		{"complex_float8_e4m3fnuz", `["NaN", 1.0]`, "8040"},
		{"complex_bfloat16", `[1.0, "-Infinity"]`, "803f80ff"},
		{"complex_float4_e2m1fn", `[0.5, "NaN"]`, "error"},
	}
	for _, tc := range tests {
		got, err := ParseFill(Named(tc.dt), json.RawMessage(tc.raw), false)
		switch {
		case tc.want == "error" && err == nil:
			t.Errorf("%s %s: accepted as %x, want an error", tc.dt, tc.raw, got)
		case tc.want == "error":
			if !strings.Contains(err.Error(), tc.dt) {
				t.Errorf("%s %s: error %q does not name the data type", tc.dt, tc.raw, err)
			}
		case err != nil:
			t.Errorf("%s %s: %v", tc.dt, tc.raw, err)
		case hexBE(got) != tc.want && hex.EncodeToString(got) != tc.want:
			t.Errorf("%s %s: %x, want %s", tc.dt, tc.raw, got, tc.want)
		}
	}
}

// hexBE writes a little-endian element of one component most significant
// byte first, as the registry writes bit patterns.
func hexBE(b []byte) string {
	r := make([]byte, len(b))
	for i := range b {
		r[len(b)-1-i] = b[i]
	}
	return hex.EncodeToString(r)
}

// Every number type directory of the registry (zarr-extensions 4da7b37,
// data-types/) parses under its name, with the size its bytes encoding
// gives it, and keeps its name.
func TestRegistryNumberNames(t *testing.T) {
	sizes := map[string]int{
		"bool": 1, "int2": 1, "int4": 1, "int8": 1, "int16": 2, "int32": 4, "int64": 8,
		"uint2": 1, "uint4": 1, "uint8": 1, "uint16": 2, "uint32": 4, "uint64": 8,
		"float16": 2, "float32": 4, "float64": 8, "bfloat16": 2,
		"float8_e3m4": 1, "float8_e4m3": 1, "float8_e4m3b11fnuz": 1, "float8_e4m3fnuz": 1,
		"float8_e5m2": 1, "float8_e5m2fnuz": 1, "float8_e8m0fnu": 1,
		"float6_e2m3fn": 1, "float6_e3m2fn": 1, "float4_e2m1fn": 1,
		"float8_e4m3fn": 1, // not registered: tensorstore's and ml_dtypes' name
		"complex64":     8, "complex128": 16, "complex_float16": 4, "complex_float32": 8, "complex_float64": 16,
		"complex_bfloat16": 4, "complex_float8_e3m4": 2, "complex_float8_e4m3": 2,
		"complex_float8_e4m3b11fnuz": 2, "complex_float8_e4m3fnuz": 2, "complex_float8_e5m2": 2,
		"complex_float8_e5m2fnuz": 2, "complex_float8_e8m0fnu": 2, "complex_float6_e2m3fn": 2,
		"complex_float6_e3m2fn": 2, "complex_float4_e2m1fn": 2,
	}
	for name, size := range sizes {
		dt, err := ParseV3(name)
		if err != nil || dt.Size != size || dt.Name != name {
			t.Errorf("%s: %+v, %v; want size %d", name, dt, err, size)
		}
	}
	if c64, c32 := Named("complex64"), Named("complex_float32"); !c64.Equal(c32) {
		t.Errorf("complex_float32 is not complex64")
	}
	if Named("float8_e4m3").Equal(Named("float8_e5m2")) {
		t.Errorf("float8_e4m3 equals float8_e5m2")
	}
	for _, bad := range []string{"complex_float8_e4m3fn", "float8_e4m3fnu", "int3", "complex_int4", "complex_float8", "float8"} {
		if _, err := ParseV3(bad); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
}
