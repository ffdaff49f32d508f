package meta

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/dtype"
)

// v3Array is the digest's example array (what zarr-python 3 writes),
// in zarr-python's key order; edit replaces "key": value pairs by text.
const v3Array = `{
  "shape": [5, 7],
  "data_type": "float32",
  "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2, 3]}},
  "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
  "fill_value": "NaN",
  "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
             {"name": "zstd", "configuration": {"level": 0, "checksum": false}}],
  "attributes": {},
  "zarr_format": 3,
  "node_type": "array",
  "storage_transformers": [],
  "dimension_names": ["y", "x"]
}`

func edit(doc string, pairs ...string) string {
	for i := 0; i+1 < len(pairs); i += 2 {
		if !strings.Contains(doc, pairs[i]) {
			panic("edit: " + pairs[i] + " not in document")
		}
		doc = strings.Replace(doc, pairs[i], pairs[i+1], 1)
	}
	return doc
}

func mustArray(t *testing.T, doc string) *ArrayMeta {
	t.Helper()
	a, g, err := ParseV3([]byte(doc))
	if err != nil {
		t.Fatalf("ParseV3: %v", err)
	}
	if a == nil || g != nil {
		t.Fatalf("ParseV3 gave array %v group %v", a, g)
	}
	return a
}

func TestParseV3Array(t *testing.T) {
	a := mustArray(t, v3Array)
	if a.Format != V3 || !reflect.DeepEqual(a.Shape, []int{5, 7}) || !reflect.DeepEqual(a.ChunkShape, []int{2, 3}) {
		t.Errorf("format %v shape %v chunks %v", a.Format, a.Shape, a.ChunkShape)
	}
	if a.DataType != dtype.Named("float32") {
		t.Errorf("data type %v", a.DataType)
	}
	if want := []byte{0, 0, 0xc0, 0x7f}; string(a.FillValue) != string(want) {
		t.Errorf("fill %x, want canonical NaN %x", a.FillValue, want)
	}
	if a.ChunkKey != (ChunkKeyEncoding{Name: "default", Separator: "/"}) {
		t.Errorf("chunk key %+v", a.ChunkKey)
	}
	want := []Extension{
		{Name: "bytes", Configuration: json.RawMessage(`{"endian":"little"}`), MustUnderstand: true},
		{Name: "zstd", Configuration: json.RawMessage(`{"level":0,"checksum":false}`), MustUnderstand: true},
	}
	if !reflect.DeepEqual(a.Codecs, want) {
		t.Errorf("codecs %+v", a.Codecs)
	}
	if a.StorageTransformers != nil || a.Extra != nil || string(a.Attributes) != "{}" || a.V2 != nil {
		t.Errorf("transformers %v extra %v attributes %s v2 %v", a.StorageTransformers, a.Extra, a.Attributes, a.V2)
	}
	if len(a.DimensionNames) != 2 || *a.DimensionNames[0] != "y" || *a.DimensionNames[1] != "x" {
		t.Errorf("dimension names %v", a.DimensionNames)
	}
}

// MarshalV3 writes what zarr-python 3 writes: the digest's example,
// byte for byte up to whitespace.
func TestMarshalV3MatchesZarrPython(t *testing.T) {
	y, x := "y", "x"
	a := &ArrayMeta{
		Format: V3, Shape: []int{5, 7}, ChunkShape: []int{2, 3},
		DataType:  dtype.Named("float32"),
		FillValue: dtype.Float32Fill(float32(math.NaN())),
		ChunkKey:  ChunkKeyEncoding{Name: "default", Separator: "/"},
		Codecs: []Extension{
			{Name: "bytes", Configuration: json.RawMessage(`{"endian": "little"}`)},
			{Name: "zstd", Configuration: json.RawMessage(`{"level": 0, "checksum": false}`)},
		},
		DimensionNames: []*string{&y, &x},
	}
	out, err := a.MarshalV3()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(compact(out)), string(compact(json.RawMessage(v3Array))); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if !strings.HasPrefix(string(out), "{\n  \"shape\": [\n    5,") {
		t.Errorf("not indented by 2:\n%s", out)
	}
}

func TestParseV3Forms(t *testing.T) {
	a := mustArray(t, edit(v3Array,
		`"data_type": "float32"`, `"data_type": {"name": "float32"}`,
		`"codecs": [{"name": "bytes", "configuration": {"endian": "little"}},`, `"codecs": ["endian", "crc32c",`,
		`"chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}}`, `"chunk_key_encoding": {"name": "default", "separator": "."}`,
		`"storage_transformers": []`, `"storage_transformers": ["t1", {"name": "t2", "configuration": {"k": 1}}]`,
		`"dimension_names": ["y", "x"]`, `"dimension_names": ["y", null]`,
	))
	if a.DataType.Name != "float32" || a.ChunkKey.Separator != "." {
		t.Errorf("data type %v chunk key %+v", a.DataType, a.ChunkKey)
	}
	names := []string{a.Codecs[0].Name, a.Codecs[1].Name, a.Codecs[2].Name}
	if !reflect.DeepEqual(names, []string{"endian", "crc32c", "zstd"}) || a.Codecs[1].Configuration != nil || !a.Codecs[1].MustUnderstand {
		t.Errorf("codecs %+v", a.Codecs)
	}
	if len(a.StorageTransformers) != 2 || a.StorageTransformers[1].Name != "t2" {
		t.Errorf("storage transformers %+v", a.StorageTransformers)
	}
	if a.DimensionNames[1] != nil || *a.DimensionNames[0] != "y" {
		t.Errorf("dimension names %v", a.DimensionNames)
	}
	out, err := a.MarshalV3()
	if err != nil {
		t.Fatal(err)
	}
	// Short-hand codecs are written in object form, and no must_understand
	// appears that the document did not have.
	for _, want := range []string{`{"name":"crc32c"}`, `{"name":"endian"}`, `"separator":"."`, `"dimension_names":["y",null]`} {
		if !strings.Contains(string(compact(out)), want) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "must_understand") {
		t.Errorf("output has must_understand:\n%s", out)
	}
}

func TestParseV3ChunkKeyEncodings(t *testing.T) {
	tests := map[string]ChunkKeyEncoding{
		`"default"`:      {"default", "/"},
		`{"name": "v2"}`: {"v2", "."},
		`{"name": "v2", "configuration": {"separator": "/"}}`: {"v2", "/"},
		`{"name": "default", "separator": "."}`:               {"default", "."},
	}
	for raw, want := range tests {
		a := mustArray(t, edit(v3Array, `{"name": "default", "configuration": {"separator": "/"}}`, raw))
		if a.ChunkKey != want {
			t.Errorf("%s: %+v, want %+v", raw, a.ChunkKey, want)
		}
	}
}

func TestParseV3Extras(t *testing.T) {
	doc := edit(v3Array, `"node_type": "array",`,
		`"node_type": "array", "acme_index": {"must_understand": false, "x": [1, 2]},`)
	a := mustArray(t, doc)
	if string(a.Extra["acme_index"]) != `{"must_understand":false,"x":[1,2]}` {
		t.Fatalf("extra %s", a.Extra)
	}
	out, err := a.MarshalV3()
	if err != nil {
		t.Fatal(err)
	}
	assertSameDoc(t, out, []byte(doc))

	// must_understand written on a codec survives a rewrite.
	a = mustArray(t, edit(v3Array, `{"name": "zstd",`, `{"name": "zstd", "must_understand": false,`))
	if a.Codecs[1].MustUnderstand {
		t.Error("must_understand false read as true")
	}
	out, _ = a.MarshalV3()
	if !strings.Contains(string(compact(out)), `"checksum":false},"must_understand":false}`) {
		t.Errorf("must_understand lost:\n%s", out)
	}
}

// Python writes bare NaN / Infinity; they read as the spec's strings.
func TestParseV3PythonNaN(t *testing.T) {
	doc := edit(v3Array,
		`"fill_value": "NaN"`, `"fill_value": -Infinity`,
		`"attributes": {}`, `"attributes": {"a": NaN, "b": [Infinity, -Infinity], "s": "NaN, Infinity: kept"}`)
	a := mustArray(t, doc)
	if string(a.FillValue) != string(dtype.Float32Fill(float32(math.Inf(-1)))) {
		t.Errorf("fill %x", a.FillValue)
	}
	want := `{"a":"NaN","b":["Infinity","-Infinity"],"s":"NaN, Infinity: kept"}`
	if string(a.Attributes) != want {
		t.Errorf("attributes %s, want %s", a.Attributes, want)
	}
}

func TestParseV3Errors(t *testing.T) {
	tests := []struct{ doc, want string }{
		{`{"zarr_format": 3,`, "invalid JSON"},
		{v3Array[:len(v3Array)/2], "invalid JSON"},
		{``, "invalid JSON"},
		{`[1]`, "not a JSON object"},
		{`null`, "not a JSON object"},
		{edit(v3Array, `"float32"`, `"float128"`), `unknown data type "float128"`},
		{edit(v3Array, `"float32"`, `{"name": "acme.float7", "configuration": {"x": 1}}`), `unknown data type "acme.float7"`},
		{edit(v3Array, `"node_type": "array",`, `"node_type": "array", "foo": 1,`), `unknown field "foo"`},
		{edit(v3Array, `"node_type": "array",`, `"node_type": "array", "foo": {"must_understand": true},`), `unknown field "foo"`},
		{edit(v3Array, `"node_type": "array",`, `"node_type": "array", "foo": {},`), `unknown field "foo"`},
		{edit(v3Array, `"chunk_shape": [2, 3]`, `"chunk_shape": [2]`), "chunk_shape has 1 dimensions, shape has 2"},
		{edit(v3Array, `"shape": [5, 7]`, `"shape": [-5, 7]`), "shape: element 0 is -5"},
		{edit(v3Array, `"shape": [5, 7]`, `"shape": [5.5, 7]`), "shape: element 0: expected an integer"},
		{edit(v3Array, `"shape": [5, 7]`, `"shape": ["5", 7]`), "shape: element 0: expected an integer"},
		{edit(v3Array, `"shape": [5, 7]`, `"shape": [1e30, 7]`), "shape: element 0: expected an integer"},
		{edit(v3Array, `"shape": [5, 7]`, `"Shape": [5, 7]`), "missing shape"},
		{edit(v3Array, `"chunk_shape": [2, 3]`, `"chunk_shape": [0, 3]`), "chunk_shape: element 0 is 0"},
		{edit(v3Array, `"zarr_format": 3`, `"zarr_format": 2`), "zarr_format: unsupported value 2"},
		{edit(v3Array, `"zarr_format": 3`, `"zarr_format": 3.0`), "zarr_format: unsupported value 3.0"},
		{edit(v3Array, `"zarr_format": 3,`, ``), "missing zarr_format"},
		{edit(v3Array, `"node_type": "array",`, ``), "missing node_type"},
		{edit(v3Array, `"node_type": "array"`, `"node_type": "table"`), `unknown node type "table"`},
		{edit(v3Array, `"name": "regular"`, `"name": "rectilinear"`), `chunk_grid: rectilinear: missing kind`},
		{edit(v3Array, `"name": "regular"`, `"name": "hexagonal"`), `unsupported chunk grid "hexagonal"`},
		{edit(v3Array, `"separator": "/"`, `"separator": "-"`), `invalid separator "-"`},
		{edit(v3Array, `{"name": "default", "configuration"`, `{"name": "acme", "configuration"`), `unsupported chunk key encoding "acme"`},
		{edit(v3Array, `"fill_value": "NaN"`, `"fill_value": null`), "fill_value: must not be null"},
		{edit(v3Array, `"fill_value": "NaN"`, `"fill_value": "nan"`), "fill_value"},
		{edit(v3Array, `"fill_value": "NaN",`, ``), "missing fill_value"},
		{edit(v3Array, `"float32"`, `"uint8"`, `"fill_value": "NaN"`, `"fill_value": 256`), "fill_value 256"},
		{edit(v3Array, `"codecs": [`, `"codecs": [], "x": [`), "codecs: must not be empty"},
		{edit(v3Array, `{"name": "bytes",`, `{"name": "bytes", "id": "x",`), `bytes: unknown field "id"`},
		{edit(v3Array, `{"endian": "little"}`, `"little"`), "bytes: configuration: not a JSON object"},
		{edit(v3Array, `["y", "x"]`, `["y"]`), "dimension_names: 1 names for 2 dimensions"},
		{edit(v3Array, `"attributes": {}`, `"attributes": []`), "attributes: not a JSON object"},
	}
	for _, tc := range tests {
		_, _, err := ParseV3([]byte(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseV3 error %v, want one containing %q\n%s", err, tc.want, tc.doc)
		}
	}
}

func TestParseV3DraftEntry(t *testing.T) {
	_, _, err := ParseV3([]byte(draftEntry))
	if !errors.Is(err, ErrDraftEntry) {
		t.Fatalf("error %v, want ErrDraftEntry", err)
	}
}

func TestParseV3Group(t *testing.T) {
	a, g, err := ParseV3([]byte(`{"zarr_format":3,"node_type":"group","attributes":{"spam":"ham"},"consolidated_metadata":null}`))
	if err != nil || a != nil {
		t.Fatal(err, a)
	}
	if g.Format != V3 || string(g.Attributes) != `{"spam":"ham"}` || g.Consolidated != nil || g.Extra != nil {
		t.Errorf("%+v", g)
	}
	_, g, _ = ParseV3([]byte(`{"zarr_format":3,"node_type":"group"}`))
	if string(g.Attributes) != "{}" {
		t.Errorf("default attributes %s", g.Attributes)
	}
	out, err := (&GroupMeta{Format: V3}).MarshalV3()
	if err != nil || string(compact(out)) != `{"attributes":{},"zarr_format":3,"node_type":"group"}` {
		t.Errorf("%s %v", out, err)
	}
}

func TestInlineConsolidated(t *testing.T) {
	child := `{"zarr_format": 3, "node_type": "group", "attributes": {"a": 1}}`
	arr := edit(v3Array, `"shape": [5, 7]`, `"shape": [50, 7]`)
	doc := `{"zarr_format": 3, "node_type": "group", "consolidated_metadata": {"kind": "inline",
		"must_understand": false, "metadata": {"g/arr": ` + arr + `, "g": ` + child + `}}}`
	_, g, err := ParseV3([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	c := g.Consolidated
	if c == nil || c.Groups["g"] == nil || c.Arrays["g/arr"] == nil || c.Arrays["g/arr"].Shape[0] != 50 {
		t.Fatalf("consolidated %+v", c)
	}
	out, err := g.MarshalV3()
	if err != nil {
		t.Fatal(err)
	}
	// Members are written by depth, then path.
	if i, j := strings.Index(string(out), `"g": {`), strings.Index(string(out), `"g/arr": {`); i < 0 || j < i {
		t.Errorf("member order:\n%s", out)
	}
	_, g2, err := ParseV3(out)
	if err != nil || !reflect.DeepEqual(g, g2) {
		t.Errorf("round trip: %v\n%s", err, out)
	}

	for _, bad := range []string{`"../x"`, `"/x"`, `"a//b"`, `""`} {
		_, _, err := ParseV3([]byte(strings.Replace(doc, `"g/arr"`, bad, 1)))
		if err == nil || !strings.Contains(err.Error(), "consolidated_metadata") {
			t.Errorf("member %s: error %v", bad, err)
		}
	}
	// Another kind is not understood: kept as is, since must_understand is false.
	_, g, err = ParseV3([]byte(`{"zarr_format": 3, "node_type": "group", "consolidated_metadata": {"kind": "remote", "must_understand": false}}`))
	if err != nil || g.Consolidated != nil || g.Extra["consolidated_metadata"] == nil {
		t.Errorf("unknown kind: %v %+v", err, g)
	}
}

func TestV3ExtensionDataTypes(t *testing.T) {
	tests := []struct {
		raw, fill string
		want      dtype.DataType
	}{
		{`{"name": "fixed_length_utf32", "configuration": {"length_bytes": 12}}`, `"ab"`, dtype.DataType{Kind: dtype.FixedUnicode, Size: 12, Name: "U3"}},
		{`{"name": "null_terminated_bytes", "configuration": {"length_bytes": 4}}`, `"YWI="`, dtype.DataType{Kind: dtype.FixedBytes, Size: 4, Name: "S4"}},
		{`{"name": "numpy.datetime64", "configuration": {"unit": "ns", "scale_factor": 1}}`, `"NaT"`, dtype.DataType{Kind: dtype.Datetime, Size: 8, Name: "M8[ns]", Unit: "ns"}},
		{`{"name": "numpy.timedelta64", "configuration": {"unit": "s", "scale_factor": 1}}`, `5`, dtype.DataType{Kind: dtype.Timedelta, Size: 8, Name: "m8[s]", Unit: "s"}},
		{`{"name": "raw_bytes", "configuration": {"length_bytes": 3}}`, `"AQID"`, dtype.DataType{Kind: dtype.Raw, Size: 3, Name: "V3"}},
		{`"r24"`, `[1, 2, 3]`, dtype.DataType{Kind: dtype.Raw, Size: 3, Name: "r24"}},
		{`"string"`, `"x"`, dtype.Named("string")},
	}
	for _, tc := range tests {
		doc := edit(v3Array, `"float32"`, tc.raw, `"NaN"`, tc.fill)
		a := mustArray(t, doc)
		if a.DataType != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.raw, a.DataType, tc.want)
			continue
		}
		out, err := a.MarshalV3()
		if err != nil {
			t.Errorf("%s: %v", tc.raw, err)
			continue
		}
		assertSameDoc(t, out, []byte(doc))
	}
	bad := edit(v3Array, `"float32"`, `{"name": "numpy.datetime64", "configuration": {"unit": "ns", "scale_factor": 10}}`)
	if _, _, err := ParseV3([]byte(bad)); err == nil || !strings.Contains(err.Error(), "scale_factor") {
		t.Errorf("scale_factor 10: %v", err)
	}
}

// A bad configuration of the fixed-width extension types is an error
// naming the type and the field, never a panic or a guess.
func TestV3ExtensionDataTypeErrors(t *testing.T) {
	tests := map[string]string{
		`{"name": "null_terminated_bytes"}`:                                              "null_terminated_bytes: missing configuration",
		`"fixed_length_utf32"`:                                                           "fixed_length_utf32: missing configuration",
		`{"name": "raw_bytes", "configuration": null}`:                                   "raw_bytes: missing configuration",
		`{"name": "null_terminated_bytes", "configuration": {}}`:                         "null_terminated_bytes: configuration: missing length_bytes",
		`{"name": "null_terminated_bytes", "configuration": {"length": 4}}`:              "null_terminated_bytes: configuration: missing length_bytes",
		`{"name": "raw_bytes", "configuration": {"length_bytes": 2, "x": 1}}`:            `raw_bytes: configuration: unknown key "x"`,
		`{"name": "null_terminated_bytes", "configuration": {"length_bytes": 0}}`:        "length_bytes: expected a positive integer, got 0",
		`{"name": "fixed_length_utf32", "configuration": {"length_bytes": 0}}`:           "length_bytes: expected a positive integer, got 0",
		`{"name": "fixed_length_utf32", "configuration": {"length_bytes": -4}}`:          "length_bytes: expected a positive integer, got -4",
		`{"name": "fixed_length_utf32", "configuration": {"length_bytes": 4.5}}`:         "length_bytes: expected a positive integer, got 4.5",
		`{"name": "fixed_length_utf32", "configuration": {"length_bytes": "8"}}`:         `length_bytes: expected a positive integer, got "8"`,
		`{"name": "fixed_length_utf32", "configuration": {"length_bytes": null}}`:        "length_bytes: expected a positive integer, got null",
		`{"name": "fixed_length_utf32", "configuration": {"length_bytes": 6}}`:           "fixed_length_utf32: configuration: length_bytes 6 is not a multiple of 4",
		`{"name": "fixed_length_utf32", "configuration": {"length_bytes": 2}}`:           "length_bytes 2 is not a multiple of 4",
		`{"name": "raw_bytes", "configuration": {"length_bytes": 99999999999999}}`:       "length_bytes 99999999999999 is larger than",
		`{"name": "raw_bytes", "configuration": {"length_bytes": 99999999999999999999}}`: "length_bytes: expected a positive integer",
	}
	for raw, want := range tests {
		_, _, err := ParseV3([]byte(edit(v3Array, `"float32"`, raw, `"NaN"`, `""`)))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "data_type: ") {
			t.Errorf("%s: error %v, want one naming data_type and saying %q", raw, err, want)
		}
	}
}

func TestMarshalV3ZeroD(t *testing.T) {
	a := &ArrayMeta{DataType: dtype.Named("int8"), Codecs: []Extension{{Name: "bytes"}}}
	out, err := a.MarshalV3()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"shape":[],"data_type":"int8","chunk_grid":{"name":"regular","configuration":{"chunk_shape":[]}},` +
		`"chunk_key_encoding":{"name":"default","configuration":{"separator":"/"}},"fill_value":0,` +
		`"codecs":[{"name":"bytes"}],"attributes":{},"zarr_format":3,"node_type":"array","storage_transformers":[]}`
	if string(compact(out)) != want {
		t.Errorf("got  %s\nwant %s", compact(out), want)
	}
}

func TestMarshalV3Errors(t *testing.T) {
	base := func() *ArrayMeta {
		return &ArrayMeta{Shape: []int{4}, ChunkShape: []int{2}, DataType: dtype.Named("int8"), Codecs: []Extension{{Name: "bytes"}}}
	}
	tests := map[string]func(a *ArrayMeta){
		"chunk shape has":     func(a *ArrayMeta) { a.ChunkShape = nil },
		"must be > 0":         func(a *ArrayMeta) { a.ChunkShape = []int{0} },
		"must be >= 0":        func(a *ArrayMeta) { a.Shape = []int{-1} },
		"at least one codec":  func(a *ArrayMeta) { a.Codecs = nil },
		"data type not set":   func(a *ArrayMeta) { a.DataType = dtype.DataType{} },
		"fill value has":      func(a *ArrayMeta) { a.FillValue = []byte{1, 2} },
		"attributes":          func(a *ArrayMeta) { a.Attributes = json.RawMessage(`[1]`) },
		"clashes":             func(a *ArrayMeta) { a.Extra = map[string]json.RawMessage{"shape": json.RawMessage(`{}`)} },
		"draft":               func(a *ArrayMeta) { a.ChunkKey = ChunkKeyEncoding{Name: "draft", Separator: "/"} },
		"without a name":      func(a *ArrayMeta) { a.Codecs = []Extension{{}} },
		"dimension_names: 0 ": func(a *ArrayMeta) { a.DimensionNames = []*string{} },
	}
	for want, mutate := range tests {
		a := base()
		mutate(a)
		if _, err := a.MarshalV3(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want one containing %q", err, want)
		}
	}
}
