package references

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseVersion0(t *testing.T) {
	set, err := ParseJSON([]byte(`{
		".zgroup": "{\"zarr_format\": 2}",
		"x/.zarray": "{}",
		"x/0": ["s3://bucket/file.nc", 294094376, 73825960],
		"x/1": ["https://host/whole.bin"],
		"x/2": "base64:AAEC/w=="
	}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Ref{
		".zgroup":   {Data: []byte(`{"zarr_format": 2}`)},
		"x/.zarray": {Data: []byte(`{}`)},
		"x/0":       {URL: "s3://bucket/file.nc", Offset: 294094376, Length: 73825960},
		"x/1":       {URL: "https://host/whole.bin", Length: -1},
		"x/2":       {Data: []byte{0, 1, 2, 255}},
	}
	if got := strings.Join(set.Keys(), ","); got != ".zgroup,x/.zarray,x/0,x/1,x/2" {
		t.Fatalf("keys %s", got)
	}
	for k, w := range want {
		got, ok := set.Ref(k)
		if !ok || fmt.Sprint(got) != fmt.Sprint(w) || got.Inline() != (w.URL == "") {
			t.Errorf("%s: %+v, want %+v", k, got, w)
		}
	}
}

// Version 1 as kerchunk's specification writes it: templates in urls, gen
// entries over one and two dimensions, ranges and lists.
func TestParseVersion1(t *testing.T) {
	set, err := ParseJSON([]byte(`{
		"version": 1,
		"templates": {"u": "server.domain/path", "f": "s3://bucket/data/"},
		"refs": {
			"key0": "data",
			"key1": ["http://target_url", 10000, 100],
			"key2": ["http://{{u}}", 10000, 100],
			"key3": ["{{f}}file.nc", 0, 8]
		},
		"gen": [
			{"key": "gen_key{{i}}", "url": "http://{{u}}_{{i}}", "offset": "{{(i + 1) * 1000}}", "length": "1000",
			 "dimensions": {"i": {"stop": 5}}},
			{"key": "g/{{a}}.{{b}}", "url": "{{f}}g.bin", "offset": "{{ (a * 3 + b) * 16 }}", "length": 16,
			 "dimensions": {"a": [0, 1], "b": {"start": 0, "stop": 3}}}
		]
	}`))
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]Ref{
		"key0":     {Data: []byte("data")},
		"key1":     {URL: "http://target_url", Offset: 10000, Length: 100},
		"key2":     {URL: "http://server.domain/path", Offset: 10000, Length: 100},
		"key3":     {URL: "s3://bucket/data/file.nc", Offset: 0, Length: 8},
		"gen_key0": {URL: "http://server.domain/path_0", Offset: 1000, Length: 1000},
		"gen_key4": {URL: "http://server.domain/path_4", Offset: 5000, Length: 1000},
		"g/0.0":    {URL: "s3://bucket/data/g.bin", Offset: 0, Length: 16},
		"g/1.2":    {URL: "s3://bucket/data/g.bin", Offset: 80, Length: 16},
	} {
		got, ok := set.Ref(key)
		if !ok || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: %+v (found %v), want %+v", key, got, ok, want)
		}
	}
	if set.Len() != 4+5+6 {
		t.Errorf("%d references, want 15", set.Len())
	}
}

// Every bad input is an error naming the key (or gen entry) and what is
// wrong with it; none is skipped or taken for something else.
func TestParseRefusesBadInput(t *testing.T) {
	for name, tc := range map[string]struct{ doc, want string }{
		"number value":      {`{"a/0": 5}`, `key "a/0": malformed entry 5`},
		"object value":      {`{"a/0": {"url": "x"}}`, `key "a/0": malformed entry`},
		"two elements":      {`{"a/0": ["f.nc", 10]}`, `key "a/0": malformed entry: 2 elements`},
		"empty url":         {`{"a/0": ["", 0, 1]}`, `key "a/0": malformed entry: the url`},
		"negative offset":   {`{"a/0": ["f.nc", -1, 10]}`, `key "a/0": malformed entry: range -1+10`},
		"float length":      {`{"a/0": ["f.nc", 0, 1.5]}`, `key "a/0": malformed entry: length 1.5`},
		"bad base64":        {`{"a/0": "base64:!!"}`, `key "a/0": inline base64 data`},
		"absolute key":      {`{"/a/0": "x"}`, `key "/a/0": not a store key`},
		"dot-dot key":       {`{"a/../b": "x"}`, `key "a/../b": not a store key`},
		"unknown version":   {`{"version": 2, "refs": {}}`, `version 2`},
		"unknown template":  {`{"version": 1, "refs": {"a/0": ["{{nope}}f.nc", 0, 1]}}`, `key "a/0": template "{{nope}}f.nc": {{nope}}: "nope" is neither a template nor a dimension`},
		"unclosed template": {`{"version": 1, "templates": {"u": "x"}, "refs": {"a/0": ["{{u", 0, 1]}}`, `key "a/0": template "{{u": {{ without }}`},
		"string arithmetic": {`{"version": 1, "templates": {"u": "x"}, "refs": {"a/0": ["{{u * 2}}", 0, 1]}}`, `arithmetic needs integers`},
		"inexact division":  {`{"version": 1, "gen": [{"key": "g/{{i}}", "url": "f", "offset": "{{i / 2}}", "length": 1, "dimensions": {"i": [1]}}]}`, `gen entry 0 (key "g/{{i}}"): key "g/1": template "{{i / 2}}"`},
		"gen bad dimension": {`{"version": 1, "gen": [{"key": "g/{{i}}", "url": "f", "dimensions": {"i": "five"}}]}`, `gen entry 0 (key "g/{{i}}"): dimension "i": want {"stop": N}`},
		"gen without url":   {`{"version": 1, "gen": [{"key": "g/{{i}}", "dimensions": {"i": {"stop": 2}}}]}`, `gen entry 0 (key "g/{{i}}"): needs a key and a url`},
		"gen endless":       {`{"version": 1, "gen": [{"key": "g/{{i}}.{{j}}", "url": "f", "dimensions": {"i": {"stop": 100000}, "j": {"stop": 100000}}}]}`, `more than the 1000000 references gen entries may make in all (max_generated)`},
		"gen offset no int": {`{"version": 1, "templates": {"u": "x"}, "gen": [{"key": "g/{{i}}", "url": "f", "offset": "{{u}}", "length": 1, "dimensions": {"i": [0]}}]}`, `offset "{{u}}" expands to "x", not an integer`},
		"not an object":     {`[1, 2]`, `not a JSON object`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseJSON([]byte(tc.doc))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// Expressions compute as jinja2 (Python) does: floor division and a
// modulo with the divisor's sign.
func TestExpressions(t *testing.T) {
	vars := map[string]value{"i": intValue(7), "n": intValue(-7), "s": strValue("ab")}
	for expr, want := range map[string]string{
		"i":           "7",
		"i * 4096":    "28672",
		"(i + 1) * 2": "16",
		"i // 2":      "3",
		"n // 2":      "-4",
		"n % 3":       "2",
		"i % -3":      "-2",
		"-i + 10":     "3",
		"s + s":       "abab",
		"2 - 3 - 4":   "-5",
		"12 / 4":      "3",
	} {
		got, err := evaluate(expr, vars, newBudget(DefaultLimits))
		if err != nil || got.String() != want {
			t.Errorf("{{%s}} = %v (%v), want %s", expr, got, err, want)
		}
	}
	for _, expr := range []string{"", "i +", "(i", "i i", "1 // 0", "i $ 2", "99999999999999999999"} {
		if got, err := evaluate(expr, vars, newBudget(DefaultLimits)); err == nil {
			t.Errorf("{{%s}} = %v, want an error", expr, got)
		}
	}
}

// kerchunk inlines a chunk whose bytes decode as UTF-8 as that text (its
// _encode_for_JSON: bytes.decode(), else "base64:"), and fsspec reads it
// back with str.encode(): the bytes are the text's UTF-8, whatever JSON
// escapes spell it (\u0000, a raw é, \u00e9, a pair of surrogates).
func TestInlineTextIsItsUTF8(t *testing.T) {
	set, err := ParseJSON([]byte(`{"version": 1, "refs": {
		"time/0": "\u0000\u0000\u0000\u0000\u0000\u0000\u0018@",
		"x/0": "é\u00e9\ud83d\ude00\u007f"
	}}`))
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string][]byte{
		"time/0": {0, 0, 0, 0, 0, 0, 0x18, 0x40}, // float64 6.0, little-endian
		"x/0":    {0xc3, 0xa9, 0xc3, 0xa9, 0xf0, 0x9f, 0x98, 0x80, 0x7f},
	} {
		got, ok := set.Ref(key)
		if !ok || !got.Inline() || string(got.Data) != string(want) {
			t.Errorf("%s: % x (inline %v), want % x", key, got.Data, got.Inline(), want)
		}
	}
}
