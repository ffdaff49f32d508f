package interop

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	zbinary "github.com/zarrgw/zarrgw/tests/support/binary"
	"github.com/zarrgw/zarrgw/tests/support/pyenv"
)

// registryCase is one array of a registry codec that zarrs implements.
type registryCase struct {
	DType  string            `json:"dtype"`
	Shape  []int             `json:"shape"`
	Chunks []int             `json:"chunks"`
	Codecs []json.RawMessage `json:"codecs"`
	Data   []float64         `json:"data"` // bools as 0/1
}

func registryCases() map[string]registryCase {
	values := func(n int, f func(i int) float64) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
	raw := func(s ...string) []json.RawMessage {
		out := make([]json.RawMessage, len(s))
		for i, c := range s {
			out[i] = json.RawMessage(c)
		}
		return out
	}
	little := `{"name":"bytes","configuration":{"endian":"little"}}`
	return map[string]registryCase{
		"packbits_bool": {DType: "bool", Shape: []int{13}, Chunks: []int{5},
			Codecs: raw(`{"name":"packbits","configuration":{"padding_encoding":"first_byte"}}`),
			Data:   values(13, func(i int) float64 { return b2f(i%3 == 0) })},
		"packbits_int16_12bits": {DType: "int16", Shape: []int{11}, Chunks: []int{4},
			Codecs: raw(`{"name":"packbits","configuration":{"last_bit":11}}`),
			Data:   values(11, func(i int) float64 { return float64(i*389%4096 - 2048) })},
		"packbits_uint8_high_nibble": {DType: "uint8", Shape: []int{9}, Chunks: []int{9},
			Codecs: raw(`{"name":"packbits","configuration":{"first_bit":4,"last_bit":7,"padding_encoding":"last_byte"}}`),
			Data:   values(9, func(i int) float64 { return float64(i*7%16*16) + 16*b2f(i == 0) })},
		"reshape_uint16": {DType: "uint16", Shape: []int{4, 6}, Chunks: []int{2, 3},
			Codecs: raw(`{"name":"reshape","configuration":{"shape":[[0,1]]}}`, little),
			Data:   values(24, func(i int) float64 { return float64(i*1000 + 1) })},
		"reshape_packbits_bool": {DType: "bool", Shape: []int{4, 6}, Chunks: []int{4, 6},
			Codecs: raw(`{"name":"reshape","configuration":{"shape":[-1]}}`, `{"name":"packbits"}`),
			Data:   values(24, func(i int) float64 { return b2f(i%5 < 2) })},
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// rawValues is the little-endian form of values as dtype.
func rawValues(dtype string, v []float64) []byte {
	var out []byte
	for _, x := range v {
		switch dtype {
		case "bool", "uint8":
			out = append(out, byte(x))
		case "int16":
			out = binary.LittleEndian.AppendUint16(out, uint16(int16(x)))
		case "uint16":
			out = binary.LittleEndian.AppendUint16(out, uint16(x))
		}
	}
	return out
}

// TestRegistryCodecs cross-checks the codecs of the zarr-extensions
// registry with foreign implementations, sharing one build of zarrgw.
func TestRegistryCodecs(t *testing.T) {
	zarrgw := zarrgwBinary
	t.Run("ZarrsPackbitsReshape", func(t *testing.T) { registryCodecsWithZarrs(t, zarrgw) })
	t.Run("Zarr2N5Default", func(t *testing.T) { n5DefaultWithZarr2(t, zarrgw) })
	t.Run("NumpyCastValueScaleOffset", func(t *testing.T) { castValueWithNumpy(t, zarrgw) })
}

// registryCodecsWithZarrs cross-checks packbits and reshape with
// zarrs, the registry's reference for both: zarrgw writes each array and
// zarrs reads it exactly; zarrs writes the same array, zarrgw reads it
// exactly, and every stored chunk is the same bytes from both.
func registryCodecsWithZarrs(t *testing.T, zarrgw string) {
	py := pyenv.Python(t, "zarr", "zarrs", "numpy")
	dir := t.TempDir()
	mine, theirs := filepath.Join(dir, "zarrgw"), filepath.Join(dir, "zarrs")
	cases := registryCases()
	for name, k := range cases {
		codecs, _ := json.Marshal(k.Codecs)
		from := filepath.Join(dir, name+".raw")
		if err := os.WriteFile(from, rawValues(k.DType, k.Data), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"create", mine, "--path", name, "--shape", ints(k.Shape), "--chunks", ints(k.Chunks), "--dtype", k.DType, "--codecs", string(codecs)},
			{"write", mine, "--path", name, "--format", "raw", "--from", from},
		} {
			if out, errOut, code := zbinary.Run(t, exec.Command(zarrgw, args...)); code != 0 {
				t.Fatalf("zarrgw %v: exit %d\n%s%s", args, code, out, errOut)
			}
		}
	}
	spec := filepath.Join(dir, "cases.json")
	b, _ := json.Marshal(cases)
	if err := os.WriteFile(spec, b, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), scriptTimeout)
	defer cancel()
	out, errOut, code := zbinary.Run(t, exec.CommandContext(ctx, py, "py/zarrs_codecs.py", spec, theirs, mine))
	if code != 0 {
		t.Fatalf("py/zarrs_codecs.py: exit %d\n%s", code, errOut)
	}
	var got map[string]struct {
		Data  []float64 `json:"data"`
		Error string    `json:"error"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("py/zarrs_codecs.py: output is not JSON: %v\n%.2000s", err, out)
	}
	for name, k := range cases {
		r, ok := got[name]
		switch {
		case !ok:
			t.Errorf("%s: no result from zarrs", name)
		case r.Error != "":
			t.Errorf("%s: zarrs: %s", name, r.Error)
		case !reflect.DeepEqual(r.Data, k.Data):
			t.Errorf("%s: zarrs read zarrgw's array as\n%v\nwant\n%v", name, r.Data, k.Data)
		}
		if r.Error != "" {
			continue
		}
		catOut, catErr, code := zbinary.Run(t, exec.Command(zarrgw, "cat", filepath.Join(theirs, name), "--format", "json"))
		var doc struct {
			Data []any `json:"data"`
		}
		if code != 0 || json.Unmarshal([]byte(catOut), &doc) != nil {
			t.Errorf("%s: zarrgw cat of zarrs' array: exit %d %s", name, code, catErr)
			continue
		}
		if flat := flatten(doc.Data); !reflect.DeepEqual(flat, k.Data) {
			t.Errorf("%s: zarrgw read zarrs' array as\n%v\nwant\n%v", name, flat, k.Data)
		}
		compareChunks(t, name, filepath.Join(mine, name), filepath.Join(theirs, name))
	}
}

// flatten turns nested JSON arrays of numbers or bools into a flat list.
func flatten(v []any) []float64 {
	var out []float64
	for _, x := range v {
		switch x := x.(type) {
		case []any:
			out = append(out, flatten(x)...)
		case bool:
			out = append(out, b2f(x))
		case float64:
			out = append(out, x)
		}
	}
	return out
}

// compareChunks requires the same chunk files, byte for byte, under a and b.
func compareChunks(t *testing.T, name, a, b string) {
	t.Helper()
	files := func(root string) map[string][]byte {
		m := map[string][]byte{}
		filepath.WalkDir(filepath.Join(root, "c"), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(root, p)
				m[rel], _ = os.ReadFile(p)
			}
			return nil
		})
		return m
	}
	mine, theirs := files(a), files(b)
	if len(mine) == 0 || len(mine) != len(theirs) {
		t.Errorf("%s: zarrgw stored %d chunks, zarrs %d", name, len(mine), len(theirs))
	}
	for k, v := range mine {
		if w, ok := theirs[k]; !ok || string(v) != string(w) {
			t.Errorf("%s: chunk %s: zarrgw % x, zarrs % x", name, k, v, w)
		}
	}
}

func ints(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}
