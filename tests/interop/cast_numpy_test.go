package interop

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	zbinary "github.com/zarrgw/zarrgw/tests/support/binary"
)

// castCase is one array whose chain holds cast_value and scale_offset;
// py/cast_numpy.py computes with numpy what its chunk must hold.
type castCase struct {
	DType  string   `json:"dtype"`
	Codecs string   `json:"codecs"`
	Data   []string `json:"data"` // numbers, "nan", "inf", "-inf"
	Fill   string   `json:"-"`    // the fill value; 5 when empty
}

var castCases = map[string]castCase{
	"scale_offset_uint8_nan": {DType: "float64", Fill: `"NaN"`, Data: []string{"0", "5.5", "123.4", "2540", "nan", "17", "-5"},
		Codecs: `[{"name":"scale_offset","configuration":{"offset":-10,"scale":0.1}},{"name":"cast_value","configuration":{"data_type":"uint8","rounding":"nearest-even","scalar_map":{"encode":[["NaN",0]],"decode":[[0,"NaN"]]}}},"bytes"]`},
	"numpy_compat_uint8": {DType: "float64", Data: []string{"300.7", "-1.5", "255.9", "nan", "inf", "-inf", "7"},
		Codecs: `[{"name":"cast_value","configuration":{"data_type":"uint8","rounding":"towards-zero","out_of_range":"wrap","scalar_map":{"encode":[["NaN",0],["+Infinity",0],["-Infinity",0]]}}},"bytes"]`},
	"float64_to_float32": {DType: "float64", Data: []string{"5", "6.1", "-1e10", "123456.789", "0.3", "1e-40"},
		Codecs: `[{"name":"scale_offset","configuration":{"offset":5,"scale":0.1}},{"name":"cast_value","configuration":{"data_type":"float32"}},{"name":"bytes","configuration":{"endian":"little"}}]`},
	"float32_scale_offset": {DType: "float32", Data: []string{"5", "6.1", "-1000.25", "3.3", "7e8"},
		Codecs: `[{"name":"scale_offset","configuration":{"offset":5,"scale":0.1}},{"name":"bytes","configuration":{"endian":"little"}}]`},
	"int16_clamp_int8": {DType: "int16", Data: []string{"-300", "-128", "5", "127", "1000"},
		Codecs: `[{"name":"cast_value","configuration":{"data_type":"int8","out_of_range":"clamp"}},"bytes"]`},
}

// castValueWithNumpy cross-checks cast_value and scale_offset with
// numpy's arithmetic and casts on bytes: zarrgw writes each array, and its
// stored chunk must be the bytes numpy computes; zarrgw reads it back to
// the values numpy decodes.
func castValueWithNumpy(t *testing.T, zarrgw string) {
	requirePython(t)
	dir := t.TempDir()
	store := filepath.Join(dir, "cast.zarr")
	for name, k := range castCases {
		fill := k.Fill
		if fill == "" {
			fill = "5"
		}
		from := filepath.Join(dir, name+".raw")
		if err := os.WriteFile(from, castRaw(t, k), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"create", store, "--path", name, "--shape", strconv.Itoa(len(k.Data)), "--chunks", strconv.Itoa(len(k.Data)), "--dtype", k.DType, "--fill-value", fill, "--codecs", k.Codecs},
			{"write", store, "--path", name, "--format", "raw", "--from", from},
		} {
			if out, errOut, code := zbinary.Run(t, exec.Command(zarrgw, args...)); code != 0 {
				t.Fatalf("zarrgw %v: exit %d\n%s%s", args, code, out, errOut)
			}
		}
	}
	spec := filepath.Join(dir, "cases.json")
	b, _ := json.Marshal(castCases)
	if err := os.WriteFile(spec, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := zbinary.Run(t, exec.Command(python, "py/cast_numpy.py", spec))
	if code != 0 {
		t.Fatalf("py/cast_numpy.py: exit %d\n%s", code, errOut)
	}
	var want map[string]struct {
		Stored  string `json:"stored"`
		Decoded []any  `json:"decoded"`
	}
	if err := json.Unmarshal([]byte(out), &want); err != nil {
		t.Fatalf("py/cast_numpy.py: %v\n%s", err, out)
	}
	for name := range castCases {
		w := want[name]
		got, err := os.ReadFile(filepath.Join(store, name, "c", "0"))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if hex.EncodeToString(got) != w.Stored {
			t.Errorf("%s: zarrgw stored %x, numpy %s", name, got, w.Stored)
		}
		catOut, catErr, code := zbinary.Run(t, exec.Command(zarrgw, "cat", store, "--path", name, "--format", "json"))
		var doc struct {
			Data []any `json:"data"`
		}
		if code != 0 || json.Unmarshal([]byte(catOut), &doc) != nil {
			t.Errorf("%s: zarrgw cat: exit %d %s%s", name, code, catOut, catErr)
			continue
		}
		if len(doc.Data) != len(w.Decoded) {
			t.Errorf("%s: zarrgw read %v, numpy decodes %v", name, doc.Data, w.Decoded)
			continue
		}
		for i := range doc.Data {
			if !sameNumber(doc.Data[i], w.Decoded[i]) {
				t.Errorf("%s: element %d: zarrgw read %v, numpy decodes %v", name, i, doc.Data[i], w.Decoded[i])
			}
		}
	}
}

// sameNumber compares a JSON number or special-value string of zarrgw
// with numpy's (float32 results compared at float32 precision).
func sameNumber(a, b any) bool {
	f := func(v any) float64 {
		switch v := v.(type) {
		case float64:
			return v
		case string:
			x, _ := strconv.ParseFloat(v, 64)
			return x
		}
		return math.NaN()
	}
	x, y := f(a), f(b)
	if math.IsNaN(x) || math.IsNaN(y) {
		return math.IsNaN(x) && math.IsNaN(y)
	}
	return x == y || float32(x) == float32(y)
}

// castRaw is the little-endian form of a case's data.
func castRaw(t *testing.T, k castCase) []byte {
	var out []byte
	for _, s := range k.Data {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		switch k.DType {
		case "float64":
			out = binary.LittleEndian.AppendUint64(out, math.Float64bits(x))
		case "float32":
			out = binary.LittleEndian.AppendUint32(out, math.Float32bits(float32(x)))
		case "int16":
			out = binary.LittleEndian.AppendUint16(out, uint16(int16(x)))
		}
	}
	return out
}
