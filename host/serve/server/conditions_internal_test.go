package server

import (
	"net/http"
	"testing"
	"time"
)

// A version that looks like an MD5 is shown as one only where the store's
// versions are MD5s (S3's single-part ETags); S3 clients check such ETags
// against what they read.
func TestETagNeverPassesForMD5(t *testing.T) {
	const hex32 = "0123456789abcdef0123456789abcdef"
	cases := []struct {
		md5Versions bool
		version     string
		want        string
	}{
		{false, hex32, `"v` + hex32 + `"`},
		{false, `"` + hex32 + `"`, `"v` + hex32 + `"`},
		{true, hex32, `"` + hex32 + `"`},
		{true, `"` + hex32 + `"`, `"` + hex32 + `"`},
		{false, "1a2b-400-17f0", `"1a2b-400-17f0"`},
		{false, "0x8DC5A1B2C3D4E5F", `"0x8DC5A1B2C3D4E5F"`},
		{true, hex32 + "-3", `"` + hex32 + `-3"`},
		{false, "", ""},
	}
	for _, c := range cases {
		ds := &Dataset{md5Versions: c.md5Versions}
		if got := ds.ETag(c.version); got != c.want {
			t.Errorf("md5Versions %v, version %q: ETag %s, want %s", c.md5Versions, c.version, got, c.want)
		}
	}
}

// The conditional headers in RFC 9110's order, for the key API's plain
// names and S3's copy-source ones alike; dates count only with a known
// modification time.
func TestEvalConditions(t *testing.T) {
	mod := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	before, after := mod.Add(-time.Hour).Format(http.TimeFormat), mod.Add(time.Hour).Format(http.TimeFormat)
	for _, c := range []struct {
		headers             map[string]string
		mod                 time.Time
		failed, notModified string
	}{
		{map[string]string{}, mod, "", ""},
		{map[string]string{"If-Match": `"a"`}, mod, "", ""},
		{map[string]string{"If-Match": `a`}, mod, "", ""}, // unquoted, as clients send it
		{map[string]string{"If-Match": `"b"`}, mod, "If-Match", ""},
		{map[string]string{"If-Match": `"a"`, "If-Unmodified-Since": before}, mod, "", ""}, // If-Match wins
		{map[string]string{"If-Unmodified-Since": before}, mod, "If-Unmodified-Since", ""},
		{map[string]string{"If-Unmodified-Since": after}, mod, "", ""},
		{map[string]string{"If-None-Match": `"a"`}, mod, "", "If-None-Match"},
		{map[string]string{"If-None-Match": `"b"`, "If-Modified-Since": after}, mod, "", ""}, // If-None-Match wins
		{map[string]string{"If-Modified-Since": after}, mod, "", "If-Modified-Since"},
		{map[string]string{"If-Modified-Since": before}, mod, "", ""},
		{map[string]string{"If-Modified-Since": after}, time.Time{}, "", ""}, // no time known: ignored
		{map[string]string{"If-Unmodified-Since": before}, time.Time{}, "", ""},
		{map[string]string{"If-Modified-Since": "yesterday"}, mod, "", ""},
	} {
		failed, nm := EvalConditions(func(name string) string { return c.headers[name] }, `"a"`, c.mod)
		if failed != c.failed || nm != c.notModified {
			t.Errorf("%v (mod %v): failed %q, not modified %q; want %q, %q", c.headers, c.mod, failed, nm, c.failed, c.notModified)
		}
	}
}
