package meta

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/extension"
)

// v2Array is the digest's zarr-python 2.13 example .zarray.
const v2Array = `{"chunks": [2, 2], "compressor": null, "dimension_separator": "/",
 "dtype": ">i8", "fill_value": -1,
 "filters": [{"astype": ">i8", "dtype": ">i8", "id": "delta"}],
 "order": "F", "shape": [4, 4], "zarr_format": 2}`

func chain(codecs []Extension) []string {
	out := make([]string, len(codecs))
	for i, c := range codecs {
		out[i] = c.Name + string(c.Configuration)
	}
	return out
}

func TestParseV2Array(t *testing.T) {
	a, err := ParseV2Array([]byte(v2Array), []byte(`{"_ARRAY_DIMENSIONS": ["y", "x"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if a.Format != V2 || a.DataType != dtype.Named("int64") || a.ChunkKey != (ChunkKeyEncoding{"v2", "/"}) {
		t.Errorf("%+v", a)
	}
	if string(a.FillValue) != "\xff\xff\xff\xff\xff\xff\xff\xff" {
		t.Errorf("fill %x", a.FillValue)
	}
	want := []string{`transpose{"order":[1,0]}`, `delta{"astype":">i8","dtype":">i8"}`, `bytes{"endian":"big"}`}
	if got := chain(a.Codecs); !reflect.DeepEqual(got, want) {
		t.Errorf("codecs %v, want %v", got, want)
	}
	v := a.V2
	if v.DType != ">i8" || v.Order != "F" || v.Compressor != nil || v.DimensionSeparator != "/" || len(v.Filters) != 1 || v.Filters[0].Name != "delta" {
		t.Errorf("v2 fields %+v", v)
	}
	if string(a.Attributes) != `{"_ARRAY_DIMENSIONS":["y","x"]}` {
		t.Errorf("attributes %s", a.Attributes)
	}
}

func TestDeriveV2Codecs(t *testing.T) {
	cases := map[string][]string{
		// delta then shuffle as filters, zlib compressor.
		`{"zarr_format": 2, "shape": [4, 4], "chunks": [2, 2], "dtype": "<i2", "order": "F", "filters": [{"astype": "<i2", "dtype": "<i2", "id": "delta"}, {"elementsize": 2, "id": "shuffle"}], "compressor": {"id": "zlib", "level": 1}, "fill_value": 0}`: {`transpose{"order":[1,0]}`, `delta{"astype":"<i2","dtype":"<i2"}`, `bytes{"endian":"little"}`, `shuffle{"elementsize":2}`, `zlib{"level":1}`},
		// 1-byte type: bytes without a byte order; F order on 1-d: no transpose.
		`{"zarr_format": 2, "shape": [4], "chunks": [2], "dtype": "|u1", "order": "F", "filters": null, "compressor": null, "fill_value": 0}`: {`bytes`},
		// object array with its codec; zstd compressor.
		`{"zarr_format": 2, "shape": [4], "chunks": [2], "dtype": "|O", "order": "C", "filters": [{"id": "vlen-utf8"}], "compressor": {"id": "zstd", "level": 0}, "fill_value": 0}`: {`vlen-utf8{}`, `zstd{"level":0}`},
		// fixedscaleoffset's astype <i2 sets the byte order of the bytes codec.
		`{"zarr_format": 2, "shape": [4], "chunks": [4], "dtype": ">f4", "order": "C", "filters": [{"astype": "<i2", "dtype": ">f4", "id": "fixedscaleoffset", "offset": 1000, "scale": 10}], "compressor": null, "fill_value": 0.0}`: {`fixedscaleoffset{"astype":"<i2","dtype":">f4","offset":1000,"scale":10}`, `bytes{"endian":"little"}`},
		// categorize turns an object array into integers: no object codec needed.
		`{"zarr_format": 2, "shape": [4], "chunks": [4], "dtype": "|O", "order": "C", "filters": [{"astype": "|u1", "dtype": "|O", "id": "categorize", "labels": ["a"]}], "compressor": null, "fill_value": null}`: {`categorize{"astype":"|u1","dtype":"|O","labels":["a"]}`, `bytes`},
		// fixed-width unicode, big endian: byte order applies to UTF-32.
		`{"zarr_format": 2, "shape": [4], "chunks": [4], "dtype": ">U13", "order": "C", "filters": null, "compressor": null, "fill_value": ""}`: {`bytes{"endian":"big"}`},
	}
	for doc, want := range cases {
		a, err := ParseV2Array([]byte(doc), nil)
		if err != nil {
			t.Errorf("%v\n%s", err, doc)
			continue
		}
		if got := chain(a.Codecs); !reflect.DeepEqual(got, want) {
			t.Errorf("codecs %v, want %v\n%s", got, want, doc)
		}
	}
}

func TestParseV2ObjectDataTypes(t *testing.T) {
	doc := `{"zarr_format": 2, "shape": [4], "chunks": [2], "dtype": "|O", "order": "C", "filters": [{"id": "vlen-bytes"}], "compressor": null, "fill_value": null}`
	a, err := ParseV2Array([]byte(doc), nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.DataType.Kind != dtype.Bytes || a.FillValue != nil {
		t.Errorf("vlen-bytes array: %+v fill %v", a.DataType, a.FillValue)
	}
	a, err = ParseV2Array([]byte(strings.Replace(doc, "vlen-bytes", "vlen-utf8", 1)), nil)
	if err != nil || a.DataType.Kind != dtype.String {
		t.Errorf("vlen-utf8 array: %v %+v", err, a)
	}
}

func TestParseV2ArrayErrors(t *testing.T) {
	tests := []struct{ old, new, want string }{
		{`"filters": [{"astype": ">i8", "dtype": ">i8", "id": "delta"}]`,
			`"filters": [{"id": "shuffle", "elementsize": 8}, {"astype": ">i8", "dtype": ">i8", "id": "delta"}]`,
			`"delta" (array->array) after a bytes filter cannot be expressed`},
		{`"filters": [{"astype": ">i8", "dtype": ">i8", "id": "delta"}]`, `"filters": null, "dtype": "|O"`, `dtype "|O": an object array needs an object codec`},
		{`"filters": [{"astype": ">i8", "dtype": ">i8", "id": "delta"}]`, `"filters": [{"id": "vlen-utf8"}]`, `object codec "vlen-utf8" on dtype ">i8"`},
		{`"filters": [{"astype": ">i8", "dtype": ">i8", "id": "delta"}]`, `"filters": [{"astype": ">i8"}]`, `filters: entry 0: missing "id"`},
		{`"compressor": null`, `"compressor": {"id": 5}`, "compressor: id: expected a non-empty string"},
		{`"zarr_format": 2`, `"zarr_format": 3`, "zarr_format: unsupported value 3"},
		{`"dtype": ">i8",`, ``, "missing dtype"},
		{`"dtype": ">i8"`, `"dtype": [["r", "|u1"], ["g", "|u1"]]`, `fill_value -1 for data type struct[["r","uint8"],["g","uint8"]]: expected an object`},
		{`"dtype": ">i8"`, `"dtype": [["r", "<u2"], ["g", ">u2"]]`, `field "g" is big endian, an earlier one little`},
		{`"dtype": ">i8"`, `"dtype": [["r", "|u1"], ["r", "|u1"]]`, `name "r" given twice`},
		{`"dtype": ">i8"`, `"dtype": [["r", "|O"]]`, `"r": object type "|O" has no fixed size`},
		{`"dtype": ">i8"`, `"dtype": ">x8"`, `dtype: unsupported v2 data type ">x8"`},
		{`"chunks": [2, 2]`, `"chunks": [2]`, "chunks has 1 dimensions, shape has 2"},
		{`"chunks": [2, 2]`, `"chunks": [2, 0]`, "chunks: element 1 is 0"},
		{`"shape": [4, 4]`, `"shape": [4, -4]`, "shape: element 1 is -4"},
		{`"order": "F"`, `"order": "X"`, "order: expected"},
		{`"dimension_separator": "/"`, `"dimension_separator": "-"`, "dimension_separator: expected"},
		{`"fill_value": -1`, `"fill_value": 1.5`, "fill_value 1.5"},
		{`"fill_value": -1`, `"fill_value": 9223372036854775808`, "out of range"},
		{`"zarr_format": 2}`, `"zarr_format": 2`, "invalid JSON"},
	}
	for _, tc := range tests {
		doc := edit(v2Array, tc.old, tc.new)
		_, err := ParseV2Array([]byte(doc), nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), ".zarray: ") {
			t.Errorf("error %v, want %q\n%s", err, tc.want, doc)
		}
	}
	if _, err := ParseV2Array([]byte(v2Array), []byte(`[]`)); err == nil || !strings.Contains(err.Error(), ".zattrs") {
		t.Errorf("bad .zattrs: %v", err)
	}
}

func TestParseV2Group(t *testing.T) {
	g, err := ParseV2Group([]byte(`{"zarr_format": 2, "consolidated_metadata": null}`), []byte(`{"a": NaN}`))
	if err != nil {
		t.Fatal(err)
	}
	if g.Format != V2 || string(g.Attributes) != `{"a":"NaN"}` {
		t.Errorf("%+v", g)
	}
	if _, err := ParseV2Group([]byte(`{"zarr_format": 3}`), nil); err == nil {
		t.Error("zarr_format 3 accepted")
	}
	zgroup, zattrs, err := (&GroupMeta{Format: V2}).MarshalV2()
	if err != nil || string(zgroup) != "{\n    \"zarr_format\": 2\n}" || string(zattrs) != "{}" {
		t.Errorf("%s %s %v", zgroup, zattrs, err)
	}
}

// An array created through the API (no V2 fields) is written by deriving
// the v2 fields from its codec chain.
func TestMarshalV2FromCodecs(t *testing.T) {
	a := &ArrayMeta{
		Format: V2, Shape: []int{4, 4}, ChunkShape: []int{2, 2},
		DataType: dtype.Named("int64"), FillValue: []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
		ChunkKey: ChunkKeyEncoding{Name: "v2", Separator: "/"},
		Codecs: []Extension{
			{Name: "transpose", Configuration: json.RawMessage(`{"order": [1, 0]}`)},
			{Name: "numcodecs.delta", Configuration: json.RawMessage(`{"dtype": ">i8", "astype": ">i8"}`)},
			{Name: "bytes", Configuration: json.RawMessage(`{"endian": "big"}`)},
		},
	}
	zarray, _, err := a.MarshalV2()
	if err != nil {
		t.Fatal(err)
	}
	assertSameDoc(t, zarray, []byte(v2Array))
}

func TestV2FromCodecs(t *testing.T) {
	base := func(dt string, codecs ...Extension) *ArrayMeta {
		return &ArrayMeta{Shape: []int{8, 8}, ChunkShape: []int{4, 4}, DataType: dtype.Named(dt), Codecs: codecs}
	}
	cfg := func(s string) json.RawMessage { return json.RawMessage(s) }
	bytesLE := Extension{Name: "bytes", Configuration: cfg(`{"endian":"little"}`)}
	tests := []struct {
		a             *ArrayMeta
		dtype, order  string
		filters, comp string
	}{
		{base("int32", Extension{Name: "transpose", Configuration: cfg(`{"order":[1,0]}`)},
			Extension{Name: "bytes", Configuration: cfg(`{"endian":"big"}`)},
			Extension{Name: "blosc", Configuration: cfg(`{"cname":"lz4","clevel":5,"shuffle":"shuffle","typesize":4,"blocksize":0}`)}),
			">i4", "F", "null", `{"blocksize":0,"clevel":5,"cname":"lz4","id":"blosc","shuffle":1}`},
		{base("float32", bytesLE, Extension{Name: "numcodecs.shuffle", Configuration: cfg(`{"elementsize":4}`)},
			Extension{Name: "gzip", Configuration: cfg(`{"level":5}`)}),
			"<f4", "C", `[{"elementsize":4,"id":"shuffle"}]`, `{"id":"gzip","level":5}`},
		{base("string", Extension{Name: "vlen-utf8"}, Extension{Name: "zstd", Configuration: cfg(`{"level":0,"checksum":false}`)}),
			"|O", "C", `[{"id":"vlen-utf8"}]`, `{"id":"zstd","level":0}`},
		{base("uint8", Extension{Name: "bytes"}, Extension{Name: "crc32c"}),
			"|u1", "C", "null", `{"id":"crc32c"}`},
		{base("int16", Extension{Name: "transpose", Configuration: cfg(`{"order":[0,1]}`)}, bytesLE),
			"<i2", "C", "null", "null"},
	}
	for i, tc := range tests {
		zarray, _, err := tc.a.MarshalV2()
		if err != nil {
			t.Errorf("%d: %v", i, err)
			continue
		}
		var doc map[string]json.RawMessage
		_ = json.Unmarshal(zarray, &doc)
		got := []string{string(doc["dtype"]), string(doc["order"]), string(compact(doc["filters"])), string(compact(doc["compressor"]))}
		want := []string{`"` + tc.dtype + `"`, `"` + tc.order + `"`, tc.filters, tc.comp}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%d: got %v, want %v", i, got, want)
		}
		if string(doc["dimension_separator"]) != `"."` {
			t.Errorf("%d: dimension_separator %s", i, doc["dimension_separator"])
		}
		// What is written parses back to the same chain.
		back, err := ParseV2Array(zarray, nil)
		if err != nil || !back.DataType.Equal(tc.a.DataType) || len(back.Codecs) != len(tc.a.Codecs)-boolInt(i == 4) {
			t.Errorf("%d: reparse %v %+v", i, err, back)
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestV2FromCodecsErrors(t *testing.T) {
	cfg := func(s string) json.RawMessage { return json.RawMessage(s) }
	bytesLE := Extension{Name: "bytes", Configuration: cfg(`{"endian":"little"}`)}
	tests := []struct {
		dt     string
		codecs []Extension
		want   string
	}{
		{"int32", []Extension{{Name: "sharding_indexed", Configuration: cfg(`{}`)}}, `"sharding_indexed" where the array->bytes codec belongs`},
		{"int32", []Extension{{Name: "transpose", Configuration: cfg(`{"order":[1,0]}`)}, {Name: "transpose", Configuration: cfg(`{"order":[1,0]}`)}, bytesLE}, "transpose must be the first codec"},
		{"int32", []Extension{bytesLE, {Name: "delta"}}, `"delta" after the array->bytes codec`},
		{"int32", []Extension{{Name: "gzip"}}, `"gzip" where the array->bytes codec belongs`},
		{"int32", []Extension{{Name: "numcodecs.delta"}}, "no array->bytes codec"},
		{"string", []Extension{bytesLE}, "needs an object codec"},
		{"int32", []Extension{{Name: "vlen-utf8"}}, `object codec "vlen-utf8" on data type int32`},
	}
	for _, tc := range tests {
		a := &ArrayMeta{Shape: []int{8, 8}, ChunkShape: []int{4, 4}, DataType: dtype.Named(tc.dt), Codecs: tc.codecs}
		if _, err := V2FromCodecs(a); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.codecs, err, tc.want)
		}
	}
	a := &ArrayMeta{Shape: []int{8, 8}, ChunkShape: []int{4, 4}, DataType: dtype.Named("int8"), Codecs: []Extension{{Name: "transpose", Configuration: cfg(`{"order":[1,0]}`)}, {Name: "bytes"}}}
	a.Codecs[0].Configuration = cfg(`{"order":[0,2,1]}`)
	if _, err := V2FromCodecs(a); err == nil || !strings.Contains(err.Error(), "transpose: invalid order") {
		t.Errorf("3-d order on 2-d array: %v", err)
	}
	a.ChunkKey = ChunkKeyEncoding{Name: "default", Separator: "/"}
	if _, _, err := a.MarshalV2(); err == nil || !strings.Contains(err.Error(), `chunk key encoding "default"`) {
		t.Errorf("default chunk keys written as v2: %v", err)
	}
}

// Changing the codecs of a parsed v2 array rewrites the v2 fields from
// the chain, keeping the fill value as written and the unknown keys.
func TestMarshalV2AfterCodecChange(t *testing.T) {
	doc := edit(v2Array, `"fill_value": -1`, `"fill_value": -1.0, "acme": {"x": 1}`)
	a, err := ParseV2Array([]byte(doc), nil)
	if err != nil {
		t.Fatal(err)
	}
	a.Codecs = append(a.Codecs, Extension{Name: "zlib", Configuration: json.RawMessage(`{"level":3}`)})
	zarray, _, err := a.MarshalV2()
	if err != nil {
		t.Fatal(err)
	}
	want := edit(doc, `"compressor": null`, `"compressor": {"id": "zlib", "level": 3}`)
	assertSameDoc(t, zarray, []byte(want))
	if !strings.Contains(string(zarray), `"fill_value": -1.0`) {
		t.Errorf("fill value not kept as written:\n%s", zarray)
	}
}

func TestV2FillKeptAsWritten(t *testing.T) {
	tests := map[string]string{
		`"<f4"`:     `"0x7fc00001"`, // NaN payload v2 readers cannot see
		`"<f8"`:     `0`,
		`"|S3"`:     `0`,
		`"<U2"`:     `0`,
		`"|b1"`:     `0`,
		`"<c8"`:     `[0, "NaN"]`,
		`"<M8[ns]"`: `-9223372036854775808`,
	}
	for dt, fill := range tests {
		doc := `{"zarr_format": 2, "shape": [2], "chunks": [2], "dtype": ` + dt + `, "order": "C", "filters": null, "compressor": null, "fill_value": ` + fill + `}`
		a, err := ParseV2Array([]byte(doc), nil)
		if err != nil {
			t.Errorf("%s: %v", dt, err)
			continue
		}
		zarray, _, err := a.MarshalV2()
		if err != nil {
			t.Errorf("%s: %v", dt, err)
			continue
		}
		var got map[string]json.RawMessage
		_ = json.Unmarshal(zarray, &got)
		if string(compact(got["fill_value"])) != string(compact(json.RawMessage(fill))) {
			t.Errorf("%s: fill written as %s, want %s", dt, got["fill_value"], fill)
		}
		// Changing the value drops the written form.
		if a.FillValue != nil && !a.DataType.Variable() {
			a.FillValue = dtype.DefaultFill(a.DataType)
			a.FillValue[0] ^= 1
			if zarray, _, err = a.MarshalV2(); err != nil || strings.Contains(string(zarray), fill) && fill != "0" {
				t.Errorf("%s: changed fill still written as %s: %v", dt, fill, err)
			}
		}
	}
}

// zarr-python 2 decodes metadata as ASCII: v2 documents escape the rest.
func TestMarshalV2ASCII(t *testing.T) {
	doc := `{"zarr_format": 2, "shape": [2], "chunks": [2], "dtype": "<U3", "order": "C", "filters": null, "compressor": null, "fill_value": "é🙂"}`
	a, err := ParseV2Array([]byte(doc), []byte(`{"unicode": "é漢🙂", "bad": "`+"\xff"+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	zarray, zattrs, err := a.MarshalV2()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(zarray), `"fill_value": "\u00e9\ud83d\ude42"`) {
		t.Errorf("fill not escaped:\n%s", zarray)
	}
	if !strings.Contains(string(zattrs), `"unicode": "\u00e9\u6f22\ud83d\ude42"`) || !strings.Contains(string(zattrs), "\"\xff\"") {
		t.Errorf("attributes not escaped (or invalid UTF-8 changed):\n%s", zattrs)
	}
	b, err := ParseV2Array(zarray, zattrs)
	if err != nil || !reflect.DeepEqual(a.FillValue, b.FillValue) || !jsonEqual(a.Attributes, b.Attributes) {
		t.Errorf("reparse: %v %+v", err, b)
	}
	out, err := MarshalV2Consolidated(&GroupMeta{Attributes: json.RawMessage(`{"k":"漢"}`)}, nil)
	if err != nil || !strings.Contains(string(out), `"k": "\u6f22"`) {
		t.Errorf(".zmetadata not escaped: %v\n%s", err, out)
	}
}

// A codec numcodecs does not know is an array->array filter when it comes
// before the array->bytes codec, and reads back there once a registry
// says so (WithV2Kinds): a plugin's filter round-trips through v2.
func TestV2PluginFilter(t *testing.T) {
	cfg := json.RawMessage(`{"keepbits":3}`)
	a := &ArrayMeta{Format: V3, Shape: []int{8}, ChunkShape: []int{4}, DataType: dtype.Named("float32"),
		ChunkKey: ChunkKeyEncoding{Name: "v2", Separator: "."},
		Codecs:   []Extension{{Name: "bitshave", Configuration: cfg}, {Name: "bytes", Configuration: json.RawMessage(`{"endian":"little"}`)}, {Name: "zstd", Configuration: json.RawMessage(`{"level":1}`)}}}
	v, err := V2FromCodecs(a)
	if err != nil || len(v.Filters) != 1 || v.Filters[0].Name != "bitshave" || v.Compressor == nil {
		t.Fatalf("v2 fields %+v, %v", v, err)
	}
	b := &ArrayMeta{Format: V2, V2: v, Shape: a.Shape, DataType: a.DataType}
	b.Codecs, _, err = deriveV2Codecs(v, a.DataType, dtype.Little, 1, nil)
	if err != nil || b.Codecs[0].Name != "bytes" {
		t.Fatalf("without a registry the unknown filter is bytes->bytes: %v %v", b.Codecs, err)
	}
	kindOf := func(f Extension) (extension.CodecKind, bool) {
		return extension.ArrayToArray, f.Name == "bitshave"
	}
	c, err := b.WithV2Kinds(kindOf)
	if err != nil || len(c.Codecs) != 3 || c.Codecs[0].Name != "bitshave" || c.Codecs[1].Name != "bytes" {
		t.Fatalf("with the registry's kinds: %v %v", c.Codecs, err)
	}
	if b.Codecs[0].Name != "bytes" {
		t.Fatal("WithV2Kinds changed its receiver")
	}
	if same, _ := c.WithV2Kinds(kindOf); same != c {
		t.Fatal("unchanged metadata was copied")
	}
}
