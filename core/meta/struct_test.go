package meta

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

const structDoc = `{"zarr_format": 3, "node_type": "array", "shape": [4], "data_type": %s,
 "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
 "chunk_key_encoding": {"name": "default"}, "fill_value": %s,
 "codecs": [{"name": "bytes", "configuration": {"endian": "big"}}]}`

// The struct type and its legacy structured form read as the same type,
// and a rewrite writes the struct form with an object fill value.
func TestStructDataType(t *testing.T) {
	canonical := `{"name": "struct", "configuration": {"fields": [{"name": "p", "data_type": {"name": "struct", "configuration": {"fields": [{"name": "x", "data_type": "float32"}]}}}, {"name": "when", "data_type": {"name": "numpy.datetime64", "configuration": {"unit": "s", "scale_factor": 1}}}]}}`
	legacy := `{"name": "structured", "configuration": {"fields": [["p", {"name": "structured", "configuration": {"fields": [["x", "float32"]]}}], ["when", {"name": "numpy.datetime64", "configuration": {"unit": "s", "scale_factor": 1}}]]}}`
	a, _, err := ParseV3([]byte(sprintf(structDoc, canonical, `{"p": {"x": 1.5}, "when": "NaT"}`)))
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := ParseV3([]byte(sprintf(structDoc, legacy, `"AADAPwAAAAAAAACA"`)))
	if err != nil {
		t.Fatal(err)
	}
	if !a.DataType.Equal(b.DataType) || string(a.FillValue) != string(b.FillValue) || a.DataType.Size != 12 {
		t.Fatalf("struct %v fill % x and structured %v fill % x differ (or size %d is not 12)", a.DataType, a.FillValue, b.DataType, b.FillValue, a.DataType.Size)
	}
	doc, err := b.MarshalV3()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"name": "struct"`, `"fill_value": {`, `"when": "NaT"`} {
		if !strings.Contains(compactSpaces(doc), want) {
			t.Errorf("rewritten legacy array lacks %s:\n%s", want, doc)
		}
	}
	for dt, msg := range map[string]string{
		`{"name": "struct", "configuration": {"fields": []}}`:                                                                       "at least one field",
		`{"name": "struct", "configuration": {"fields": [{"name": "s", "data_type": "string"}]}}`:                                   `"s": data type string has no fixed size`,
		`{"name": "struct", "configuration": {"fields": [{"name": "a", "data_type": "int8", "x": 1}]}}`:                             `unknown key "x"`,
		`{"name": "struct", "configuration": {"fields": [{"name": "a", "data_type": "int8"}], "align": true}}`:                      `unknown key "align"`,
		`{"name": "struct", "configuration": {"fields": [{"name": "a", "data_type": "int8"}, {"name": "a", "data_type": "int8"}]}}`: `name "a" given twice`,
	} {
		if _, _, err := ParseV3([]byte(sprintf(structDoc, dt, `0`))); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want an error saying %q", dt, err, msg)
		}
	}
}

// A v2 structured dtype (zarr-python 2.13's) reads and writes back as it
// was; its subarray field has no v3 form, which ToV3 says.
func TestStructV2(t *testing.T) {
	zarray := `{"zarr_format": 2, "shape": [10], "chunks": [5], "dtype": [["x", ">f4"], ["coords", ">i4", [3]]],
	 "compressor": null, "fill_value": "AAAAAAAAAAEAAAACAAAAAw==", "order": "C", "filters": null}`
	a, err := ParseV2Array([]byte(zarray), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := a.FillValue; string(got) != "\x00\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00" {
		t.Errorf("fill % x: want the big-endian base64 read into little-endian fields (0, [1, 2, 3])", got)
	}
	out, _, err := a.MarshalV2()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"AAAAAAAAAAEAAAACAAAAAw=="`, `">i4"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("rewritten .zarray lacks %s:\n%s", want, out)
		}
	}
	if _, err := a.ToV3(); err == nil || !strings.Contains(err.Error(), "no Zarr v3 form") {
		t.Errorf("ToV3 of a subarray field: %v, want refused", err)
	}
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// compactSpaces drops the indentation of a written document, so that
// its members read as `"key": value`.
func compactSpaces(doc []byte) string {
	var b bytes.Buffer
	if err := json.Indent(&b, doc, "", ""); err != nil {
		return string(doc)
	}
	return strings.ReplaceAll(b.String(), "\n", "")
}
