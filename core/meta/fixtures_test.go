package meta

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"github.com/zarrgw/zarrgw/tests/support/fixtures"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/dtype"
)

// fixturesDir locates the shared fixtures (see fixtures.Dir).
func fixturesDir(tb testing.TB) string {
	tb.Helper()
	return fixtures.Dir(tb)
}

// metadataFiles lists every metadata document under dir by base name.
func metadataFiles(tb testing.TB, dir string) map[string][]string {
	tb.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch d.Name() {
		case "zarr.json", ".zarray", ".zgroup", ".zattrs", ".zmetadata":
			out[d.Name()] = append(out[d.Name()], p)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	for _, list := range out {
		sort.Strings(list)
	}
	return out
}

func readFile(tb testing.TB, p string) []byte {
	tb.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// readOptional returns nil when the file does not exist.
func readOptional(tb testing.TB, p string) []byte {
	tb.Helper()
	b, err := os.ReadFile(p)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

type expectedArray struct {
	ZarrFormat      int             `json:"zarr_format"`
	Shape           []int           `json:"shape"`
	DType           string          `json:"dtype"`
	ChunkShape      []int           `json:"chunk_shape"`
	Sharded         bool            `json:"sharded"`
	FillValue       json.RawMessage `json:"fill_value"`
	InnerChunkShape []int           `json:"inner_chunk_shape"`
}

type expectedGroup struct {
	ZarrFormat   int             `json:"zarr_format"`
	Attributes   json.RawMessage `json:"attributes"`
	Consolidated *struct {
		Kind    string   `json:"kind"`
		Members []string `json:"members"`
		Keys    []string `json:"keys"`
	} `json:"consolidated"`
}

func loadExpected(t *testing.T, dir string) (map[string]expectedArray, map[string]expectedGroup) {
	var doc struct {
		Arrays map[string]expectedArray `json:"arrays"`
		Groups map[string]expectedGroup `json:"groups"`
	}
	if err := json.Unmarshal(readFile(t, filepath.Join(dir, "expected.json")), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Arrays) == 0 || len(doc.Groups) == 0 {
		t.Fatal("expected.json lists no arrays or groups")
	}
	return doc.Arrays, doc.Groups
}

func parseFixtureArray(t *testing.T, dir, p string, format int) *ArrayMeta {
	t.Helper()
	base := filepath.Join(dir, filepath.FromSlash(p))
	if format == 3 {
		a, g, err := ParseV3(readFile(t, filepath.Join(base, "zarr.json")))
		if err != nil || g != nil {
			t.Fatalf("%s: %v (group %v)", p, err, g)
		}
		return a
	}
	a, err := ParseV2Array(readFile(t, filepath.Join(base, ".zarray")), readOptional(t, filepath.Join(base, ".zattrs")))
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return a
}

func TestFixtureArraysMatchExpected(t *testing.T) {
	dir := fixturesDir(t)
	arrays, _ := loadExpected(t, dir)
	for p, want := range arrays {
		t.Run(p, func(t *testing.T) {
			a := parseFixtureArray(t, dir, p, want.ZarrFormat)
			if !reflect.DeepEqual(a.Shape, want.Shape) {
				t.Errorf("shape %v, want %v", a.Shape, want.Shape)
			}
			if !reflect.DeepEqual(a.ChunkShape, want.ChunkShape) {
				t.Errorf("chunk shape %v, want %v", a.ChunkShape, want.ChunkShape)
			}
			checkDType(t, a, want)
			checkFill(t, a.DataType, a.FillValue, want.FillValue)
			checkSharding(t, a, want)
		})
	}
}

func checkDType(t *testing.T, a *ArrayMeta, want expectedArray) {
	t.Helper()
	if want.ZarrFormat == 3 {
		if a.Format != V3 || a.DataType.Name != want.DType {
			t.Errorf("format %v data type %q, want v3 %q", a.Format, a.DataType.Name, want.DType)
		}
		return
	}
	if a.Format != V2 || a.V2 == nil || a.V2.DType != want.DType {
		t.Fatalf("format %v, v2 fields %+v, want v2 dtype %q", a.Format, a.V2, want.DType)
	}
	if want.DType == "|O" {
		if !a.DataType.Variable() {
			t.Errorf("|O parsed as %v", a.DataType)
		}
		return
	}
	dt, _, _ := dtype.ParseV2(want.DType)
	if !a.DataType.Equal(dt) {
		t.Errorf("data type %v, want %v", a.DataType, dt)
	}
}

// checkFill compares a parsed fill value with expected.json's, encoding
// the expectation by hand (little-endian, IEEE) for the types that occur.
func checkFill(t *testing.T, dt dtype.DataType, got []byte, want json.RawMessage) {
	t.Helper()
	w := strings.TrimSpace(string(want))
	switch dt.Kind {
	case dtype.String, dtype.Bytes:
		switch w {
		case `""`:
			if got == nil || len(got) != 0 {
				t.Errorf("fill %q, want empty string", got)
			}
		case "0": // v2 object array: "no fill value", by our decision
			if got != nil {
				t.Errorf("fill %q, want nil for a v2 object array's 0", got)
			}
		default:
			t.Fatalf("unhandled expected fill %s", w)
		}
	case dtype.FixedUnicode, dtype.FixedBytes:
		if w != `""` && w != "0" {
			t.Fatalf("unhandled expected fill %s", w)
		}
		if !bytes.Equal(got, make([]byte, dt.Size)) {
			t.Errorf("fill %x, want %d zero bytes", got, dt.Size)
		}
	case dtype.Bool:
		want := map[string]byte{"false": 0, "0": 0, "true": 1}[w]
		if !bytes.Equal(got, []byte{want}) {
			t.Errorf("fill %x, want %x", got, want)
		}
	case dtype.Int, dtype.Uint:
		n, err := strconv.ParseInt(w, 10, 64)
		if err != nil {
			t.Fatalf("expected fill %s: %v", w, err)
		}
		b := make([]byte, 8)
		binary.LittleEndian.PutUint64(b, uint64(n))
		if !bytes.Equal(got, b[:dt.Size]) {
			t.Errorf("fill %x, want %x", got, b[:dt.Size])
		}
	case dtype.Float:
		checkFloatFill(t, dt, got, w)
	default:
		t.Fatalf("unhandled data type %v", dt)
	}
}

func checkFloatFill(t *testing.T, dt dtype.DataType, got []byte, w string) {
	t.Helper()
	var f float64
	switch dt.Size {
	case 2:
		f = dtype.F16ToFloat64(binary.LittleEndian.Uint16(got))
	case 4:
		f = float64(math.Float32frombits(binary.LittleEndian.Uint32(got)))
	case 8:
		f = math.Float64frombits(binary.LittleEndian.Uint64(got))
	}
	if w == `"NaN"` {
		if !math.IsNaN(f) {
			t.Errorf("fill %v, want NaN", f)
		}
		return
	}
	want, err := strconv.ParseFloat(w, 64)
	if err != nil {
		t.Fatalf("expected fill %s: %v", w, err)
	}
	if f != want || math.Signbit(f) != math.Signbit(want) {
		t.Errorf("fill %v, want %v", f, want)
	}
}

func checkSharding(t *testing.T, a *ArrayMeta, want expectedArray) {
	t.Helper()
	isSharded := len(a.Codecs) > 0 && a.Codecs[0].Name == "sharding_indexed"
	if isSharded != want.Sharded {
		t.Fatalf("sharded %v, want %v (codecs %v)", isSharded, want.Sharded, a.Codecs)
	}
	if !isSharded {
		return
	}
	var cfg struct {
		ChunkShape []int `json:"chunk_shape"`
	}
	if err := json.Unmarshal(a.Codecs[0].Configuration, &cfg); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cfg.ChunkShape, want.InnerChunkShape) {
		t.Errorf("inner chunk shape %v, want %v", cfg.ChunkShape, want.InnerChunkShape)
	}
}

func TestFixtureGroupsMatchExpected(t *testing.T) {
	dir := fixturesDir(t)
	_, groups := loadExpected(t, dir)
	for p, want := range groups {
		t.Run(p, func(t *testing.T) {
			g := parseFixtureGroup(t, filepath.Join(dir, filepath.FromSlash(p)), want.ZarrFormat)
			if !jsonEqual(g.Attributes, want.Attributes) {
				t.Errorf("attributes %s, want %s", g.Attributes, want.Attributes)
			}
			if want.Consolidated != nil && want.ZarrFormat == 3 {
				checkMembers(t, g.Consolidated, want.Consolidated.Members)
			}
		})
	}
}

func parseFixtureGroup(t *testing.T, base string, format int) *GroupMeta {
	t.Helper()
	if format == 3 {
		a, g, err := ParseV3(readFile(t, filepath.Join(base, "zarr.json")))
		if err != nil || a != nil {
			t.Fatalf("%s: %v (array %v)", base, err, a)
		}
		return g
	}
	g, err := ParseV2Group(readFile(t, filepath.Join(base, ".zgroup")), readOptional(t, filepath.Join(base, ".zattrs")))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func checkMembers(t *testing.T, c *Consolidated, want []string) {
	t.Helper()
	if c == nil {
		t.Fatal("no consolidated metadata")
	}
	var got []string
	for p := range c.Arrays {
		got = append(got, p)
	}
	for p := range c.Groups {
		got = append(got, p)
	}
	sort.Strings(got)
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("consolidated members %v, want %v", got, want)
	}
}

// Every metadata document of the fixtures parses.
func TestFixtureDocumentsParse(t *testing.T) {
	dir := fixturesDir(t)
	files := metadataFiles(t, dir)
	count := 0
	for _, p := range files[".zattrs"] {
		if _, err := parseV2Attrs(readFile(t, p)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		count++
	}
	for _, p := range files[".zgroup"] {
		if _, err := ParseV2Group(readFile(t, p), nil); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		count++
	}
	for _, p := range files[".zarray"] {
		if _, err := ParseV2Array(readFile(t, p), nil); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		count++
	}
	for _, p := range files["zarr.json"] {
		if _, _, err := ParseV3(readFile(t, p)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		count++
	}
	for _, p := range files[".zmetadata"] {
		if _, err := ParseV2Consolidated(readFile(t, p)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		count++
	}
	if count < 100 {
		t.Errorf("only %d metadata documents found", count)
	}
	t.Logf("parsed %d fixture metadata documents", count)
}
