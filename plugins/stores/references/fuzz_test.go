package references

import (
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
)

// fuzzLimits keep each input's work small: the budget, not the input's
// size, bounds what a set makes.
var fuzzLimits = Limits{Generated: 10_000, Bytes: 1 << 20}

// Any bytes parse into a set or an error, never a panic, a stack
// overflow or endless work: what a set holds is bounded by its own size
// and its limits, and every reference's range is one a reader can serve.
func FuzzParseJSON(f *testing.F) {
	for _, seed := range []string{
		`{".zgroup": "{\"zarr_format\": 2}", "x/0": ["s3://bucket/file.nc", 294094376, 73825960], "x/1": ["https://host/whole.bin"], "x/2": "base64:AAEC/w=="}`,
		`{"version": 1, "templates": {"u": "server.domain/path", "f": "s3://bucket/data/"}, "refs": {"key0": "data", "key2": ["http://{{u}}", 10000, 100]},
		  "gen": [{"key": "gen_key{{i}}", "url": "http://{{u}}_{{i}}", "offset": "{{(i + 1) * 1000}}", "length": "1000", "dimensions": {"i": {"stop": 5}}},
		          {"key": "g/{{a}}.{{b}}", "url": "{{f}}g.bin", "offset": "{{ (a * 3 + b) * 16 }}", "length": 16, "dimensions": {"a": [0, 1], "b": {"start": 0, "stop": 3}}}]}`,
		genSet(`{"start": 9223372036854775800, "stop": 9223372036854775807, "step": 5}`, "0"),
		genSet(`{"start": -9223372036854775808, "stop": 9223372036854775807}`, "{{i}}"),
		genSet(`{"start": 5, "stop": -5, "step": -3}`, "{{-i // -4 % 7}}"),
		`{"version": 1, "templates": {"u": "xxxxxxxxxxxxxxxx"}, "refs": {"a/0": ["{{u+u+u+u}}{{u}}", 0, 1]}}`,
		`{"version": 1, "refs": {"a/0": ["f{{((((-(1))))) * 2}}", 0, 1]}}`,
		`{"a/0": ["../../etc/hostname"], "a/1": ["file:///etc/hostname", 0, 20]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		set, err := ParseJSONWithin(doc, fuzzLimits)
		if err != nil {
			return
		}
		if n := int64(set.Len()); n > int64(len(doc))+fuzzLimits.Generated {
			t.Fatalf("%d references from %d bytes and a budget of %d", n, len(doc), fuzzLimits.Generated)
		}
		most := int64(len(doc)) + fuzzLimits.Bytes
		for key, r := range set.refs {
			if int64(len(key)) > most || int64(len(r.URL)) > most {
				t.Fatalf("key %.40q or its URL %.40q is longer than the set and its budget (%d bytes)", key, r.URL, most)
			}
			if store.ValidateKey(key) != nil {
				t.Fatalf("key %q is no store key", key)
			}
			if !r.Inline() && (r.Offset < 0 || r.Length < -1 || r.Length >= 0 && r.Offset > (1<<62)-r.Length) {
				t.Fatalf("key %q: range %d+%d", key, r.Offset, r.Length)
			}
		}
	})
}

// Any target resolves below one root, as a key of its store, or is
// refused: the root's prefix and the key make the canonical target, and
// the key has no segment that could leave the root.
func FuzzResolve(f *testing.F) {
	for _, seed := range []string{
		"nc/t1.nc", "/data/refs/nc/../t.nc", "../../../etc/passwd", "file:///data/refs/a", "file://localhost/etc",
		"s3://bucket/nc/../../x", "HTTPS://Data.Example.org/archive/a%2f..%2fb", "https://data.example.org/archive/../x",
		"https://data.example.org@evil/archive/x", "//evil/x", "s3://bucket/nc/a\\..\\b", "mem://h/\x00",
	} {
		f.Add(seed)
	}
	s, err := New(nil, nil, "/data/refs/").Allow([]string{"s3://bucket/nc/", "https://data.example.org/archive/"}, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, target string) {
		r, key, err := s.resolve(target)
		if err != nil {
			return
		}
		c, err := canonical(target, s.base)
		if err != nil || c != r.prefix+key {
			t.Fatalf("%q resolves to %s + %s, its canonical form is %q (%v)", target, r.prefix, key, c, err)
		}
		if store.ValidateKey(key) != nil || strings.Contains("/"+key+"/", "/../") {
			t.Fatalf("%q resolves to key %q below %s", target, key, r.prefix)
		}
	})
}
