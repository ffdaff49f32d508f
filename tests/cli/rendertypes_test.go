package cli

import (
	le "encoding/binary"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	bin "github.com/zarrgw/zarrgw/tests/support/binary"
)

// renderCase is an array of one data type, its elements as stored bytes
// (little endian) and the JSON `data` both `cat --format json` and the
// array API must give for them, worked out by hand from the formats.
type renderCase struct {
	path, dtype, fill string
	shape             string
	raw               []byte
	want              string
}

func renderCases() []renderCase {
	le64 := func(v ...int64) []byte {
		var b []byte
		for _, x := range v {
			b = le.LittleEndian.AppendUint64(b, uint64(x))
		}
		return b
	}
	rec := le.LittleEndian.AppendUint32(nil, 7)
	rec = le.LittleEndian.AppendUint64(rec, math.Float64bits(1.5))
	rec = le.LittleEndian.AppendUint32(rec, uint32(0xfffffffe)) // -2
	rec = le.LittleEndian.AppendUint64(rec, math.Float64bits(-0.25))
	return []renderCase{
		// bfloat16 0x3fc0 1.5, 0xc000 -2, 0x7fc0 NaN
		{"bf16", "bfloat16", "0", "3", []byte{0xc0, 0x3f, 0x00, 0xc0, 0xc0, 0x7f}, `[1.5, -2.0, "NaN"]`},
		// int4 in ml_dtypes' form: the low bits, zeros above
		{"i4", "int4", "0", "3", []byte{0x0f, 0x07, 0x08}, `[-1, 7, -8]`},
		// float8_e4m3fn 0x38 1.0, 0x7e 448 (its largest), 0x7f NaN
		{"f8", "float8_e4m3fn", "0", "3", []byte{0x38, 0x7e, 0x7f}, `[1.0, 448.0, "NaN"]`},
		{"rec", `{"name":"struct","configuration":{"fields":[{"name":"id","data_type":"int32"},{"name":"v","data_type":"float64"}]}}`,
			`{"id":0,"v":0.0}`, "2", rec, `[{"id": 7, "v": 1.5}, {"id": -2, "v": -0.25}]`},
		// datetimes as integers in their unit, NaT (int64's least) as "NaT"
		{"when", `{"name":"numpy.datetime64","configuration":{"unit":"s","scale_factor":1}}`, `"NaT"`, "2",
			le64(86400, math.MinInt64), `[86400, "NaT"]`},
	}
}

// Every type renders the same through `cat --format json` and the array
// API's JSON: narrow numbers as numbers (NaN as "NaN"), structs as objects,
// datetimes as integers with NaT.
func TestJSONRendersEveryType(t *testing.T) {
	dir := t.TempDir()
	cases := renderCases()
	for _, c := range cases {
		must(t, dir, "create", "t.zarr", "--path", c.path, "--shape", c.shape, "--chunks", "2", "--dtype", c.dtype,
			"--fill-value", c.fill, "--codecs", `[{"name":"bytes","configuration":{"endian":"little"}}]`)
		raw := filepath.Join(dir, c.path+".raw")
		if err := os.WriteFile(raw, c.raw, 0o644); err != nil {
			t.Fatal(err)
		}
		must(t, dir, "write", "t.zarr", "--path", c.path, "--format", "raw", "--from", raw)
		if got := jsonData(t, []byte(must(t, dir, "cat", "t.zarr", "--path", c.path, "--format", "json"))); got != compactJSON(t, c.want) {
			t.Errorf("cat %s (%s): data %s, want %s", c.path, c.dtype, got, c.want)
		}
	}
	file := filepath.Join(dir, "zarrgw.hcl")
	write(t, file, `store "fs" "t" {
  root = "`+filepath.Join(dir, "t.zarr")+`"
}
dataset "t" {
  store = store.fs.t
}
server {
  listen = "127.0.0.1:0"
}
`)
	g := bin.Serve(t, binary, file)
	for _, c := range cases {
		resp, err := http.Get(g.URL + "/d/t/" + c.path + "?format=json")
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("array API %s: %d %s %v", c.path, resp.StatusCode, body, err)
		}
		if got := jsonData(t, body); got != compactJSON(t, c.want) {
			t.Errorf("array API %s (%s): data %s, want %s", c.path, c.dtype, got, c.want)
		}
	}
}

// jsonData is the compact `data` member of a rendered array.
func jsonData(t *testing.T, doc []byte) string {
	t.Helper()
	var d struct{ Data json.RawMessage }
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatalf("%s: %v", doc, err)
	}
	return compactJSON(t, string(d.Data))
}

func compactJSON(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
