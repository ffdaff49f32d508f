package meta

import (
	"github.com/zarrgw/zarrgw/tests/support/fixtures"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/zarrgw/zarrgw/core/dtype"
)

// addFixtureSeeds adds every fixture document with the given base name.
// Missing fixtures only shrink the corpus; the hand seeds still run.
func addFixtureSeeds(f *testing.F, base string) {
	dir, err := fixtures.Find()
	if err != nil {
		return
	}
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == base {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
		return nil
	})
}

// FuzzParseV3: parsing never panics, and what parses is written and read
// back to the same metadata.
func FuzzParseV3(f *testing.F) {
	addFixtureSeeds(f, "zarr.json")
	for _, s := range []string{
		v3Array, draftEntry, `{}`, `{"zarr_format":3,"node_type":"group"}`,
		edit(v3Array, `"fill_value": "NaN"`, `"fill_value": NaN`),
		edit(v3Array, `"float32"`, `{"name": "fixed_length_utf32", "configuration": {"length_bytes": 8}}`, `"NaN"`, `"ab"`),
		edit(v3Array, `"float32"`, `"r16"`, `"NaN"`, `[1, 2]`),
		edit(v3Array, `"float32"`, `{"name": "struct", "configuration": {"fields": [{"name": "a", "data_type": "int16"}, {"name": "b", "data_type": {"name": "structured", "configuration": {"fields": [["c", "float32"]]}}}]}}`, `"NaN"`, `{"a": -1, "b": {"c": "NaN"}}`),
		`{"zarr_format":3,"node_type":"group","consolidated_metadata":{"kind":"inline","metadata":{"a":{"zarr_format":3,"node_type":"group"}}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		a, g, err := ParseV3(doc)
		if err != nil {
			return
		}
		out, err := marshalNode(a, g)
		if err != nil {
			t.Fatalf("parsed but cannot be written: %v\n%s", err, doc)
		}
		a2, g2, err := ParseV3(out)
		if err != nil {
			t.Fatalf("written document does not parse: %v\n%s", err, out)
		}
		if !reflect.DeepEqual(a, a2) || !reflect.DeepEqual(g, g2) {
			t.Fatalf("round trip differs\n in: %s\nout: %s", doc, out)
		}
	})
}

// FuzzParseV2Array: as FuzzParseV3, for .zarray documents.
func FuzzParseV2Array(f *testing.F) {
	addFixtureSeeds(f, ".zarray")
	for _, s := range []string{
		v2Array, `{}`,
		`{"zarr_format": 2, "shape": [4], "chunks": [2], "dtype": "|O", "order": "C", "filters": [{"id": "vlen-utf8"}], "compressor": null, "fill_value": 0}`,
		`{"zarr_format": 2, "shape": [], "chunks": [], "dtype": "<U3", "fill_value": "ab"}`,
		`{"zarr_format": 2, "shape": [2], "chunks": [2], "dtype": "<f2", "fill_value": NaN}`,
		`{"zarr_format": 2, "shape": [2], "chunks": [2], "dtype": [["a", ">i2"], ["b", [["c", ">f4", [2]]]]], "fill_value": "AAEAAAAAAAAAAA=="}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		a, err := ParseV2Array(doc, nil)
		if err != nil {
			return
		}
		zarray, zattrs, err := a.MarshalV2()
		if err != nil {
			t.Fatalf("parsed but cannot be written: %v\n%s", err, doc)
		}
		a2, err := ParseV2Array(zarray, zattrs)
		if err != nil {
			t.Fatalf("written document does not parse: %v\n%s", err, zarray)
		}
		if !reflect.DeepEqual(a, a2) {
			t.Fatalf("round trip differs\n in: %s\nout: %s", doc, zarray)
		}
	})
}

// FuzzParseDraftArray: parsing never panics; the draft layout cannot be
// written, so what parses is written as v3 (default chunk keys, the
// default fill for a null one) and must read back the same.
func FuzzParseDraftArray(f *testing.F) {
	for _, s := range []string{
		draftArray, draftGroup, draftEntry, `{}`,
		edit(draftArray, `"<f4"`, `">U2"`, `"NaN"`, `"x"`),
		edit(draftArray, `"<f4"`, `"<M8[ns]"`, `"NaN"`, `"NaT"`, `"C"`, `"F"`),
		edit(draftArray, `"fill_value": "NaN"`, `"fill_value": null, "storage_transformers": [{"extension": "u", "type": "indexed", "configuration": {}}]`),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		a, err := ParseDraftArray(doc)
		if err != nil {
			return
		}
		if a.Format != V3Draft || a.ChunkKey.Name != "draft" || a.Validate() != nil {
			t.Fatalf("inconsistent result %+v", a)
		}
		v3 := *a
		v3.Format, v3.ChunkKey = V3, ChunkKeyEncoding{Name: "default", Separator: "/"}
		if v3.FillValue == nil {
			v3.FillValue = dtype.DefaultFill(v3.DataType)
		}
		out, err := v3.MarshalV3()
		if err != nil {
			t.Fatalf("parsed but cannot be written as v3: %v\n%s", err, doc)
		}
		back, _, err := ParseV3(out)
		if err != nil {
			t.Fatalf("written document does not parse: %v\n%s", err, out)
		}
		if !reflect.DeepEqual(&v3, back) {
			t.Fatalf("round trip differs\n in: %s\nout: %s", doc, out)
		}
	})
}
