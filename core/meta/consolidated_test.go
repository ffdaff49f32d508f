package meta

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// zmetadata is the digest's .zmetadata example, with a real array.
const zmetadata = `{"metadata": {
   ".zgroup": {"zarr_format": 2},
   ".zattrs": {"hello": "world"},
   "foo/.zgroup": {"zarr_format": 2},
   "foo/bar/.zarray": {"chunks": [2, 3], "compressor": null, "dtype": "<f4", "fill_value": "NaN",
      "filters": null, "order": "C", "shape": [5, 7], "zarr_format": 2},
   "foo/bar/.zattrs": {"units": "m"},
   "orphan/.zattrs": {"x": 1},
   "zarr.json": {"ignored": true}},
 "zarr_consolidated_format": 1}`

func TestParseV2Consolidated(t *testing.T) {
	c, err := ParseV2Consolidated([]byte(zmetadata))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Groups) != 2 || len(c.Arrays) != 1 {
		t.Fatalf("groups %v arrays %v", c.Groups, c.Arrays)
	}
	root, foo, bar := c.Groups[""], c.Groups["foo"], c.Arrays["foo/bar"]
	if root == nil || string(root.Attributes) != `{"hello":"world"}` || foo == nil || string(foo.Attributes) != "{}" {
		t.Errorf("groups %+v %+v", root, foo)
	}
	if bar == nil || !reflect.DeepEqual(bar.Shape, []int{5, 7}) || string(bar.Attributes) != `{"units":"m"}` {
		t.Errorf("array %+v", bar)
	}

	out, err := MarshalV2Consolidated(root, &Consolidated{Arrays: c.Arrays, Groups: map[string]*GroupMeta{"foo": foo}})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Metadata map[string]json.RawMessage
		Format   int `json:"zarr_consolidated_format"`
	}
	if err := json.Unmarshal(out, &doc); err != nil || doc.Format != 1 {
		t.Fatalf("%v %s", err, out)
	}
	var keys []string
	for k := range doc.Metadata {
		keys = append(keys, k)
	}
	want := []string{".zattrs", ".zgroup", "foo/.zattrs", "foo/.zgroup", "foo/bar/.zarray", "foo/bar/.zattrs"}
	if !sameSet(keys, want) {
		t.Errorf("keys %v, want %v", keys, want)
	}
	if !strings.HasPrefix(string(out), "{\n    \"metadata\": {\n        \".zattrs\"") {
		t.Errorf("not sorted / indented by 4:\n%s", out)
	}
	c2, err := ParseV2Consolidated(out)
	if err != nil || !reflect.DeepEqual(c, c2) {
		t.Errorf("round trip: %v", err)
	}
}

func sameSet(a, b []string) bool {
	m := map[string]int{}
	for _, s := range a {
		m[s]++
	}
	for _, s := range b {
		m[s]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return len(a) == len(b)
}

func TestParseV2ConsolidatedErrors(t *testing.T) {
	tests := map[string]string{
		`{"metadata": {}, "zarr_consolidated_format": 2}`: "zarr_consolidated_format: unsupported value 2",
		`{"metadata": {}}`:                                "missing zarr_consolidated_format",
		`{"zarr_consolidated_format": 1}`:                 "missing metadata",
		`{"metadata": [], "zarr_consolidated_format": 1}`: "metadata: not a JSON object",
		`{"metadata": {"a/.zgroup": {"zarr_format": 2}, "a/.zarray": {}}, "zarr_consolidated_format": 1}`: `"a": both .zarray and .zgroup`,
		`{"metadata": {"../a/.zgroup": {"zarr_format": 2}}, "zarr_consolidated_format": 1}`:               `invalid path "../a"`,
		`{"metadata": {"a/.zarray": {"zarr_format": 2, "shape": [1]}}, "zarr_consolidated_format": 1}`:    `"a": .zarray: missing chunks`,
		`{"metadata": {"a/.zgroup": {"zarr_format": 2}, "a/.zattrs": 5}, "zarr_consolidated_format": 1}`:  `"a": .zattrs: not a JSON object`,
		`{"metadata": {".zgroup": {"zarr_format": 2}}, "zarr_consolidated_format": 1`:                     "invalid JSON",
	}
	for doc, want := range tests {
		_, err := ParseV2Consolidated([]byte(doc))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), ".zmetadata: ") {
			t.Errorf("%s: error %v, want %q", doc, err, want)
		}
	}
}

func TestValidateNodeName(t *testing.T) {
	for _, ok := range []string{"foo", "a.b", "A-b_c", "é", "...a", "_x", "zarr.json.bak", "with space"} {
		if err := ValidateNodeName(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "a/b", "/", ".", "..", "...", "__x", "__zarr", "zarr.json", "\xff"} {
		if err := ValidateNodeName(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
