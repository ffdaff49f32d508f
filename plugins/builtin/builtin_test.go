package builtin

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
)

// Every name found in metadata resolves, builds from an empty (or
// minimal) configuration, and reports the registered name.
func TestNamesResolve(t *testing.T) {
	r := Registry()
	cases := map[string]string{
		"bytes": "", "endian": "", "transpose": `{"order":[0]}`, "gzip": "", "numcodecs.gzip": "",
		"zstd": "", "numcodecs.zstd": "", "crc32c": "", "numcodecs.crc32c": "",
		"zlib": "", "numcodecs.zlib": "", "lz4": "", "numcodecs.lz4": "", "bz2": "", "numcodecs.bz2": "",
		"shuffle": "", "numcodecs.shuffle": "", "crc32": "", "numcodecs.crc32": "",
		"adler32": "", "numcodecs.adler32": "", "fletcher32": "", "numcodecs.fletcher32": "",
		"delta": `{"dtype":"<i2"}`, "numcodecs.delta": `{"dtype":"int16"}`,
		"fixedscaleoffset": `{"offset":0,"scale":1,"dtype":"<f4"}`, "numcodecs.fixedscaleoffset": `{"offset":0,"scale":1}`,
		"bitround": `{"keepbits":3}`, "numcodecs.bitround": `{"keepbits":3}`,
		"vlen-utf8": "", "numcodecs.vlen-utf8": "", "vlen-bytes": "", "numcodecs.vlen-bytes": "",
		"json2": "", "numcodecs.json2": "", "blosc": "",
		// zarr-extensions registry codecs
		"cast_value": `{"data_type":"uint8"}`, "scale_offset": "", "reshape": `{"shape":[-1]}`, "packbits": "",
		"conditional": `{"codecs":["gzip"]}`, "n5_default": `{"codecs":[{"name":"transpose","configuration":{"order":[0]}},"bytes"]}`,
		// draft v3 compressor URIs
		"https://purl.org/zarr/spec/codec/gzip/1.0": "", "https://purl.org/zarr/spec/codec/zlib/1.0": "",
		"https://purl.org/zarr/spec/codec/zstd/1.0": "", "https://purl.org/zarr/spec/codec/lz4/1.0": "",
		"https://purl.org/zarr/spec/codec/bz2/1.0": "",
	}
	for name, cfg := range cases {
		c, err := r.Codec(context.Background(), name, json.RawMessage(cfg))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		reg, _ := r.Lookup(name)
		if c.Name() != reg.Manifest.Name {
			t.Errorf("%s: codec name %q, registered as %q", name, c.Name(), reg.Manifest.Name)
		}
		if k := codec.KindOf(c); k != codec.ArrayToArray && k != codec.ArrayToBytes && k != codec.BytesToBytes {
			t.Errorf("%s: kind %v", name, k)
		}
	}
	if _, err := r.Codec(context.Background(), "zfp", json.RawMessage(`{"mode":"reversible"}`)); err == nil {
		t.Error("zfp resolved: it is not bundled (Unbundled says why)")
	}
	if _, err := r.Codec(context.Background(), "no-such-codec", nil); err == nil {
		t.Error("unknown codec resolved")
	}
}

// No two registrations claim the same name or alias.
func TestNoDuplicateNames(t *testing.T) {
	seen := map[string]string{}
	for _, reg := range Codecs() {
		for _, n := range append([]string{reg.Manifest.Name}, reg.Manifest.Aliases...) {
			if prev, ok := seen[n]; ok {
				t.Errorf("%q registered by %s and %s", n, prev, reg.Manifest.Name)
			}
			seen[n] = reg.Manifest.Name
		}
	}
}
