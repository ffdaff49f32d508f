package render

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

func recordType(t *testing.T) dtype.DataType {
	t.Helper()
	inner, err := dtype.NewStruct([]dtype.Field{{Name: "a", Type: dtype.Named("uint8")}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := dtype.NewStruct([]dtype.Field{
		{Name: "x", Type: dtype.Named("float32")},
		{Name: "it's", Type: dtype.Named("int16"), Shape: []int{2}},
		{Name: "p", Type: inner},
	})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// A struct element is a JSON object in field order; a subarray field a
// list; a nested struct an object.
func TestStructJSON(t *testing.T) {
	d := recordType(t)
	a := ndarray.New(d, []int{1})
	binary.LittleEndian.PutUint32(a.Data[0:], math.Float32bits(1.5))
	binary.LittleEndian.PutUint16(a.Data[4:], uint16(0xFFFF))
	binary.LittleEndian.PutUint16(a.Data[6:], 7)
	a.Data[8] = 200
	got := string(appendValue(nil, a.At(0)))
	if want := `{"x": 1.5, "it's": [-1, 7], "p": {"a": 200}}`; got != want {
		t.Errorf("element %s, want %s", got, want)
	}
}

// The .npy header carries numpy's structured descr, and a big-endian
// structured document is read field by field into little endian.
func TestStructNPY(t *testing.T) {
	d := recordType(t)
	descr := npyDescr(d, 0)
	if want := `[('x', '<f4'), ('it\'s', '<i2', (2,)), ('p', [('a', '|u1')])]`; descr != want {
		t.Fatalf("descr %s, want %s", descr, want)
	}
	h := string(npyHeader(descr, []int{2}))
	if !strings.Contains(h, "{'descr': [('x'") {
		t.Errorf("header %q: the descr must be a list, not a string", h)
	}
	be := strings.ReplaceAll(strings.ReplaceAll(descr, "<f4", ">f4"), "<i2", ">i2")
	doc := npyHeader(be, []int{1})
	doc = binary.BigEndian.AppendUint32(doc, math.Float32bits(1.5))
	doc = binary.BigEndian.AppendUint16(doc, 0xFFFE)
	doc = binary.BigEndian.AppendUint16(doc, 7)
	doc = append(doc, 200)
	a, err := ReadNPY(bytes.NewReader(doc), d, []int{1})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(appendValue(nil, a.At(0))), `{"x": 1.5, "it's": [-2, 7], "p": {"a": 200}}`; got != want {
		t.Errorf("big-endian .npy read as %s, want %s", got, want)
	}
	other := npyHeader(strings.Replace(descr, "'x'", "'y'", 1), []int{1})
	if _, err := ReadNPY(bytes.NewReader(append(other, make([]byte, 9)...)), d, []int{1}); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Errorf("a descr with another field name: %v, want refused", err)
	}
}
