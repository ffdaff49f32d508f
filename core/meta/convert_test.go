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
	fixed, err := ParseV2Array([]byte(`{"zarr_format":2,"shape":[2],"chunks":[2],"dtype":"<U3","compressor":null,
		"fill_value":"","filters":null,"order":"C"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fixed.ToV3(); err == nil || !strings.Contains(err.Error(), "U3") {
		t.Fatalf("fixed-width unicode to v3: %v", err)
	}
	var g GroupMeta
	g.Attributes = json.RawMessage(`{"a":1}`)
	if v3 := g.ToV3(); v3.Format != V3 || string(v3.Attributes) != `{"a":1}` {
		t.Fatalf("group: %+v", v3)
	}
}
