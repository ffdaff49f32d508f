package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/zarrgw/zarrgw/tests/support/fixtures"
)

// TestRegistryCodecFixtureCases: every cast_value and scale_offset case of
// zarr-python's conformance documents (shared/fixtures/zarr-metadata), as
// the first codec of a float64 array with fill value 0 and no chunk
// written, is accepted by inspect and read by cat as fill values.
func TestRegistryCodecFixtureCases(t *testing.T) {
	fx := fixtures.Dir(t)
	dir := t.TempDir()
	count := 0
	for _, c := range []string{"cast_value", "scale_offset"} {
		b, err := os.ReadFile(filepath.Join(fx, "zarr-metadata", "v3", "codec", c, "cases.json"))
		if err != nil {
			t.Fatal(err)
		}
		var cases map[string]json.RawMessage
		if err := json.Unmarshal(b, &cases); err != nil {
			t.Fatalf("%s cases: %v", c, err)
		}
		names := make([]string, 0, len(cases))
		for n := range cases {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			doc := `{"zarr_format":3,"node_type":"array","shape":[3],"data_type":"float64",
"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[2]}},"chunk_key_encoding":{"name":"default"},
"fill_value":0,"codecs":[` + string(cases[n]) + `,{"name":"bytes","configuration":{"endian":"little"}}]}`
			arr := filepath.Join(dir, c+"-"+n)
			if err := os.MkdirAll(arr, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(arr, "zarr.json"), []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, errOut, code := run(t, dir, "inspect", arr); code != 0 {
				t.Errorf("%s %s: inspect: exit %d: %s", c, n, code, errOut)
				continue
			}
			out, errOut, code := run(t, dir, "cat", arr, "--format", "json")
			var got struct {
				Data []float64 `json:"data"`
			}
			if code != 0 || json.Unmarshal([]byte(out), &got) != nil {
				t.Errorf("%s %s: cat: exit %d: %s%s", c, n, code, out, errOut)
				continue
			}
			if !reflect.DeepEqual(got.Data, []float64{0, 0, 0}) {
				t.Errorf("%s %s: cat read %v, want the fill value 0 three times", c, n, got.Data)
				continue
			}
			count++
		}
	}
	if count != 14 {
		t.Errorf("%d cases read as fill values, want the 7 cast_value and 7 scale_offset cases", count)
	}
}
