package meta

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// A v2 array becomes a v3 one that reads the same: same codecs, default
// chunk keys, dimension names from xarray's attribute, a zero fill value
// for null; and the v3 document it writes parses back to the same.
func TestToV3(t *testing.T) {
	a, err := ParseV2Array([]byte(`{"zarr_format":2,"shape":[4,6],"chunks":[2,3],"dtype":">i4","compressor":{"id":"zlib","level":1},
		"fill_value":null,"filters":null,"order":"C","dimension_separator":"."}`), []byte(`{"_ARRAY_DIMENSIONS":["y","x"],"units":"K"}`))
	if err != nil {
		t.Fatal(err)
	}
	m, err := a.ToV3()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := m.MarshalV3()
	if err != nil {
		t.Fatal(err)
	}
	back, _, err := ParseV3(doc)
	if err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, doc); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"chunk_key_encoding":{"name":"default"`, `"dimension_names":["y","x"]`, `"fill_value":0`, `"endian":"big"`, `"units":"K"`} {
		if !strings.Contains(compact.String(), want) {
			t.Errorf("v3 document lacks %s:\n%s", want, doc)
		}
	}
	if back.DataType != a.DataType || len(back.Codecs) != len(a.Codecs) {
		t.Errorf("round trip: %+v vs %+v", back, a)
	}
	dt, err := ParseV2Array([]byte(`{"zarr_format":2,"shape":[2],"chunks":[2],"dtype":"<M8[ns]","compressor":null,
		"fill_value":null,"filters":null,"order":"C"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	// zarr-python 3's form of numpy's datetime64 (its migration writes the
	// same): the extension object with the unit, the null fill as zero.
	v3dt, err := dt.ToV3()
	if err != nil {
		t.Fatalf("datetime to v3: %v", err)
	}
	doc, err = v3dt.MarshalV3()
	if err != nil {
		t.Fatal(err)
	}
	compact.Reset()
	if err := json.Compact(&compact, doc); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"data_type":{"name":"numpy.datetime64","configuration":{"unit":"ns","scale_factor":1}}`, `"fill_value":0`} {
		if !strings.Contains(compact.String(), want) {
			t.Errorf("datetime's v3 document lacks %s:\n%s", want, doc)
		}
	}
	sub, err := ParseV2Array([]byte(`{"zarr_format":2,"shape":[2],"chunks":[2],"dtype":[["xy","<i4",[2]]],"compressor":null,
		"fill_value":null,"filters":null,"order":"C"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sub.ToV3(); err == nil || !strings.Contains(err.Error(), "subarray") {
		t.Fatalf("struct with a subarray field to v3: %v", err)
	}
	var g GroupMeta
	g.Attributes = json.RawMessage(`{"a":1}`)
	if v3 := g.ToV3(); v3.Format != V3 || string(v3.Attributes) != `{"a":1}` {
		t.Fatalf("group: %+v", v3)
	}
}

// numpy's fixed-width types become zarr-python 3's extension types, with
// the fill value and the bytes codec it writes (zarr-python d44f9f9):
// data types from src/zarr/core/dtype/npy/bytes.py:383-390 (S),
// bytes.py:784-786 (V) and string.py:249-253 (U); fill values from
// bytes.py:481-501 (S: base64 without trailing NULs), bytes.py:878-898
// (V: base64 of every byte) and string.py:310-326 (U: the string); the
// bytes codec with the v2 byte order for U and none for S and V, as
// src/zarr/metadata/migrate_v3.py:200-204 converts v2 metadata.
func TestToV3FixedWidth(t *testing.T) {
	tests := []struct{ dtype, fill, want string }{
		{"|S3", `"YWI="`, `{"data_type": {"name": "null_terminated_bytes", "configuration": {"length_bytes": 3}},
			"fill_value": "YWI=", "codecs": [{"name": "bytes"}]}`},
		{"|S1", "0", `{"data_type": {"name": "null_terminated_bytes", "configuration": {"length_bytes": 1}},
			"fill_value": "", "codecs": [{"name": "bytes"}]}`},
		{"<U3", `"ab"`, `{"data_type": {"name": "fixed_length_utf32", "configuration": {"length_bytes": 12}},
			"fill_value": "ab", "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}`},
		{">U2", "null", `{"data_type": {"name": "fixed_length_utf32", "configuration": {"length_bytes": 8}},
			"fill_value": "", "codecs": [{"name": "bytes", "configuration": {"endian": "big"}}]}`},
		{"|V2", `"AQA="`, `{"data_type": {"name": "raw_bytes", "configuration": {"length_bytes": 2}},
			"fill_value": "AQA=", "codecs": [{"name": "bytes"}]}`},
	}
	for _, tc := range tests {
		v2, err := ParseV2Array([]byte(`{"zarr_format":2,"shape":[4],"chunks":[2],"dtype":"`+tc.dtype+`","compressor":null,
			"fill_value":`+tc.fill+`,"filters":null,"order":"C"}`), nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.dtype, err)
		}
		m, err := v2.ToV3()
		if err != nil {
			t.Fatalf("%s: %v", tc.dtype, err)
		}
		doc, err := m.MarshalV3()
		if err != nil {
			t.Fatalf("%s: %v", tc.dtype, err)
		}
		var got, want map[string]any
		if err := json.Unmarshal(doc, &got); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(tc.want), &want); err != nil {
			t.Fatal(err)
		}
		for key, w := range want {
			if !deepEqualJSON(got[key], w) {
				t.Errorf("%s: %s is %v, zarr-python 3 writes %v", tc.dtype, key, got[key], w)
			}
		}
		back, _, err := ParseV3(doc)
		if err != nil || !back.DataType.Equal(v2.DataType) || !bytes.Equal(back.FillValue, m.FillValue) {
			t.Errorf("%s: read back as %+v fill %x (%v), want %+v fill %x", tc.dtype, back, back.FillValue, err, v2.DataType, m.FillValue)
		}
	}
}
