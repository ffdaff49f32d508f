package dtype

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
)

// specExample is the struct spec's byte layout example: id int32, flags
// uint8, value float64, packed in 13 bytes at offsets 0, 4 and 5.
func specExample(t *testing.T) DataType {
	t.Helper()
	d, err := NewStruct([]Field{{Name: "id", Type: Named("int32")}, {Name: "flags", Type: Named("uint8")}, {Name: "value", Type: Named("float64")}})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestStructLayout(t *testing.T) {
	d := specExample(t)
	if d.Size != 13 || d.Kind != Struct || !d.HasEndian() {
		t.Fatalf("size %d kind %s endian %v, want 13 struct true", d.Size, d.Kind, d.HasEndian())
	}
	for i, want := range []int{0, 4, 5} {
		if got := d.Fields()[i].Offset; got != want {
			t.Errorf("field %d at %d, want %d", i, got, want)
		}
	}
	back, err := ParseName(d.Name)
	if err != nil || !back.Equal(d) {
		t.Errorf("ParseName(%q) = %v, %v; want the same type", d.Name, back, err)
	}
	nested, err := NewStruct([]Field{{Name: "point", Type: d}, {Name: "v", Type: Named("uint16"), Shape: []int{2}}})
	if err != nil || nested.Size != 13+4 {
		t.Fatalf("nested: %v size %d, want 17", err, nested.Size)
	}
	if back, err := ParseName(nested.Name); err != nil || !back.Equal(nested) {
		t.Errorf("ParseName(%q) = %v, %v", nested.Name, back, err)
	}
	if got, want := fmt.Sprint(nested.SwapRuns()), "[{0 4 1} {5 8 1} {13 2 1} {15 2 1}]"; got != want {
		t.Errorf("swap runs %s, want %s", got, want)
	}
}

// Swapping follows each field's width: the spec's example element in big
// endian, written out by hand.
func TestStructSwapElements(t *testing.T) {
	d := specExample(t)
	le := binary.LittleEndian.AppendUint32(nil, 0x01020304)
	le = append(le, 0xAA)
	le = binary.LittleEndian.AppendUint64(le, math.Float64bits(1.5))
	be := binary.BigEndian.AppendUint32(nil, 0x01020304)
	be = append(be, 0xAA)
	be = binary.BigEndian.AppendUint64(be, math.Float64bits(1.5))
	b := append(append([]byte(nil), le...), le...)
	d.SwapElements(b)
	if !bytes.Equal(b, append(append([]byte(nil), be...), be...)) {
		t.Errorf("swapped % x, want % x twice", b, be)
	}
}

func TestStructRefused(t *testing.T) {
	i32 := Named("int32")
	deep := i32
	var err error
	for range MaxStructDepth {
		if deep, err = NewStruct([]Field{{Name: "a", Type: deep}}); err != nil {
			t.Fatal(err)
		}
	}
	many := make([]Field, MaxStructFields+1)
	for i := range many {
		many[i] = Field{Name: fmt.Sprint(i), Type: Named("uint8")}
	}
	for _, c := range []struct {
		fields []Field
		want   string
	}{
		{nil, "at least one field"},
		{[]Field{{Name: "a", Type: i32}, {Name: "a", Type: i32}}, `name "a" given twice`},
		{[]Field{{Name: "", Type: i32}}, "empty name"},
		{[]Field{{Name: "s", Type: Named("string")}}, "has no fixed size"},
		{[]Field{{Name: "a", Type: deep}}, "nested 9 deep"},
		{many, "1025 fields"},
		{[]Field{{Name: "a", Type: i32, Shape: []int{0}}}, "subarray shape [0]"},
	} {
		if _, err := NewStruct(c.fields); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.60v: %v, want an error saying %q", c.fields, err, c.want)
		}
	}
}

func TestStructFill(t *testing.T) {
	d := specExample(t)
	want := binary.LittleEndian.AppendUint32(nil, uint32(0xFFFFFFFF)) // -1
	want = append(want, 3)
	want = binary.LittleEndian.AppendUint64(want, 0x7ff8000000000000) // the canonical NaN
	for _, c := range []struct {
		json string
		v2   bool
	}{
		{`{"id": -1, "flags": 3, "value": "NaN"}`, false},
		{`{"value": "NaN", "flags": 3, "id": -1}`, false},
		{`"/////wMAAAAAAAD4fw=="`, false}, // legacy structured: base64, little endian
		{`"/////wMAAAAAAAD4fw=="`, true},
	} {
		got, err := ParseFill(d, json.RawMessage(c.json), c.v2)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s (v2 %v): % x, %v; want % x", c.json, c.v2, got, err, want)
		}
	}
	if got, err := ParseFill(d, json.RawMessage(`0`), true); err != nil || !bytes.Equal(got, make([]byte, 13)) {
		t.Errorf("v2 0: % x, %v; want 13 zero bytes", got, err)
	}
	for v2, want := range map[bool]string{false: `{"id": -1, "flags": 3, "value": "NaN"}`, true: `"/////wMAAAAAAAD4fw=="`} {
		if got, err := FormatFill(d, want2(t, d), v2); err != nil || string(got) != want {
			t.Errorf("FormatFill v2=%v: %s, %v; want %s", v2, got, err, want)
		}
	}
	for in, msg := range map[string]string{
		`{"id": -1, "flags": 3}`:                         `no value for field "value"`,
		`{"id": -1, "flags": 3, "value": 0, "extra": 1}`: `no field named "extra"`,
		`{"id": -1, "flags": 300, "value": 0}`:           `field "flags"`,
		`"AAAA"`:                                         "base64 of 3 bytes, a struct element has 13",
		`0`:                                              "expected an object",
	} {
		if _, err := ParseFill(d, json.RawMessage(in), false); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want an error saying %q", in, err, msg)
		}
	}
}

func want2(t *testing.T, d DataType) []byte {
	b, err := ParseFill(d, json.RawMessage(`{"id": -1, "flags": 3, "value": "NaN"}`), false)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseV2Struct(t *testing.T) {
	d, end, err := ParseV2Struct(json.RawMessage(`[["x", ">f4"], ["coords", ">i4", [3]], ["p", [["a", "|u1"], ["b", ">u2"]]]]`))
	if err != nil || end != Big || d.Size != 4+12+3 {
		t.Fatalf("%v %v size %d: want big endian, 19 bytes", err, end, d.Size)
	}
	if got, want := d.V2String(Big), `[["x", ">f4"], ["coords", ">i4", [3]], ["p", [["a", "|u1"], ["b", ">u2"]]]]`; got != want {
		t.Errorf("V2String %s, want %s", got, want)
	}
}
