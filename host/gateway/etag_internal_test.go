package gateway

import "testing"

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
		ds := &dataset{md5Versions: c.md5Versions}
		if got := ds.etag(c.version); got != c.want {
			t.Errorf("md5Versions %v, version %q: ETag %s, want %s", c.md5Versions, c.version, got, c.want)
		}
	}
}
