package pluginapi

import (
	"math"
	"slices"
	"testing"

	"github.com/zarrgw/zarrgw/core/dtype"
)

// A chunk shape from the wire is refused when an extent is negative or
// its elements cannot be counted in an int64.
func TestShapeFromPB(t *testing.T) {
	for _, p := range [][]int64{{-1}, {-2, -2}, {1 << 32, 1 << 31}, {math.MaxInt64, 2}} {
		if s, err := shapeFromPB(p); err == nil {
			t.Errorf("shape %v: taken as %v", p, s)
		}
	}
	for _, p := range [][]int64{nil, {0, math.MaxInt64, math.MaxInt64}, {1 << 31, 1 << 31}, {3, 4}} {
		s, err := shapeFromPB(p)
		if err != nil || !slices.Equal(shapeToPB(s), p) {
			t.Errorf("shape %v: %v %v", p, s, err)
		}
	}
}

// A struct type crosses to a plugin by its name, which spells out its
// fields; a size that disagrees with them is refused.
func TestStructDataTypeFromPB(t *testing.T) {
	inner, err := dtype.NewStruct([]dtype.Field{{Name: "a", Type: dtype.Named("uint16")}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := dtype.NewStruct([]dtype.Field{{Name: "when", Type: dtype.Named("float64")}, {Name: "p", Type: inner, Shape: []int{2}}})
	if err != nil {
		t.Fatal(err)
	}
	p := dtypeToPB(d)
	back, err := dtypeFromPB(p)
	if err != nil || !back.Equal(d) || !slices.Equal(back.SwapRuns(), d.SwapRuns()) {
		t.Fatalf("%s came back as %v, %v", d.Name, back, err)
	}
	p.Size++
	if _, err := dtypeFromPB(p); err == nil {
		t.Errorf("a struct of size %d whose fields take %d: accepted", p.Size, d.Size)
	}
}

// The registry's narrow types cross the wire by name; a name that is not
// a registered type of the kind and size sent is refused.
func TestNarrowDataTypeFromPB(t *testing.T) {
	for _, name := range []string{"bfloat16", "float8_e4m3fnuz", "int4", "complex_float4_e2m1fn"} {
		d := dtype.Named(name)
		back, err := dtypeFromPB(dtypeToPB(d))
		if err != nil || back != d {
			t.Errorf("%s: back as %+v, %v", name, back, err)
		}
	}
	bad := dtypeToPB(dtype.Named("float8_e4m3"))
	bad.Name = "float8_e9m9"
	if d, err := dtypeFromPB(bad); err == nil {
		t.Errorf("unregistered float8_e9m9 taken as %+v", d)
	}
	bad = dtypeToPB(dtype.Named("bfloat16"))
	bad.Size = 1
	if d, err := dtypeFromPB(bad); err == nil {
		t.Errorf("bfloat16 of size 1 taken as %+v", d)
	}
}
