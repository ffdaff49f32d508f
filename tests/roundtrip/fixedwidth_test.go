package roundtrip

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
)

// fixedWidthDoc is a zarr.json as zarr-python 3 (commit d44f9f9) writes an
// array of 3 elements in chunks of 2: its keys in the order of
// ArrayV3Metadata's fields (src/zarr/core/metadata/v3.py:465-476, no
// dimension_names), data_type and fill_value as the data type's to_json /
// to_json_scalar give them (see the cases), codecs its
// default_serializer_v3 (src/zarr/core/array.py:4893-4918) without the
// zstd compressor, which would only hide the bytes.
func fixedWidthDoc(dataType, fill, codec string) string {
	return `{"shape": [3], "data_type": ` + dataType + `,
  "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
  "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
  "fill_value": ` + fill + `, "codecs": [` + codec + `], "attributes": {},
  "zarr_format": 3, "node_type": "array", "storage_transformers": []}`
}

// A v3 array of each numpy fixed-width type, its metadata as zarr-python 3
// writes it and its chunk 0 the bytes numpy lays out (written here by
// hand), reads as those elements, chunk 1 (not stored) as the fill value.
// Elements in memory are NUL-padded bytes (S, V) and UTF-32LE (U).
func TestFixedWidthV3Read(t *testing.T) {
	const noEndian, little, big = `{"name": "bytes"}`, `{"name": "bytes", "configuration": {"endian": "little"}}`,
		`{"name": "bytes", "configuration": {"endian": "big"}}`
	tests := []struct {
		name, dataType, fill, codec string
		chunk                       string // hex, numpy's bytes of 2 elements
		want                        string // hex, 3 elements in memory form
	}{{
		// bytes.py:383-390 (data type), 481-501 (fill: base64 of b"z")
		name:     "S3",
		dataType: `{"name": "null_terminated_bytes", "configuration": {"length_bytes": 3}}`,
		fill:     `"eg=="`, codec: noEndian,
		chunk: "616200" + "78797a", // np.array([b"ab", b"xyz"], "S3").tobytes()
		want:  "616200" + "78797a" + "7a0000",
	}, {
		// string.py:249-253 (data type), 310-326 (fill: the string)
		name:     "<U2",
		dataType: `{"name": "fixed_length_utf32", "configuration": {"length_bytes": 8}}`,
		fill:     `"é"`, codec: little,
		chunk: "6100000000000000" + "e900000062000000", // np.array(["a", "éb"], "<U2")
		want:  "6100000000000000" + "e900000062000000" + "e900000000000000",
	}, {
		// the same elements stored big-endian ("bytes" decides the order)
		name:     ">U2",
		dataType: `{"name": "fixed_length_utf32", "configuration": {"length_bytes": 8}}`,
		fill:     `""`, codec: big,
		chunk: "0000006100000000" + "000000e900000062", // np.array(["a", "éb"], ">U2")
		want:  "6100000000000000" + "e900000062000000" + "0000000000000000",
	}, {
		// bytes.py:784-786 (data type), 878-898 (fill: base64 of every byte)
		name:     "V2",
		dataType: `{"name": "raw_bytes", "configuration": {"length_bytes": 2}}`,
		fill:     `"AP8="`, codec: noEndian,
		chunk: "0102" + "0300", // np.void(b"\x01\x02"), np.void(b"\x03\x00")
		want:  "0102" + "0300" + "00ff",
	}}
	ctx := context.Background()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := store.NewMemory()
			put(t, s, "a/zarr.json", []byte(fixedWidthDoc(tc.dataType, tc.fill, tc.codec)))
			put(t, s, "a/c/0", mustHex(t, tc.chunk))
			a, err := hierarchy.OpenArray(ctx, s, "a", array.Options{Codecs: registry.Codecs()})
			if err != nil {
				t.Fatal(err)
			}
			got, err := a.ReadAll(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Data, mustHex(t, tc.want)) {
				t.Errorf("read %x, want %s", got.Data, tc.want)
			}
			// Written back, chunk 0 is numpy's bytes again.
			if err := a.Write(ctx, grid.All(a.Shape()), got); err != nil {
				t.Fatal(err)
			}
			if v, err := s.Get(ctx, "a/c/0", store.ByteRange{}); err != nil || hex.EncodeToString(v.Data) != tc.chunk {
				t.Errorf("chunk 0 written as %x (%v), want %s", v.Data, err, tc.chunk)
			}
		})
	}
}

// A bad length_bytes fails the open with an error naming the array and
// the field, never a panic.
func TestFixedWidthV3BadConfig(t *testing.T) {
	ctx := context.Background()
	for dataType, want := range map[string]string{
		`{"name": "null_terminated_bytes"}`:                                            "missing configuration",
		`{"name": "null_terminated_bytes", "configuration": {}}`:                       "missing length_bytes",
		`{"name": "raw_bytes", "configuration": {"length_bytes": 0}}`:                  "length_bytes: expected a positive integer, got 0",
		`{"name": "fixed_length_utf32", "configuration": {"length_bytes": 6}}`:         "length_bytes 6 is not a multiple of 4",
		`{"name": "fixed_length_utf32", "configuration": {"length_bytes": -4}}`:        "length_bytes: expected a positive integer, got -4",
		`{"name": "fixed_length_utf32", "configuration": {"length_bytes": 8, "n": 2}}`: `unknown key "n" (only length_bytes)`,
	} {
		s := store.NewMemory()
		put(t, s, "grp/arr/zarr.json", []byte(fixedWidthDoc(dataType, `""`, `{"name": "bytes"}`)))
		_, err := hierarchy.OpenArray(ctx, s, "grp/arr", array.Options{Codecs: registry.Codecs()})
		if err == nil || !strings.Contains(err.Error(), want) ||
			!strings.Contains(err.Error(), "grp/arr/zarr.json") || !strings.Contains(err.Error(), "data_type") {
			t.Errorf("%s: error %v, want one naming grp/arr, data_type and saying %q", dataType, err, want)
		}
	}
}

func put(t *testing.T, s store.Store, key string, value []byte) {
	t.Helper()
	if _, err := s.Set(context.Background(), key, value, store.Condition{}); err != nil {
		t.Fatal(err)
	}
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(fmt.Errorf("hex %q: %w", s, err))
	}
	return b
}
