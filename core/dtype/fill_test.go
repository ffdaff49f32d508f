package dtype

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"math/rand"
	"strings"
	"testing"
)

func mustV2(t *testing.T, s string) DataType {
	t.Helper()
	d, _, err := ParseV2(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Expected bytes are written out by hand (little-endian hex) from the IEEE
// and two's complement definitions, not computed with this package.
func TestParseFill(t *testing.T) {
	u3, s4, v2b, o := mustV2(t, "<U3"), mustV2(t, "|S4"), mustV2(t, "|V2"), mustV2(t, "|O")
	m8 := mustV2(t, "<M8[ns]")
	tests := []struct {
		dt   DataType
		raw  string
		v2   bool
		want string // hex; "nil" for nil
	}{
		{Named("bool"), "true", false, "01"},
		{Named("bool"), "false", false, "00"},
		{Named("bool"), "0", true, "00"},
		{Named("bool"), "1", true, "01"},
		{Named("int8"), "127", false, "7f"},
		{Named("int8"), "-128", false, "80"},
		{Named("uint8"), "-0", false, "00"},
		{Named("int16"), "1e3", false, "e803"},
		{Named("int16"), "0.0", false, "0000"},
		{Named("int16"), "-2.5e1", false, "e7ff"},
		{Named("int32"), "-1", false, "ffffffff"},
		{Named("uint64"), "18446744073709551615", false, "ffffffffffffffff"},
		{Named("uint64"), "1.8446744073709551615e19", false, "ffffffffffffffff"},
		{Named("uint64"), "9223372036854775808", false, "0000000000000080"},
		{Named("int64"), "-9223372036854775808", false, "0000000000000080"},
		{Named("int64"), "9223372036854775807", false, "ffffffffffffff7f"},
		{Named("uint16"), `"0x1234"`, false, "3412"},
		{Named("float32"), "0", false, "00000000"},
		{Named("float32"), "0.1", false, "cdcccc3d"},
		{Named("float32"), "1.0", false, "0000803f"},
		{Named("float32"), "-0.0", false, "00000080"},
		{Named("float32"), `"NaN"`, false, "0000c07f"},
		{Named("float32"), `"Infinity"`, false, "0000807f"},
		{Named("float32"), `"+Infinity"`, false, "0000807f"},
		{Named("float32"), `"-Infinity"`, false, "000080ff"},
		{Named("float32"), `"0x7fc00001"`, false, "0100c07f"},
		{Named("float32"), `"0x80000000"`, false, "00000080"},
		{Named("float32"), `"0b00111111100000000000000000000000"`, false, "0000803f"},
		{Named("float32"), "16777217", false, "0000804b"}, // ties to even: 2^24
		{Named("float64"), `"NaN"`, true, "000000000000f87f"},
		{Named("float64"), `"0x7ff0000000000001"`, false, "010000000000f07f"},
		{Named("float64"), `"0xfff8000000000000"`, false, "000000000000f8ff"},
		{Named("float64"), "0.1", false, "9a9999999999b93f"},
		{Named("float64"), "1e-400", false, "0000000000000000"},
		// float16: 1, max, smallest subnormal, smallest normal
		{Named("float16"), "1", false, "003c"},
		{Named("float16"), "65504", false, "ff7b"},
		{Named("float16"), "65519.99", false, "ff7b"},
		{Named("float16"), "0.1", false, "662e"},
		{Named("float16"), "-2", false, "00c0"},
		{Named("float16"), "-0", false, "0080"},
		{Named("float16"), "5.960464477539063e-08", false, "0100"},
		{Named("float16"), "6.103515625e-05", false, "0004"},
		{Named("float16"), "6.1035156e-05", false, "0004"}, // rounds up into the normals
		{Named("float16"), "1e-30", false, "0000"},
		{Named("float16"), `"NaN"`, false, "007e"},
		{Named("float16"), `"-Infinity"`, false, "00fc"},
		{Named("float16"), `"0x7e01"`, false, "017e"},
		// exact halfway points round to even...
		{Named("float16"), "1.00048828125", false, "003c"},
		{Named("float16"), "1.00146484375", false, "023c"},
		{Named("float16"), "2.98023223876953125e-08", false, "0000"},
		// ...and a hair above them rounds up; via float64 both would tie
		// and round down (double rounding).
		{Named("float16"), "1.00048828125000000001", false, "013c"},
		{Named("float16"), "2.98023223876953125000001e-08", false, "0100"},
		{Named("complex64"), "[1, 2]", false, "0000803f00000040"},
		{Named("complex64"), `["-Infinity", "NaN"]`, false, "000080ff0000c07f"},
		{Named("complex128"), "[0.0, -1]", false, "0000000000000000000000000000f0bf"},
		{Named("r16"), "[1, 255]", false, "01ff"},
		{Named("r24"), "[7]", false, "070000"},
		{v2b, `"AQI="`, true, "0102"},
		{v2b, "0", true, "0000"},
		{s4, `"YWI="`, true, "61620000"},
		{s4, `""`, true, "00000000"},
		{s4, "0", true, "00000000"},
		{s4, `"ab!"`, true, "61622100"}, // not base64: taken as is
		// v3: null_terminated_bytes and raw_bytes fills are base64 only
		{s4, `"YWI="`, false, "61620000"},
		{s4, `""`, false, "00000000"},
		{v2b, `"AQI="`, false, "0102"},
		{u3, `"ab"`, false, "610000006200000000000000"},
		{u3, `"ab"`, true, "610000006200000000000000"},
		{u3, `"é"`, true, "e90000000000000000000000"},
		{u3, "0", true, "000000000000000000000000"},
		{u3, `""`, true, "000000000000000000000000"},
		{Named("string"), `"héllo"`, false, hex.EncodeToString([]byte("héllo"))},
		{Named("string"), `""`, false, ""},
		{Named("string"), "null", false, "nil"},
		{o, "0", true, "nil"},
		{o, "null", true, "nil"},
		{o, `"x"`, true, "78"},
		{Named("bytes"), "[1, 2]", false, "0102"},
		{Named("bytes"), `"AQI="`, false, "0102"},
		{m8, `"NaT"`, true, "0000000000000080"},
		{m8, "-5", true, "fbffffffffffffff"},
		{Named("float32"), "null", true, "nil"},
	}
	for _, tc := range tests {
		got, err := ParseFill(tc.dt, json.RawMessage(tc.raw), tc.v2)
		if err != nil {
			t.Errorf("ParseFill(%s, %s): %v", tc.dt, tc.raw, err)
			continue
		}
		if tc.want == "nil" {
			if got != nil {
				t.Errorf("ParseFill(%s, %s) = %x, want nil", tc.dt, tc.raw, got)
			}
			continue
		}
		if got == nil || hex.EncodeToString(got) != tc.want {
			t.Errorf("ParseFill(%s, %s) = %x, want %s", tc.dt, tc.raw, got, tc.want)
		}
	}
}

func TestParseFillErrors(t *testing.T) {
	tests := []struct {
		dt   DataType
		raw  string
		v2   bool
		want string // substring of the error
	}{
		{Named("uint64"), "18446744073709551616", false, "out of range"},
		{Named("int64"), "-9223372036854775809", false, "out of range"},
		{Named("int8"), "128", false, "int8"},
		{Named("uint8"), "-1", false, "out of range"},
		{Named("uint8"), "1.5", false, "not an integer"},
		{Named("int32"), "1e400", false, "out of range"},
		{Named("int32"), "1e-400", false, "not an integer"},
		{Named("int32"), `"1"`, false, "expected an integer"},
		{Named("int32"), "true", false, "expected an integer"},
		{Named("bool"), "2", false, "true or false"},
		{Named("bool"), `"true"`, false, "true or false"},
		{Named("float32"), "1e39", false, "out of range"},
		{Named("float64"), "1e309", false, "out of range"},
		{Named("float16"), "65520", false, "out of range"},
		{Named("float16"), "1e10", false, "out of range"},
		{Named("float32"), `"0x7fc0000"`, false, "invalid float"},
		{Named("float32"), `"nan"`, false, "invalid float"},
		{Named("float32"), "[1]", false, "expected a number"},
		{Named("complex64"), "[1]", false, "two-element"},
		{Named("complex64"), `[1, "x"]`, false, "element 1"},
		{Named("r16"), "[1, 256]", false, "0..255"},
		{Named("r16"), "[1, 2, 3]", false, "do not fit"},
		{mustV2(t, "|S2"), `"YWJj"`, true, "do not fit"},
		{mustV2(t, "<U2"), `"abc"`, true, "do not fit"},
		{mustV2(t, "<U2"), `"abc"`, false, "do not fit"},
		{mustV2(t, "|S4"), `"ab!"`, false, "base64"}, // v2 takes it as is
		{Named("string"), "0", false, "expected a string"},
		{Named("string"), "{}", false, "expected a string"},
		{Named("float32"), "{", false, "invalid JSON"},
		{Named("float32"), "", false, "empty"},
		{DataType{Kind: Int, Size: 3, Name: "int24"}, "1", false, "invalid size"},
		{DataType{}, "1", false, "invalid data type"},
		{mustV2(t, "|S999999999999"), "0", true, "invalid size"},
	}
	for _, tc := range tests {
		got, err := ParseFill(tc.dt, json.RawMessage(tc.raw), tc.v2)
		if err == nil {
			t.Errorf("ParseFill(%s, %s) = %x, want error", tc.dt, tc.raw, got)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseFill(%s, %s) error %q does not mention %q", tc.dt, tc.raw, err, tc.want)
		}
		if !strings.Contains(err.Error(), "fill_value") {
			t.Errorf("error %q does not name fill_value", err)
		}
	}
}

func TestFormatFill(t *testing.T) {
	tests := []struct {
		dt   DataType
		hex  string
		v2   bool
		want string
	}{
		{Named("bool"), "01", false, "true"},
		{Named("uint64"), "ffffffffffffffff", false, "18446744073709551615"},
		{Named("int64"), "0000000000000080", false, "-9223372036854775808"},
		{Named("int16"), "e7ff", false, "-25"},
		{Named("float32"), "00000000", false, "0.0"},
		{Named("float32"), "00000080", false, "-0.0"},
		{Named("float32"), "cdcccc3d", false, "0.1"},
		{Named("float32"), "0000803f", false, "1.0"},
		{Named("float64"), "9a9999999999b93f", false, "0.1"},
		{Named("float64"), "0000000000003443", false, "5629499534213120.0"},
		{Named("float64"), "0080e03779c34143", false, "1e+16"},
		{Named("float64"), "f168e388b5f8e43e", false, "1e-05"},
		{Named("float32"), "0000c07f", false, `"NaN"`},
		{Named("float32"), "0100c07f", false, `"0x7fc00001"`},
		{Named("float32"), "0100c07f", true, `"NaN"`},
		{Named("float32"), "0000c0ff", false, `"0xffc00000"`},
		{Named("float32"), "0000807f", false, `"Infinity"`},
		{Named("float32"), "000080ff", true, `"-Infinity"`},
		{Named("float16"), "662e", false, "0.1"},
		{Named("float16"), "ff7b", false, "65500.0"}, // shortest digits that give 65504
		{Named("float16"), "0100", false, "6e-08"},
		{Named("float16"), "007e", false, `"NaN"`},
		{Named("float16"), "017e", false, `"0x7e01"`},
		{Named("complex64"), "0000803f0000c07f", false, `[1.0, "NaN"]`},
		{Named("r16"), "01ff", false, "[1, 255]"},
		{mustV2(t, "|V2"), "01ff", true, `"Af8="`},
		{mustV2(t, "|S4"), "61620000", true, `"YWI="`},
		// v3 as zarr-python 3 writes them (zarr-python d44f9f9,
		// src/zarr/core/dtype/npy/bytes.py:481-501 and 878-898,
		// string.py:310-326): S without its trailing NULs in base64, V
		// every byte in base64, U the string.
		{mustV2(t, "|S4"), "61620000", false, `"YWI="`},
		{mustV2(t, "|S4"), "61006200", false, `"YQBi"`},
		{mustV2(t, "|S4"), "00000000", false, `""`},
		{mustV2(t, "|V2"), "0100", false, `"AQA="`},
		{mustV2(t, "<U3"), "610000006200000000000000", false, `"ab"`},
		{mustV2(t, "<U3"), "000000000000000000000000", false, `""`},
		{mustV2(t, "<U3"), "610000006200000000000000", true, `"ab"`},
		{Named("string"), hex.EncodeToString([]byte("a<b>")), false, `"a<b>"`},
		// variable-length bytes in base64, as zarr-python 3 writes and
		// 3.1.6 alone reads (the registry allows integers too)
		{Named("bytes"), "66696c6c", false, `"ZmlsbA=="`},
		{mustV2(t, "<M8[ns]"), "0000000000000080", true, "-9223372036854775808"},
		{mustV2(t, "<M8[ns]"), "0000000000000080", false, `"NaT"`},
	}
	for _, tc := range tests {
		b, _ := hex.DecodeString(tc.hex)
		got, err := FormatFill(tc.dt, b, tc.v2)
		if err != nil {
			t.Errorf("FormatFill(%s, %s): %v", tc.dt, tc.hex, err)
			continue
		}
		if string(got) != tc.want {
			t.Errorf("FormatFill(%s, %s) = %s, want %s", tc.dt, tc.hex, got, tc.want)
		}
	}
	if got, _ := FormatFill(Named("int8"), nil, true); string(got) != "null" {
		t.Errorf("nil fill = %s, want null", got)
	}
	if _, err := FormatFill(Named("int16"), []byte{1}, false); err == nil {
		t.Error("short fill accepted")
	}
	if _, err := FormatFill(Named("string"), []byte{0xff}, false); err == nil {
		t.Error("invalid UTF-8 string fill accepted")
	}
}

func roundTrip(t *testing.T, dt DataType, b []byte, v2 bool) {
	t.Helper()
	j, err := FormatFill(dt, b, v2)
	if err != nil {
		t.Fatalf("FormatFill(%s, %x): %v", dt, b, err)
	}
	back, err := ParseFill(dt, j, v2)
	if err != nil {
		t.Fatalf("ParseFill(%s, %s): %v", dt, j, err)
	}
	if !bytes.Equal(back, b) {
		t.Fatalf("%s: %x -> %s -> %x", dt, b, j, back)
	}
}

// Every float16 bit pattern, including every NaN payload, survives a v3
// write and read.
func TestFloat16RoundTripExhaustive(t *testing.T) {
	dt := Named("float16")
	for h := 0; h < 1<<16; h++ {
		roundTrip(t, dt, []byte{byte(h), byte(h >> 8)}, false)
	}
}

func TestFloatRoundTripRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, name := range []string{"float32", "float64", "complex64", "int64", "uint32", "r40"} {
		dt := Named(name)
		for i := 0; i < 20000; i++ {
			b := make([]byte, dt.Size)
			rng.Read(b)
			roundTrip(t, dt, b, false)
		}
	}
}

func TestDefaultFill(t *testing.T) {
	if got := DefaultFill(Named("float64")); !bytes.Equal(got, make([]byte, 8)) {
		t.Errorf("float64 default %x", got)
	}
	if got := DefaultFill(Named("string")); got == nil || len(got) != 0 {
		t.Errorf("string default %v, want empty non-nil", got)
	}
	if got := DefaultFill(mustV2(t, "<U3")); len(got) != 12 {
		t.Errorf("<U3 default has %d bytes", len(got))
	}
}

func FuzzParseFill(f *testing.F) {
	for _, s := range []string{"0", "1.5e3", `"NaN"`, `"0x7fc00001"`, "[1, 2]", `"YWI="`, "null", "-0.0", "1e-400"} {
		f.Add(s, "float32")
	}
	f.Add("18446744073709551615", "uint64")
	f.Add(`"ab"`, "string")
	f.Fuzz(func(t *testing.T, raw, name string) {
		dt, err := ParseV3(name)
		if err != nil {
			if dt, _, err = ParseV2(name); err != nil {
				return
			}
		}
		b, err := ParseFill(dt, json.RawMessage(raw), false)
		if err != nil || b == nil {
			return
		}
		roundTrip(t, dt, b, false)
	})
}
