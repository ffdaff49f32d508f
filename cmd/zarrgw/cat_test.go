package main

import (
	"bytes"
	bin "encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An int32 array of 64 x 8 in chunks of 4 x 4, written from raw input,
// comes back the same in every output format, with a memory budget small
// enough that it streams in many slabs.
func TestCatStreamsEveryFormat(t *testing.T) {
	dir := t.TempDir()
	raw := writeInt32Array(t, dir)

	out, e, code := run(t, "cat", dir, "--path", "a", "--format", "raw", "--memory", "256")
	if code != 0 || out != string(raw) {
		t.Fatalf("cat raw: exit %d (%s), %d bytes, want the %d written", code, e, len(out), len(raw))
	}
	out, e, code = run(t, "cat", dir, "--path", "a", "--format", "npy", "--memory", "1KiB")
	header := "{'descr': '<i4', 'fortran_order': False, 'shape': (64, 8), }"
	if code != 0 || !strings.Contains(out[:128], header) || !strings.HasSuffix(out, string(raw)) || len(out) != 128+len(raw) {
		t.Fatalf("cat npy: exit %d (%s), %d bytes, header %q", code, e, len(out), out[:min(len(out), 128)])
	}
	out, e, code = run(t, "cat", dir, "--path", "a", "--format", "json", "--memory", "300", "--slice", "1:64:7,::3")
	var doc struct {
		Shape []int   `json:"shape"`
		Data  []int32 `json:"data"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil {
		t.Fatalf("cat json: exit %d (%s): %.200s", code, e, out)
	}
	var want []int32
	for i := 1; i < 64; i += 7 {
		for j := 0; j < 8; j += 3 {
			want = append(want, int32(i*8+j)*3-100)
		}
	}
	if len(doc.Shape) != 2 || doc.Shape[0] != 9 || doc.Shape[1] != 3 || !equalInts(doc.Data, want) {
		t.Fatalf("cat json of a strided slice: shape %v data %v, want [9 3] %v", doc.Shape, doc.Data, want)
	}
}

// A chunk that cannot be decoded in the middle of the output ends it with
// one line naming the chunk and a non-zero exit, even though the .npy
// header, which promises the whole size, is already written.
func TestCatFailsMidStream(t *testing.T) {
	dir := t.TempDir()
	raw := writeInt32Array(t, dir)
	if err := os.WriteFile(filepath.Join(dir, "a", "c", "9", "1"), []byte("not zstd"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"npy", "raw", "json"} {
		out, e, code := run(t, "cat", dir, "--path", "a", "--format", format, "--memory", "256")
		if code == 0 || !strings.Contains(e, "a/c/9/1") || strings.Count(e, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q: want a non-zero exit and one line naming the chunk", format, code, e)
		}
		if format != "json" && len(out) >= len(raw) {
			t.Errorf("%s: %d bytes written, as many as the whole array", format, len(out))
		}
	}
}

// writeInt32Array creates array "a" in dir and writes element k as 3k-100
// from raw standard input; it returns the raw bytes.
func writeInt32Array(t *testing.T, dir string) []byte {
	t.Helper()
	codecs := `[{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd","configuration":{"level":1}}]`
	if _, e, code := run(t, "create", dir, "--path", "a", "--shape", "64,8", "--chunks", "4,4", "--dtype", "int32", "--codecs", codecs); code != 0 {
		t.Fatalf("create: %s", e)
	}
	var raw []byte
	for k := 0; k < 64*8; k++ {
		raw = bin.LittleEndian.AppendUint32(raw, uint32(int32(k)*3-100))
	}
	if _, e, code := runWithInput(t, raw, "write", dir, "--path", "a", "--format", "raw", "--memory", "512"); code != 0 {
		t.Fatalf("write raw: %s", e)
	}
	return raw
}

func equalInts(a, b []int32) bool { return bytes.Equal(int32Bytes(a), int32Bytes(b)) }

func int32Bytes(v []int32) []byte {
	var out []byte
	for _, x := range v {
		out = bin.LittleEndian.AppendUint32(out, uint32(x))
	}
	return out
}
