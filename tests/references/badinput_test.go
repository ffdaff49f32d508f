package references

import (
	"path/filepath"
	"strings"
	"testing"
)

// A reference set with a malformed entry, or a template that does not
// expand, fails `zarrgw cat` naming the set and
// the key at fault; nothing is printed as values.
func TestBadReferenceSets(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "data.bin"), "0123456789")
	meta := `".zgroup": "{\"zarr_format\":2}", "x/.zarray": "{\"zarr_format\":2,\"shape\":[4],\"chunks\":[2],\"dtype\":\"|u1\",\"compressor\":null,\"fill_value\":0,\"order\":\"C\",\"filters\":null}"`
	for name, tc := range map[string]struct{ doc, want string }{
		"malformed": {`{` + meta + `, "x/0": ["data.bin", 0], "x/1": ["data.bin", 2, 2]}`,
			`key "x/0": malformed entry: 2 elements`},
		"offset": {`{` + meta + `, "x/0": ["data.bin", "zero", 2], "x/1": ["data.bin", 2, 2]}`,
			`key "x/0": malformed entry: offset "zero"`},
		"template": {`{"version": 1, "templates": {"u": "data.bin"}, "refs": {` + meta + `, "x/0": ["{{v}}", 0, 2], "x/1": ["{{u}}", 2, 2]}}`,
			`key "x/0"`},
		"gen": {`{"version": 1, "gen": [{"key": "x/{{i}}", "url": "data.bin", "offset": "{{i * }}", "length": 2, "dimensions": {"i": 2}}], "refs": {` + meta + `}}`,
			`gen entry 0 (key "x/{{i}}")`},
	} {
		t.Run(name, func(t *testing.T) {
			write(t, filepath.Join(dir, name+".json"), tc.doc)
			write(t, filepath.Join(dir, name+".hcl"), `store "references" "x" {
  references = "./`+name+`.json"
}

dataset "x" {
  store     = store.references.x
  read_only = true
}
`)
			out, msg, err := cat(dir, nil, name+".hcl", "x", "x")
			if err == nil || len(out) > 0 || !strings.Contains(msg, tc.want) || !strings.Contains(msg, name+".json") {
				t.Errorf("cat over %s.json: exit %v, %d bytes out, stderr:\n%s\nwant it to name %s.json and %s", name, err, len(out), msg, name, tc.want)
			}
		})
	}
}
