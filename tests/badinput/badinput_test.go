// Package badinput feeds the engine broken metadata and broken chunks and
// checks that every failure is a clear error naming the array and key:
// never a panic, never fill values in place of data that failed to read.
package badinput

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
)

var ctx = context.Background()

func opts() array.Options { return array.Options{Codecs: registry.Codecs()} }

// newArray writes a 4x4 uint16 array of 2x2 chunks at "data/temp" with the
// given bytes->bytes codecs and returns the store.
func newArray(t *testing.T, codecs ...meta.Extension) *store.Memory {
	t.Helper()
	return newArrayChunks(t, []int{2, 2}, codecs...)
}

// newArrayChunks is newArray with a chosen chunk shape; [2, 4] chunks span
// whole rows, so reads decode them straight into the output.
func newArrayChunks(t *testing.T, chunks []int, codecs ...meta.Extension) *store.Memory {
	t.Helper()
	s := store.NewMemory()
	chain := append([]meta.Extension{{Name: "bytes", Configuration: json.RawMessage(`{"endian":"little"}`), MustUnderstand: true}}, codecs...)
	a, err := hierarchy.CreateArray(ctx, s, "data/temp", &meta.ArrayMeta{
		Format: meta.V3, Shape: []int{4, 4}, ChunkShape: chunks, DataType: dtype.Named("uint16"),
		FillValue: []byte{0, 0}, ChunkKey: meta.ChunkKeyEncoding{Name: "default", Separator: "/"},
		Codecs: chain, Attributes: json.RawMessage("{}"),
	}, opts())
	if err != nil {
		t.Fatal(err)
	}
	data := ndarray.New(dtype.Named("uint16"), []int{4, 4})
	for i := 0; i < 16; i++ {
		binary.LittleEndian.PutUint16(data.Data[2*i:], uint16(i+1))
	}
	if err := a.WriteAll(ctx, data); err != nil {
		t.Fatal(err)
	}
	return s
}

func set(t *testing.T, s store.Store, key string, value []byte) {
	t.Helper()
	if _, err := s.Set(ctx, key, value, store.Condition{}); err != nil {
		t.Fatal(err)
	}
}

func get(t *testing.T, s store.Store, key string) []byte {
	t.Helper()
	v, err := s.Get(ctx, key, store.ByteRange{})
	if err != nil {
		t.Fatal(err)
	}
	return v.Data
}

// readErr reads the whole array and returns the error, failing the test if
// the read succeeded.
func readErr(t *testing.T, s store.Store) error {
	t.Helper()
	a, err := hierarchy.OpenArray(ctx, s, "data/temp", opts())
	if err != nil {
		return err
	}
	_, err = a.ReadAll(ctx)
	if err == nil {
		t.Fatal("read of a broken array succeeded")
	}
	return err
}

func wantMention(t *testing.T, err error, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not mention %q", err, p)
		}
	}
	if errors.Is(err, store.ErrNotFound) {
		t.Errorf("error %q claims not-found: a broken chunk would read as fill values", err)
	}
}

func TestBrokenChunks(t *testing.T) {
	zstdExt := meta.Extension{Name: "zstd", Configuration: json.RawMessage(`{"level":0}`), MustUnderstand: true}
	gzipExt := meta.Extension{Name: "gzip", Configuration: json.RawMessage(`{"level":1}`), MustUnderstand: true}
	crcExt := meta.Extension{Name: "crc32c", MustUnderstand: true}
	cases := []struct {
		name   string
		codecs []meta.Extension
		break_ func(old []byte) []byte
	}{
		{"truncated raw chunk", nil, func(b []byte) []byte { return b[:len(b)-1] }},
		{"oversized raw chunk", nil, func(b []byte) []byte { return append(b, 0) }},
		{"crc32c mismatch", []meta.Extension{crcExt}, func(b []byte) []byte { c := bytes.Clone(b); c[0] ^= 1; return c }},
		{"truncated crc32c", []meta.Extension{crcExt}, func(b []byte) []byte { return b[:2] }},
		{"corrupt zstd frame", []meta.Extension{zstdExt}, func(b []byte) []byte { c := bytes.Clone(b); c[1] ^= 0xff; return c }},
		{"truncated zstd frame", []meta.Extension{zstdExt}, func(b []byte) []byte { return b[:len(b)-3] }},
		{"zstd bomb", []meta.Extension{zstdExt}, func([]byte) []byte { return zstdBomb(t) }},
		{"gzip bomb", []meta.Extension{gzipExt}, func([]byte) []byte { return gzipBomb(t) }},
		{"not gzip", []meta.Extension{gzipExt}, func([]byte) []byte { return []byte("plain text, not gzip") }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newArray(t, c.codecs...)
			key := "data/temp/c/1/0"
			set(t, s, key, c.break_(get(t, s, key)))
			wantMention(t, readErr(t, s), "/data/temp", key)
		})
		t.Run(c.name+"/row chunks", func(t *testing.T) {
			s := newArrayChunks(t, []int{2, 4}, c.codecs...)
			key := "data/temp/c/1/0"
			set(t, s, key, c.break_(get(t, s, key)))
			wantMention(t, readErr(t, s), "/data/temp", key)
		})
	}
}

// zstdBomb is a valid frame that inflates to 64 MiB, far beyond the 8-byte chunk.
func zstdBomb(t *testing.T) []byte {
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	return enc.EncodeAll(make([]byte, 64<<20), nil)
}

func gzipBomb(t *testing.T) []byte {
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	w.Write(make([]byte, 64<<20))
	w.Close()
	return buf.Bytes()
}

func TestBrokenMetadata(t *testing.T) {
	good := string(get(t, newArray(t), "data/temp/zarr.json"))
	cases := []struct {
		name, doc, mention string
	}{
		{"truncated JSON", good[:len(good)/2], "zarr.json"},
		{"not JSON", "{shape: [", "zarr.json"},
		{"unknown data type", strings.Replace(good, `"uint16"`, `"uint17"`, 1), "uint17"},
		{"rank mismatch", strings.Replace(good, `"chunk_shape": [
        2,
        2
      ]`, `"chunk_shape": [2]`, 1), "dimensions"},
		{"negative shape", strings.Replace(good, `"shape": [
    4,`, `"shape": [
    -4,`, 1), "shape"},
		{"unknown field", strings.Replace(good, `"zarr_format": 3`, `"zarr_format": 3, "colour": "blue"`, 1), "colour"},
		{"unknown codec", strings.Replace(good, `"name": "bytes"`, `"name": "quux"`, 1), "quux"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.doc == good {
				t.Fatalf("test case did not change the document")
			}
			s := newArray(t)
			set(t, s, "data/temp/zarr.json", []byte(c.doc))
			_, err := hierarchy.OpenArray(ctx, s, "data/temp", opts())
			if err == nil {
				t.Fatal("opened broken metadata")
			}
			wantMention(t, err, c.mention)
		})
	}
}

func TestUnknownCodecIsUnavailable(t *testing.T) {
	s := newArray(t)
	doc := strings.Replace(string(get(t, s, "data/temp/zarr.json")), `"name": "bytes"`, `"name": "quux"`, 1)
	set(t, s, "data/temp/zarr.json", []byte(doc))
	_, err := hierarchy.OpenArray(ctx, s, "data/temp", opts())
	if !errors.Is(err, codec.ErrUnavailable) || !strings.Contains(err.Error(), "/data/temp") {
		t.Fatalf("got %v, want codec not available naming the array", err)
	}
}

// A store that fails reads must fail the read, not yield fill values.
type failingStore struct{ store.Store }

func (f failingStore) Get(ctx context.Context, key string, r store.ByteRange) (store.Value, error) {
	if strings.Contains(key, "/c/") {
		return store.Value{}, errors.New("disk on fire")
	}
	return f.Store.Get(ctx, key, r)
}

func TestFailedReadIsNotFill(t *testing.T) {
	s := store.WithOptional(failingStore{newArray(t)}, store.Optional{}) // every read a failing Get
	err := readErr(t, s)
	wantMention(t, err, "/data/temp", "disk on fire")
}
