package meta

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/dtype"
)

// Draft v3 documents written by hand from the digest (zarr-python 2.13
// output, keys sorted); no draft fixture exists.
const (
	draftEntry = `{"zarr_format": "https://purl.org/zarr/spec/protocol/core/3.0",
 "metadata_encoding": "https://purl.org/zarr/spec/protocol/core/3.0",
 "metadata_key_suffix": ".json", "extensions": []}`

	draftArray = `{"attributes": {},
 "chunk_grid": {"chunk_shape": [2, 3], "separator": "/", "type": "regular"},
 "chunk_memory_layout": "C",
 "compressor": {"codec": "https://purl.org/zarr/spec/codec/blosc/1.0",
   "configuration": {"blocksize": 0, "clevel": 5, "cname": "lz4", "shuffle": 1}},
 "data_type": "<f4", "extensions": [], "fill_value": "NaN", "shape": [5, 7]}`

	draftGroup = `{"extensions": [], "attributes": {"spam": "ham", "eggs": 42}}`
)

func TestParseDraftEntry(t *testing.T) {
	e, err := ParseDraftEntry([]byte(draftEntry))
	if err != nil {
		t.Fatal(err)
	}
	if e.ZarrFormat != "https://purl.org/zarr/spec/protocol/core/3.0" || e.MetadataKeySuffix != ".json" || e.Extensions != nil {
		t.Errorf("%+v", e)
	}
	// The May 2022 spec text's URI, suffix defaulted, an ignorable extension.
	e, err = ParseDraftEntry([]byte(`{"zarr_format": "https://purl.org/zarr/spec/core/3.0",
		"metadata_encoding": "application/json", "extensions": [{"extension": "http://example.org/zarr/extension/foo",
		"must_understand": false, "configuration": {"foo": "bar"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if e.MetadataKeySuffix != ".json" || len(e.Extensions) != 1 || e.Extensions[0].Name != "http://example.org/zarr/extension/foo" {
		t.Errorf("%+v", e)
	}
	errs := map[string]string{
		`{"zarr_format": "https://purl.org/zarr/spec/protocol/core/4.0"}`: "zarr_format: unsupported protocol",
		`{"zarr_format": 3}`: "zarr_format: unsupported protocol",
		`{"zarr_format": "https://purl.org/zarr/spec/core/3.0", "metadata_encoding": "application/cbor"}`:              "metadata_encoding",
		`{"zarr_format": "https://purl.org/zarr/spec/core/3.0", "extensions": [{"extension": "http://x.org/consol"}]}`: `"http://x.org/consol" must be understood`,
		`{"zarr_format": "https://purl.org/zarr/spec/core/3.0", "extras": 1}`:                                          `unknown field "extras"`,
	}
	for doc, want := range errs {
		if _, err := ParseDraftEntry([]byte(doc)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", doc, err, want)
		}
	}
}

func TestParseDraftArray(t *testing.T) {
	a, err := ParseDraftArray([]byte(draftArray))
	if err != nil {
		t.Fatal(err)
	}
	if a.Format != V3Draft || a.DataType != dtype.Named("float32") || !reflect.DeepEqual(a.ChunkShape, []int{2, 3}) {
		t.Errorf("%+v", a)
	}
	if a.ChunkKey != (ChunkKeyEncoding{Name: "draft", Separator: "/"}) {
		t.Errorf("chunk key %+v", a.ChunkKey)
	}
	want := []Extension{
		{Name: "bytes", Configuration: json.RawMessage(`{"endian":"little"}`), MustUnderstand: true},
		{Name: "blosc", Configuration: json.RawMessage(`{"blocksize":0,"clevel":5,"cname":"lz4","shuffle":1}`), MustUnderstand: true},
	}
	if !reflect.DeepEqual(a.Codecs, want) {
		t.Errorf("codecs %+v", a.Codecs)
	}
	if string(a.FillValue) != "\x00\x00\xc0\x7f" || string(a.Attributes) != "{}" {
		t.Errorf("fill %x attributes %s", a.FillValue, a.Attributes)
	}
}

func TestParseDraftArrayVariants(t *testing.T) {
	// 2019 spec example: F layout, big-endian, gzip URI without version,
	// "+Infinity", attributes inside, sharding storage transformer.
	doc := `{"shape": [10000, 1000], "data_type": ">f8",
	  "chunk_grid": {"type": "regular", "chunk_shape": [1000, 100], "separator": "."},
	  "chunk_memory_layout": "F",
	  "compressor": {"codec": "http://purl.org/zarr/spec/codec/gzip", "configuration": {"level": 1}},
	  "fill_value": "+Infinity", "extensions": [],
	  "storage_transformers": [{"extension": "https://purl.org/zarr/spec/storage_transformers/sharding/1.0",
	    "type": "indexed", "configuration": {"chunks_per_shard": [2, 2]}}],
	  "attributes": {"foo": 42, "bar": "apples", "baz": [1, 2, 3, 4]}}`
	a, err := ParseDraftArray([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, c := range a.Codecs {
		names = append(names, c.Name+string(c.Configuration))
	}
	want := []string{`transpose{"order":[1,0]}`, `bytes{"endian":"big"}`, `gzip{"level":1}`}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("codecs %v, want %v", names, want)
	}
	if a.ChunkKey.Separator != "." || string(a.FillValue) != "\x00\x00\x00\x00\x00\x00\xf0\x7f" {
		t.Errorf("chunk key %+v fill %x", a.ChunkKey, a.FillValue)
	}
	st := a.StorageTransformers
	if len(st) != 1 || st[0].Name != "https://purl.org/zarr/spec/storage_transformers/sharding/1.0" ||
		string(st[0].Configuration) != `{"chunks_per_shard":[2,2]}` {
		t.Errorf("storage transformers %+v", st)
	}
	if !jsonEqual(a.Attributes, json.RawMessage(`{"foo":42,"bar":"apples","baz":[1,2,3,4]}`)) {
		t.Errorf("attributes %s", a.Attributes)
	}

	// One-byte type: no byte order; null fill; extension data type form.
	a, err = ParseDraftArray([]byte(`{"shape": [4], "data_type": {"extension": "http://x", "type": "i1", "fallback": "i1"},
		"chunk_grid": {"type": "regular", "chunk_shape": [2]}, "fill_value": null}`))
	if err != nil {
		t.Fatal(err)
	}
	if a.DataType != dtype.Named("int8") || a.FillValue != nil || a.Codecs[0].Configuration != nil || len(a.Codecs) != 1 {
		t.Errorf("%+v", a)
	}
}

func TestParseDraftArrayErrors(t *testing.T) {
	tests := []struct{ old, new, want string }{
		{`"extensions": []`, `"extensions": [{"extension": "http://x/ext", "must_understand": true}]`, `"http://x/ext" must be understood`},
		{`"extensions": []`, `"extensions": [], "foo": 1`, `unknown field "foo"`},
		{`"type": "regular"`, `"type": "rectangular"`, "unsupported chunk grid type"},
		{`"chunk_shape": [2, 3]`, `"chunk_shape": [2]`, "chunk_shape has 1 dimensions"},
		{`https://purl.org/zarr/spec/codec/blosc/1.0`, `blosc`, `unrecognised codec URI "blosc"`},
		{`"<f4"`, `"<q9"`, `unknown data type "<q9"`},
		{`"chunk_memory_layout": "C"`, `"chunk_memory_layout": "K"`, "chunk_memory_layout"},
		{`"fill_value": "NaN"`, `"fill_value": "nan"`, "fill_value"},
		{`"<f4"`, `"|O"`, "variable-length"},
	}
	for _, tc := range tests {
		doc := edit(draftArray, tc.old, tc.new)
		if _, err := ParseDraftArray([]byte(doc)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q\n%s", err, tc.want, doc)
		}
	}
}

func TestParseDraftGroup(t *testing.T) {
	g, err := ParseDraftGroup([]byte(draftGroup))
	if err != nil {
		t.Fatal(err)
	}
	if g.Format != V3Draft || !jsonEqual(g.Attributes, json.RawMessage(`{"spam":"ham","eggs":42}`)) {
		t.Errorf("%+v", g)
	}
	if g, err := ParseDraftGroup([]byte(`{}`)); err != nil || string(g.Attributes) != "{}" {
		t.Errorf("empty group: %v %+v", err, g)
	}
	if _, err := ParseDraftGroup([]byte(`{"attributes": 1}`)); err == nil {
		t.Error("attributes 1 accepted")
	}
}
