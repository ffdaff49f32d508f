package meta

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/dtype"
)

// v2Keys are the keys the v2 spec defines for a .zarray.
var v2Keys = map[string]bool{
	"zarr_format": true, "shape": true, "chunks": true, "dtype": true, "compressor": true,
	"fill_value": true, "order": true, "filters": true, "dimension_separator": true,
}

// normalizeZarray decodes a .zarray for comparing a v2 -> v3 -> v2 round
// trip with its original. What the round trip may change, and this
// removes:
//   - keys the v2 spec does not define (zarrs writes node_type): v3 has no
//     place for them;
//   - dimension_separator: ToV3 writes the default chunk keys, whose
//     separator is "/", so the output's is "/" whatever the original's
//     (checked apart);
//   - fill_value: compared apart, as the value it decodes to; null is the
//     data type's zero, which ToV3 writes (v3 has no null fill);
//   - order "F" of an array of less than two dimensions is "C" (the same
//     layout; ParseV2Array derives no transpose for it);
//   - filters [] is null;
//   - a compressor or filter's "checksum": false (zstd) is absent: numcodecs
//     before 0.13 rejects the key, zarr-python 3 drops it too.
//
// Numbers compare by value (0 == 0.0). Everything else (dtype with its
// byte order, shape, chunks, every codec id and configuration) must be
// equal.
func normalizeZarray(t *testing.T, doc []byte) map[string]any {
	t.Helper()
	var v any
	if err := decodeNumbers(lenient(doc), &v); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, doc)
	}
	m := v.(map[string]any)
	for k := range m {
		if !v2Keys[k] {
			delete(m, k)
		}
	}
	delete(m, "dimension_separator")
	delete(m, "fill_value")
	if shape, _ := m["shape"].([]any); len(shape) < 2 && m["order"] == "F" {
		m["order"] = "C"
	}
	if f, ok := m["filters"].([]any); ok && len(f) == 0 {
		m["filters"] = nil
	}
	dropFalseChecksum := func(c any) {
		if obj, ok := c.(map[string]any); ok && obj["checksum"] == false {
			delete(obj, "checksum")
		}
	}
	dropFalseChecksum(m["compressor"])
	if f, ok := m["filters"].([]any); ok {
		for _, c := range f {
			dropFalseChecksum(c)
		}
	}
	return m
}

// fillOrZero is a fill value with null read as the type's zero.
func fillOrZero(a *ArrayMeta) []byte {
	if a.FillValue == nil {
		return dtype.DefaultFill(a.DataType)
	}
	return a.FillValue
}

// canonicalV3 names codecs as `zarrgw cp --to-format 3` writes them (by
// their registered v3 names, host/commands/transfer/codecs.go canonicalCodecs):
// numcodecs' own ids under "numcodecs.", blosc with its shuffle by name
// and its typesize, as the bundled codecs' manifests and Configuration
// report them.
func canonicalV3(t *testing.T, m *ArrayMeta) *ArrayMeta {
	t.Helper()
	prefixed := map[string]bool{
		"adler32": true, "bitround": true, "bz2": true, "crc32": true, "delta": true, "fixedscaleoffset": true,
		"fletcher32": true, "json2": true, "lz4": true, "quantize": true, "shuffle": true, "zlib": true,
	}
	out := *m
	out.Codecs = nil
	for _, c := range m.Codecs {
		switch {
		case prefixed[c.Name]:
			c.Name = "numcodecs." + c.Name
		case c.Name == "blosc":
			var cfg map[string]any
			if err := json.Unmarshal(c.Configuration, &cfg); err != nil {
				t.Fatal(err)
			}
			shuffle := map[float64]string{0: "noshuffle", 1: "shuffle", 2: "bitshuffle"}
			if n, ok := cfg["shuffle"].(float64); ok {
				if n == -1 {
					n = 1
					if m.DataType.Size == 1 {
						n = 2
					}
				}
				cfg["shuffle"] = shuffle[n]
			}
			cfg["typesize"] = m.DataType.Size
			c.Configuration, _ = json.Marshal(cfg)
		}
		out.Codecs = append(out.Codecs, c)
	}
	return &out
}

// Every v2 fixture array comes back from v3 as it was (normalised as
// normalizeZarray says), four ways: ToV3 then ToV2; through the v3
// zarr.json (MarshalV3, ParseV3); with the codecs named as cp names them
// in v3; and with xarray's _ARRAY_DIMENSIONS added to the attributes,
// which must become dimension_names (and leave the v3 attributes) and
// come back as the attribute.
func TestFixtureV2ToV3ToV2(t *testing.T) {
	dir := fixturesDir(t)
	files := metadataFiles(t, dir)[".zarray"]
	converted := 0
	for _, p := range files {
		t.Run(rel(dir, p), func(t *testing.T) {
			doc := readFile(t, p)
			attrs := readOptional(t, filepath.Join(filepath.Dir(p), ".zattrs"))
			for _, variant := range []string{"direct", "documents", "cp-names", "xarray-dims"} {
				attrsIn := attrs
				if variant == "xarray-dims" {
					attrsIn = withDims(t, attrs, rankOf(t, doc))
				}
				orig, err := ParseV2Array(doc, attrsIn)
				if err != nil {
					t.Fatal(err)
				}
				back := v2RoundTrip(t, orig, variant)
				if back == nil {
					return
				}
				zarray, zattrs, err := back.MarshalV2()
				if err != nil {
					t.Fatalf("%s: %v", variant, err)
				}
				if got, want := normalizeZarray(t, zarray), normalizeZarray(t, doc); !deepEqualJSON(got, want) {
					t.Errorf("%s: .zarray differs\n got: %s\nwant: %s", variant, zarray, doc)
				}
				if back.V2.DimensionSeparator != "/" || back.ChunkKey != (ChunkKeyEncoding{Name: "v2", Separator: "/"}) {
					t.Errorf("%s: dimension_separator %q, chunk keys %+v; want \"/\", the default encoding's", variant, back.V2.DimensionSeparator, back.ChunkKey)
				}
				if !bytes.Equal(fillOrZero(back), fillOrZero(orig)) {
					t.Errorf("%s: fill value %x, want %x", variant, back.FillValue, orig.FillValue)
				}
				if !jsonEqual(compact(zattrs), orig.Attributes) {
					t.Errorf("%s: .zattrs %s, want %s", variant, zattrs, orig.Attributes)
				}
				if !extensionsEqual(normalCodecs(orig.DataType, len(orig.Shape), back.Codecs), normalCodecs(orig.DataType, len(orig.Shape), orig.Codecs)) || !back.DataType.Equal(orig.DataType) {
					t.Errorf("%s: codecs %v (%v), want %v (%v)", variant, back.Codecs, back.DataType, orig.Codecs, orig.DataType)
				}
			}
			converted++
		})
	}
	t.Logf("%d of %d v2 fixture arrays round trip v2 -> v3 -> v2", converted, len(files))
	if converted != len(files) {
		t.Errorf("only %d of %d v2 fixture arrays round trip", converted, len(files))
	}
}

// v2RoundTrip converts a v2 array to v3 and back, one of the ways
// TestFixtureV2ToV3ToV2 lists; nil after a failure it reported.
func v2RoundTrip(t *testing.T, orig *ArrayMeta, variant string) *ArrayMeta {
	t.Helper()
	v3, err := orig.ToV3()
	if err != nil {
		t.Errorf("%s: ToV3: %v", variant, err)
		return nil
	}
	switch variant {
	case "documents", "xarray-dims":
		doc, err := v3.MarshalV3()
		if err != nil {
			t.Fatalf("%s: %v", variant, err)
		}
		if v3, _, err = ParseV3(doc); err != nil {
			t.Fatalf("%s: %v\n%s", variant, err, doc)
		}
		if variant == "xarray-dims" {
			want, _ := xarrayDimensions(orig.Attributes, len(orig.Shape))
			if !sameNames(v3.DimensionNames, want) || bytes.Contains(doc, []byte(XarrayDimensionsKey)) {
				t.Errorf("v3 dimension_names %v, want %v from the attribute, which must leave the attributes:\n%s", v3.DimensionNames, want, doc)
			}
		}
	case "cp-names":
		v3 = canonicalV3(t, v3)
	}
	back, err := v3.ToV2()
	if err != nil {
		t.Errorf("%s: ToV2: %v", variant, err)
		return nil
	}
	// ToV2's result is what reading its own documents gives
	zarray, zattrs, err := back.MarshalV2()
	if err != nil {
		t.Fatalf("%s: %v", variant, err)
	}
	if again, err := ParseV2Array(zarray, zattrs); err != nil || !reflect.DeepEqual(again, back) {
		t.Errorf("%s: ToV2's result is not what its documents read back as: %v\n%+v\n%+v", variant, err, back, again)
	}
	return back
}

func rankOf(t *testing.T, zarray []byte) int {
	var doc struct{ Shape []int }
	if err := json.Unmarshal(zarray, &doc); err != nil {
		t.Fatal(err)
	}
	return len(doc.Shape)
}

// withDims adds _ARRAY_DIMENSIONS (d0, d1, ...) after the attributes
// there are, as the last member.
func withDims(t *testing.T, attrs []byte, rank int) []byte {
	names := make([]string, rank)
	for i := range names {
		names[i] = fmt.Sprintf("d%d", i)
	}
	list, _ := json.Marshal(names)
	members, err := objectMembers(attrs)
	if err != nil {
		t.Fatal(err)
	}
	return marshalMembers(append(members, member{XarrayDimensionsKey, list}))
}

// normalCodecs names a chain's codecs as v2 reads them back: by numcodecs
// id with numcodecs' configuration (toNumcodecs: blosc's shuffle as a
// number, no typesize, no zstd "checksum": false), "bytes" without
// configuration for types with no byte order, and no identity transpose
// (order C).
func normalCodecs(dt dtype.DataType, rank int, codecs []Extension) []Extension {
	var out []Extension
	for _, c := range codecs {
		if c.Name == "transpose" {
			if order, err := transposeOrder(c, rank); err == nil && order == "C" {
				continue
			}
		}
		n := toNumcodecs(c)
		if c.Name == "bytes" && !dt.HasEndian() {
			n.Configuration = nil
		}
		out = append(out, n)
	}
	return out
}

// Every v3 fixture array converts to v2 and back to the same v3 metadata
// (codecs compared as normalCodecs names them; the chunk key encoding is
// then the default one whatever it was, since ToV3 writes that), or is
// refused, with ErrNoV2Form, for what v2 cannot hold: sharding, or a
// transpose that is neither C nor F order (zarrita.js' 3d.*.mixed:
// [1, 0, 2]).
func TestFixtureV3ToV2ToV3(t *testing.T) {
	dir := fixturesDir(t)
	var converted, refused, arrays int
	reasons := map[string]int{}
	for _, p := range metadataFiles(t, dir)["zarr.json"] {
		a, _, err := ParseV3(readFile(t, p))
		if err != nil {
			t.Fatalf("%s: %v", rel(dir, p), err)
		}
		if a == nil {
			continue
		}
		arrays++
		sharded := a.Codecs[0].Name == "sharding_indexed"
		v2, err := a.ToV2()
		if err != nil {
			mixed := strings.Contains(err.Error(), "is neither C nor F order")
			switch {
			case !errors.Is(err, ErrNoV2Form):
				t.Errorf("%s: %v", rel(dir, p), err)
			case sharded && strings.Contains(err.Error(), "sharding_indexed: Zarr v2 has no sharding"):
				reasons["sharded"]++
			case !sharded && mixed && a.Codecs[0].Name == "transpose":
				reasons["transpose neither C nor F"]++
			default:
				t.Errorf("%s: refused for another reason: %v", rel(dir, p), err)
			}
			refused++
			continue
		}
		if sharded {
			t.Errorf("%s: a sharded array converted to v2", rel(dir, p))
		}
		if want := a.ChunkKey.Separator; v2.V2.DimensionSeparator != want {
			t.Errorf("%s: dimension_separator %q, want %q", rel(dir, p), v2.V2.DimensionSeparator, want)
		}
		back, err := v2.ToV3()
		if err != nil {
			t.Errorf("%s: back to v3: %v", rel(dir, p), err)
			continue
		}
		if !reflect.DeepEqual(back.Shape, a.Shape) || !reflect.DeepEqual(back.ChunkShape, a.ChunkShape) ||
			!back.DataType.Equal(a.DataType) || !bytes.Equal(back.FillValue, a.FillValue) ||
			!sameNames(back.DimensionNames, a.DimensionNames) || !jsonEqual(back.Attributes, a.Attributes) ||
			!extensionsEqual(normalCodecs(a.DataType, len(a.Shape), back.Codecs), normalCodecs(a.DataType, len(a.Shape), a.Codecs)) {
			t.Errorf("%s: v3 -> v2 -> v3 differs:\n got %+v\nwant %+v", rel(dir, p), back, a)
		}
		converted++
	}
	t.Logf("%d of %d v3 fixture arrays round trip v3 -> v2 -> v3, %d refused %v", converted, arrays, refused, reasons)
	if converted+refused != arrays || converted == 0 {
		t.Errorf("%d converted, %d refused of %d", converted, refused, arrays)
	}
}

// v3Doc is a v3 array document with parts replaced: each pair is a field
// and its JSON value.
func v3Doc(t *testing.T, fields ...string) *ArrayMeta {
	t.Helper()
	doc := map[string]json.RawMessage{
		"zarr_format": json.RawMessage(`3`), "node_type": json.RawMessage(`"array"`),
		"shape": json.RawMessage(`[4, 6]`), "data_type": json.RawMessage(`"float32"`),
		"chunk_grid":         json.RawMessage(`{"name": "regular", "configuration": {"chunk_shape": [2, 3]}}`),
		"chunk_key_encoding": json.RawMessage(`{"name": "default", "configuration": {"separator": "/"}}`),
		"fill_value":         json.RawMessage(`0`),
		"codecs":             json.RawMessage(`[{"name": "bytes", "configuration": {"endian": "little"}}]`),
		"attributes":         json.RawMessage(`{}`),
	}
	for i := 0; i+1 < len(fields); i += 2 {
		doc[fields[i]] = json.RawMessage(fields[i+1])
	}
	b, _ := json.Marshal(doc)
	a, _, err := ParseV3(b)
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	return a
}

// v3 arrays as zarr-python 3 and zarrgw write them become the .zarray and
// .zattrs zarr-python 2 and xarray read: each case's documents, compared
// by meaning, with _ARRAY_DIMENSIONS first among the attributes.
func TestToV2(t *testing.T) {
	tests := []struct {
		name          string
		fields        []string
		zarray, zattr string
	}{
		{"big-endian F order blosc, named dimensions",
			[]string{"shape", `[2, 4, 6]`, "chunk_grid", `{"name": "regular", "configuration": {"chunk_shape": [1, 2, 3]}}`,
				"fill_value", `"NaN"`, "codecs", `[{"name": "transpose", "configuration": {"order": [2, 1, 0]}},
					{"name": "bytes", "configuration": {"endian": "big"}},
					{"name": "blosc", "configuration": {"cname": "zstd", "clevel": 5, "shuffle": "bitshuffle", "typesize": 4, "blocksize": 0}}]`,
				"dimension_names", `["t", "y", "x"]`, "attributes", `{"units": "K"}`},
			`{"zarr_format": 2, "shape": [2, 4, 6], "chunks": [1, 2, 3], "dtype": ">f4", "order": "F", "fill_value": "NaN",
				"compressor": {"id": "blosc", "cname": "zstd", "clevel": 5, "shuffle": 2, "blocksize": 0}, "filters": null,
				"dimension_separator": "/"}`,
			`{"_ARRAY_DIMENSIONS": ["t", "y", "x"], "units": "K"}`},
		{"filters before and after bytes, dot separator",
			[]string{"data_type", `"int16"`, "chunk_key_encoding", `{"name": "default", "configuration": {"separator": "."}}`,
				"codecs", `[{"name": "numcodecs.delta", "configuration": {"dtype": "<i2"}}, {"name": "bytes", "configuration": {"endian": "little"}},
					{"name": "numcodecs.shuffle", "configuration": {"elementsize": 2}}, {"name": "zstd", "configuration": {"level": 3, "checksum": false}}]`},
			`{"zarr_format": 2, "shape": [4, 6], "chunks": [2, 3], "dtype": "<i2", "order": "C", "fill_value": 0,
				"compressor": {"id": "zstd", "level": 3}, "filters": [{"id": "delta", "dtype": "<i2"}, {"id": "shuffle", "elementsize": 2}],
				"dimension_separator": "."}`,
			`{}`},
		{"v2 chunk keys kept, identity transpose is C",
			[]string{"chunk_key_encoding", `{"name": "v2", "configuration": {"separator": "."}}`, "data_type", `"uint8"`,
				"codecs", `[{"name": "transpose", "configuration": {"order": [0, 1]}}, {"name": "bytes"}, {"name": "gzip", "configuration": {"level": 5}}]`},
			`{"zarr_format": 2, "shape": [4, 6], "chunks": [2, 3], "dtype": "|u1", "order": "C", "fill_value": 0,
				"compressor": {"id": "gzip", "level": 5}, "filters": null, "dimension_separator": "."}`,
			`{}`},
		{"fixed-width bytes",
			[]string{"data_type", `{"name": "null_terminated_bytes", "configuration": {"length_bytes": 3}}`, "fill_value", `"YWI="`,
				"codecs", `[{"name": "bytes"}]`},
			`{"zarr_format": 2, "shape": [4, 6], "chunks": [2, 3], "dtype": "|S3", "order": "C", "fill_value": "YWI=",
				"compressor": null, "filters": null, "dimension_separator": "/"}`, `{}`},
		{"fixed-width unicode, big endian",
			[]string{"data_type", `{"name": "fixed_length_utf32", "configuration": {"length_bytes": 12}}`, "fill_value", `"ab"`,
				"codecs", `[{"name": "bytes", "configuration": {"endian": "big"}}]`},
			`{"zarr_format": 2, "shape": [4, 6], "chunks": [2, 3], "dtype": ">U3", "order": "C", "fill_value": "ab",
				"compressor": null, "filters": null, "dimension_separator": "/"}`, `{}`},
		{"raw bytes",
			[]string{"data_type", `{"name": "raw_bytes", "configuration": {"length_bytes": 2}}`, "fill_value", `"AQA="`,
				"codecs", `[{"name": "bytes"}]`},
			`{"zarr_format": 2, "shape": [4, 6], "chunks": [2, 3], "dtype": "|V2", "order": "C", "fill_value": "AQA=",
				"compressor": null, "filters": null, "dimension_separator": "/"}`, `{}`},
		{"string, one unnamed dimension",
			[]string{"data_type", `"string"`, "fill_value", `""`,
				"codecs", `[{"name": "vlen-utf8", "configuration": {}}, {"name": "numcodecs.zlib", "configuration": {"level": 1}}]`,
				"dimension_names", `[null, "x"]`},
			`{"zarr_format": 2, "shape": [4, 6], "chunks": [2, 3], "dtype": "|O", "order": "C", "fill_value": "",
				"compressor": {"id": "zlib", "level": 1}, "filters": [{"id": "vlen-utf8"}], "dimension_separator": "/"}`,
			`{"_ARRAY_DIMENSIONS": [null, "x"]}`},
		{"variable-length bytes, crc32c as the compressor",
			[]string{"data_type", `"bytes"`, "fill_value", `[]`,
				"codecs", `[{"name": "vlen-bytes", "configuration": {}}, {"name": "crc32c"}]`},
			`{"zarr_format": 2, "shape": [4, 6], "chunks": [2, 3], "dtype": "|O", "order": "C", "fill_value": "",
				"compressor": {"id": "crc32c"}, "filters": [{"id": "vlen-bytes"}], "dimension_separator": "/"}`, `{}`},
		{"datetime",
			[]string{"data_type", `{"name": "numpy.datetime64", "configuration": {"unit": "ns", "scale_factor": 1}}`, "fill_value", `"NaT"`,
				"codecs", `[{"name": "bytes", "configuration": {"endian": "little"}}]`},
			`{"zarr_format": 2, "shape": [4, 6], "chunks": [2, 3], "dtype": "<M8[ns]", "order": "C", "fill_value": -9223372036854775808,
				"compressor": null, "filters": null, "dimension_separator": "/"}`, `{}`},
		{"0-d, dimension_names []",
			[]string{"shape", `[]`, "chunk_grid", `{"name": "regular", "configuration": {"chunk_shape": []}}`, "dimension_names", `[]`,
				"attributes", `{"b": 1, "a": 2}`},
			`{"zarr_format": 2, "shape": [], "chunks": [], "dtype": "<f4", "order": "C", "fill_value": 0.0,
				"compressor": null, "filters": null, "dimension_separator": "/"}`,
			`{"_ARRAY_DIMENSIONS": [], "b": 1, "a": 2}`},
		{"an Extra field is dropped; an equal attribute is kept as it is",
			[]string{"ext.info", `{"must_understand": false, "x": 1}`, "dimension_names", `["y", "x"]`,
				"attributes", `{"a": 1, "_ARRAY_DIMENSIONS": ["y", "x"]}`},
			`{"zarr_format": 2, "shape": [4, 6], "chunks": [2, 3], "dtype": "<f4", "order": "C", "fill_value": 0.0,
				"compressor": null, "filters": null, "dimension_separator": "/"}`,
			`{"a": 1, "_ARRAY_DIMENSIONS": ["y", "x"]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := v3Doc(t, tc.fields...)
			m, err := a.ToV2()
			if err != nil {
				t.Fatal(err)
			}
			if m.Format != V2 || m.DimensionNames != nil || m.Extra != nil || m.V2 == nil {
				t.Errorf("not v2 metadata as ParseV2Array gives it: %+v", m)
			}
			zarray, zattrs, err := m.MarshalV2()
			if err != nil {
				t.Fatal(err)
			}
			assertSameDoc(t, zarray, []byte(tc.zarray))
			if !jsonEqual(compact(zattrs), compact([]byte(tc.zattr))) {
				t.Errorf(".zattrs %s, want %s", zattrs, tc.zattr)
			}
			if _, had := xarrayDimensions(a.Attributes, len(a.Shape)); a.DimensionNames != nil && !had {
				if members, _ := objectMembers(zattrs); len(members) == 0 || members[0].key != XarrayDimensionsKey {
					t.Errorf("_ARRAY_DIMENSIONS is not the first attribute: %s", zattrs)
				}
			}
			// and back: the v3 metadata it came from, but for the chunk
			// key encoding (ToV3 writes the default one)
			back, err := m.ToV3()
			if err != nil {
				t.Fatal(err)
			}
			if !sameNames(back.DimensionNames, a.DimensionNames) || !jsonEqual(back.Attributes, attrsWithout(a.Attributes, a.DimensionNames)) ||
				!back.DataType.Equal(a.DataType) || !bytes.Equal(back.FillValue, a.FillValue) ||
				!extensionsEqual(normalCodecs(a.DataType, len(a.Shape), back.Codecs), normalCodecs(a.DataType, len(a.Shape), a.Codecs)) {
				t.Errorf("back in v3:\n got %+v\nwant %+v", back, a)
			}
		})
	}
}

// attrsWithout is a v3 array's attributes as ToV3 gives them back after
// ToV2: without an _ARRAY_DIMENSIONS equal to its dimension names.
func attrsWithout(attrs json.RawMessage, names []*string) json.RawMessage {
	if got, ok := xarrayDimensions(attrs, len(names)); ok && sameNames(got, names) {
		attrs, _ = withoutMember(attrs, XarrayDimensionsKey)
	}
	return attrs
}

// What v2 cannot hold is refused, with ErrNoV2Form and an error that says
// what.
func TestToV2Refusals(t *testing.T) {
	sharded := `[{"name": "sharding_indexed", "configuration": {"chunk_shape": [1, 3],
		"codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
		"index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}], "index_location": "end"}}]`
	tests := []struct {
		name   string
		a      *ArrayMeta
		reason string
	}{
		{"sharding", v3Doc(t, "codecs", sharded), "sharding_indexed: Zarr v2 has no sharding"},
		{"storage transformer", func() *ArrayMeta {
			a := v3Doc(t)
			a.StorageTransformers = []Extension{{Name: "sharding", MustUnderstand: true}}
			return a
		}(), "storage transformers (sharding): Zarr v2 has none"},
		{"codec without a numcodecs id", v3Doc(t, "codecs", `[{"name": "bytes", "configuration": {"endian": "little"}},
			{"name": "https://example.org/codecs/squash"}]`), `codec "https://example.org/codecs/squash" has no Zarr v2 (numcodecs) id`},
		{"plugin codec", v3Doc(t, "codecs", `[{"name": "bitshave", "configuration": {"keepbits": 3}},
			{"name": "bytes", "configuration": {"endian": "little"}}]`), `codec "bitshave" has no Zarr v2 (numcodecs) id`},
		{"transpose neither C nor F", v3Doc(t, "shape", `[2, 4, 6]`, "chunk_grid", `{"name": "regular", "configuration": {"chunk_shape": [1, 2, 3]}}`,
			"codecs", `[{"name": "transpose", "configuration": {"order": [1, 0, 2]}}, {"name": "bytes", "configuration": {"endian": "little"}}]`),
			"transpose order [1 0 2] is neither C nor F order"},
		{"compressor before bytes", v3Doc(t, "codecs", `[{"name": "gzip", "configuration": {"level": 1}},
			{"name": "bytes", "configuration": {"endian": "little"}}]`), `codec "gzip" where the array->bytes codec belongs`},
		{"raw bits", v3Doc(t, "data_type", `"r16"`, "fill_value", `[0, 0]`, "codecs", `[{"name": "bytes"}]`),
			"data type r16: Zarr v2 (numpy) has no raw bits type"},
		{"dimension names against the attribute", v3Doc(t, "dimension_names", `["y", "x"]`, "attributes", `{"_ARRAY_DIMENSIONS": ["lat", "lon"]}`),
			`dimension_names ["y","x"] disagree with the attribute _ARRAY_DIMENSIONS ["lat","lon"]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.a.ToV2()
			if !errors.Is(err, ErrNoV2Form) || !strings.Contains(err.Error(), tc.reason) {
				t.Fatalf("ToV2: %v; want ErrNoV2Form saying %q", err, tc.reason)
			}
			if !strings.HasPrefix(err.Error(), "no Zarr v2 form: ") {
				t.Errorf("error %q does not start with what it is", err)
			}
		})
	}
	// a rectilinear grid has no v2 form: it is re-chunked regularly or refused
	doc := `{"zarr_format": 3, "node_type": "array", "shape": [6], "data_type": "int8",
		"chunk_grid": {"name": "rectilinear", "configuration": {"kind": "inline", "chunk_shapes": [[2, 4]]}},
		"chunk_key_encoding": {"name": "default"}, "fill_value": 0, "codecs": [{"name": "bytes"}]}`
	a, _, err := ParseV3([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.ToV2(); !errors.Is(err, ErrNoV2Form) || !strings.Contains(err.Error(), "chunk grid rectilinear: Zarr v2 has only regular chunks") {
		t.Errorf("rectilinear grid: %v", err)
	}
}

// A v2 array is returned as it is, a copy; groups keep their attributes
// and lose consolidated metadata and Extra fields.
func TestToV2AsItIsAndGroups(t *testing.T) {
	a, err := ParseV2Array([]byte(`{"zarr_format":2,"shape":[4],"chunks":[2],"dtype":"<i4","compressor":null,"fill_value":null,
		"filters":null,"order":"C","node_type":"array"}`), []byte(`{"_ARRAY_DIMENSIONS":["x"]}`))
	if err != nil {
		t.Fatal(err)
	}
	m, err := a.ToV2()
	if err != nil || !reflect.DeepEqual(m, a) || m == a || &m.Shape[0] == &a.Shape[0] || m.V2 == a.V2 {
		t.Fatalf("ToV2 of a v2 array: %+v (%v), not a copy of %+v", m, err, a)
	}
	g := &GroupMeta{Format: V3, Attributes: json.RawMessage(`{"title":"t"}`), Consolidated: &Consolidated{},
		Extra: map[string]json.RawMessage{"x": json.RawMessage(`{"must_understand":false}`)}}
	if v2 := g.ToV2(); v2.Format != V2 || string(v2.Attributes) != `{"title":"t"}` || v2.Consolidated != nil || v2.Extra != nil {
		t.Fatalf("group: %+v", v2)
	}
	if v2 := (&GroupMeta{Format: V3}).ToV2(); string(v2.Attributes) != `{}` {
		t.Fatalf("group without attributes: %s", v2.Attributes)
	}
}

// ToV3 moves _ARRAY_DIMENSIONS into dimension_names, the other attributes
// kept in their order; an attribute that cannot be the names (wrong
// length, not a list of strings) or that says otherwise than names the
// array has stays where it is.
func TestToV3XarrayDimensions(t *testing.T) {
	const zarray = `{"zarr_format":2,"shape":[4,6],"chunks":[2,3],"dtype":"<f8","compressor":null,"fill_value":0,"filters":null,"order":"C"}`
	tests := []struct {
		attrs, wantAttrs, wantNames string
	}{
		{`{"z":1,"_ARRAY_DIMENSIONS":["y","x"],"a":2}`, `{"z":1,"a":2}`, `["y","x"]`},
		{`{"_ARRAY_DIMENSIONS":[null,"x"]}`, `{}`, `[null,"x"]`},
		{`{"_ARRAY_DIMENSIONS":["x"],"a":2}`, `{"_ARRAY_DIMENSIONS":["x"],"a":2}`, `null`},
		{`{"_ARRAY_DIMENSIONS":"yx"}`, `{"_ARRAY_DIMENSIONS":"yx"}`, `null`},
		{`{"_ARRAY_DIMENSIONS":[1,2]}`, `{"_ARRAY_DIMENSIONS":[1,2]}`, `null`},
	}
	for _, tc := range tests {
		a, err := ParseV2Array([]byte(zarray), []byte(tc.attrs))
		if err != nil {
			t.Fatal(err)
		}
		m, err := a.ToV3()
		if err != nil {
			t.Fatal(err)
		}
		names, _ := json.Marshal(m.DimensionNames)
		if string(m.Attributes) != tc.wantAttrs || string(names) != tc.wantNames {
			t.Errorf("%s: attributes %s, dimension_names %s; want %s, %s", tc.attrs, m.Attributes, names, tc.wantAttrs, tc.wantNames)
		}
		if string(a.Attributes) != string(compact([]byte(tc.attrs))) {
			t.Errorf("ToV3 changed its receiver's attributes: %s", a.Attributes)
		}
	}
	// a 0-d array's []
	s, err := ParseV2Array([]byte(`{"zarr_format":2,"shape":[],"chunks":[],"dtype":"<f8","compressor":null,"fill_value":0,"filters":null,"order":"C"}`),
		[]byte(`{"_ARRAY_DIMENSIONS":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	if m, err := s.ToV3(); err != nil || m.DimensionNames == nil || len(m.DimensionNames) != 0 || string(m.Attributes) != `{}` {
		t.Errorf("0-d: %+v (%v)", m, err)
	}
	// names the array already has win; an attribute that disagrees stays
	b := v3Doc(t, "dimension_names", `["y","x"]`, "attributes", `{"_ARRAY_DIMENSIONS":["lat","lon"]}`)
	if m, err := b.ToV3(); err != nil || *m.DimensionNames[0] != "y" || !strings.Contains(string(m.Attributes), "lat") {
		t.Errorf("disagreeing attribute: %+v (%v)", m, err)
	}
}

// MarshalV2 writes dimension names as _ARRAY_DIMENSIONS, in .zattrs and
// in consolidated metadata alike, so an array created as v2 with names
// (hierarchy.CreateArray, zarrgw create) keeps them for xarray.
func TestMarshalV2DimensionNames(t *testing.T) {
	a := v3Doc(t, "dimension_names", `["y","x"]`, "attributes", `{"units":"K"}`)
	a.Format, a.ChunkKey = V2, ChunkKeyEncoding{Name: "v2", Separator: "."}
	_, zattrs, err := a.MarshalV2()
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n    \"_ARRAY_DIMENSIONS\": [\n        \"y\",\n        \"x\"\n    ],\n    \"units\": \"K\"\n}"; string(zattrs) != want {
		t.Errorf(".zattrs\n%s\nwant\n%s", zattrs, want)
	}
	doc, err := MarshalV2Consolidated(nil, &Consolidated{Arrays: map[string]*ArrayMeta{"t": a}, Groups: map[string]*GroupMeta{"": {Format: V2}}})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(compact(doc), []byte(`"t/.zattrs":{"_ARRAY_DIMENSIONS":["y","x"],"units":"K"}`)) {
		t.Errorf(".zmetadata lacks the names:\n%s", doc)
	}
}
