package s3

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/plugins/stores/fsstore"
)

// The Zarr array every client uploads as files: int32, 20x30 in chunks of
// 7x8 (the edge chunks partial), bytes+zstd, element i = 7i-1000.
const (
	arrayPath = "arr.zarr"
	rows      = 20
	cols      = 30
)

func element(i int) int32 { return int32(7*i - 1000) }

// uploadTree is what each client uploads: small objects with names that
// test the signing of paths (spaces, '+', non-ASCII), an empty one, one of
// random bytes, and the Zarr array's files as zarrgw wrote them.
func uploadTree(t *testing.T) map[string][]byte {
	t.Helper()
	random := make([]byte, 300_000)
	rand.Read(random)
	files := map[string][]byte{
		"notes/readme.txt":               []byte("an S3 client was here\n"),
		"notes/deeper/still/leaf.json":   []byte(`{"leaf": true}` + "\n"),
		"odd names/space and+plus é.txt": []byte("names are signed as S3 encodes them\n"),
		"empty":                          {},
		"random.bin":                     random,
	}
	for k, v := range zarrArray(t) {
		files[arrayPath+"/"+k] = v
	}
	return files
}

// zarrArray writes the array with zarrgw's engine into a directory and
// returns its files.
func zarrArray(t *testing.T) map[string][]byte {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	s, err := fsstore.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	le := json.RawMessage(`{"endian":"little"}`)
	m := &meta.ArrayMeta{Format: meta.V3, Shape: []int{rows, cols}, ChunkShape: []int{7, 8}, DataType: dtype.Named("int32"),
		Codecs: []meta.Extension{
			{Name: "bytes", Configuration: le, MustUnderstand: true},
			{Name: "zstd", Configuration: json.RawMessage(`{"level":3}`), MustUnderstand: true}},
		ChunkKey:   meta.ChunkKeyEncoding{Name: "default", Separator: "/"},
		Attributes: json.RawMessage(`{"written_by":"zarrgw"}`)}
	arr, err := hierarchy.CreateArray(ctx, s, "", m, array.Options{Codecs: registry.Codecs()})
	if err != nil {
		t.Fatal(err)
	}
	data := ndarray.New(dtype.Named("int32"), []int{rows, cols})
	copy(data.Data, elementBytes(0, rows*cols))
	if err := arr.Write(ctx, grid.Box([]int{0, 0}, []int{rows, cols}), data); err != nil {
		t.Fatal(err)
	}
	return readTree(t, dir)
}

// elementBytes are elements [from, to) little-endian.
func elementBytes(from, to int) []byte {
	b := make([]byte, 0, 4*(to-from))
	for i := from; i < to; i++ {
		b = binary.LittleEndian.AppendUint32(b, uint32(element(i)))
	}
	return b
}

// checkArray reads the uploaded array through the array API, a selection
// across chunks as JSON and the whole as .npy, and compares both with
// what zarrgw wrote.
func (g *gateway) checkArray(t *testing.T, ds, path string) {
	t.Helper()
	code, body := g.fetch(t, http.MethodGet, g.keyURL(ds, path)+"?slice=3:17,5:29&format=json", nil)
	if code != http.StatusOK {
		t.Fatalf("the array API on /d/%s/%s: %d %s", ds, path, code, body)
	}
	var got struct {
		Shape []int   `json:"shape"`
		Data  []int64 `json:"data"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("the array API's JSON: %v: %.300s", err, body)
	}
	var want []int64
	for r := 3; r < 17; r++ {
		for c := 5; c < 29; c++ {
			want = append(want, int64(element(r*cols+c)))
		}
	}
	if fmt.Sprint(got.Shape) != "[14 24]" || fmt.Sprint(got.Data) != fmt.Sprint(want) {
		t.Errorf("/d/%s/%s?slice=3:17,5:29: shape %v data %v\nwant shape [14 24] data %v", ds, path, got.Shape, got.Data, want)
	}
	code, body = g.fetch(t, http.MethodGet, g.keyURL(ds, path)+"?format=npy", nil)
	if code != http.StatusOK {
		t.Fatalf("the array API on /d/%s/%s as npy: %d %s", ds, path, code, body)
	}
	if raw, ok := npyData(body); !ok || !bytes.Equal(raw, elementBytes(0, rows*cols)) {
		t.Errorf("/d/%s/%s?format=npy: %d bytes of elements that differ from what was written", ds, path, len(raw))
	}
}

// npyData is the elements of a .npy document (version 1, 2 or 3).
func npyData(b []byte) ([]byte, bool) {
	if len(b) < 10 || string(b[:6]) != "\x93NUMPY" {
		return nil, false
	}
	if b[6] == 1 {
		n := 10 + int(binary.LittleEndian.Uint16(b[8:10]))
		return b[min(n, len(b)):], n <= len(b)
	}
	if len(b) < 12 {
		return nil, false
	}
	n := 12 + int(binary.LittleEndian.Uint32(b[8:12]))
	return b[min(n, len(b)):], n <= len(b)
}
