package blosc

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/zarrgw/zarrgw/tests/support/fixtures"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
)

// fixturesDir finds the shared fixtures (see fixtures.Optional).
func fixturesDir(t testing.TB) (string, bool) {
	t.Helper()
	return fixtures.Optional(t)
}

// fixtureArray is one blosc-compressed array found among the fixtures.
type fixtureArray struct {
	dir      string
	rel      string // path relative to the fixture root (expected.json key)
	itemSize int    // 0: variable-length, decoded size unknown
	chunk    []int  // chunk (or inner chunk) shape
	shape    []int
	shard    *shardInfo
	plain1D  bool // v2, 1-D, no filters, little-endian fixed-size numbers
}

type shardInfo struct {
	inner   int  // inner chunks per shard
	atStart bool // index before the data
}

func findBloscArrays(t *testing.T, root string) []fixtureArray {
	t.Helper()
	seen := map[string]bool{}
	var out []fixtureArray
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || seen[filepath.Dir(path)] {
			return err
		}
		var a *fixtureArray
		switch d.Name() {
		case ".zarray":
			a = parseZarray(t, path)
		case "zarr.json":
			a = parseZarrJSON(t, path)
		}
		if a != nil {
			a.dir = filepath.Dir(path)
			a.rel, _ = filepath.Rel(root, a.dir)
			a.rel = filepath.ToSlash(a.rel)
			seen[a.dir] = true
			out = append(out, *a)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func parseZarray(t *testing.T, path string) *fixtureArray {
	var z struct {
		Chunks     []int `json:"chunks"`
		Shape      []int `json:"shape"`
		DType      any   `json:"dtype"`
		Compressor *struct {
			ID string `json:"id"`
		} `json:"compressor"`
		Filters []json.RawMessage `json:"filters"`
	}
	readJSON(t, path, &z)
	if z.Compressor == nil || z.Compressor.ID != "blosc" {
		return nil
	}
	a := &fixtureArray{chunk: z.Chunks, shape: z.Shape}
	if s, ok := z.DType.(string); ok {
		if dt, endian, err := dtype.ParseV2(s); err == nil && !dt.Variable() && dt.Size > 0 {
			a.itemSize = dt.Size
			numeric := dt.Kind == dtype.Int || dt.Kind == dtype.Uint || dt.Kind == dtype.Float || dt.Kind == dtype.Bool
			a.plain1D = len(z.Shape) == 1 && len(z.Filters) == 0 && endian != dtype.Big && numeric
		}
	}
	return a
}

type v3Codec struct {
	Name          string          `json:"name"`
	Configuration json.RawMessage `json:"configuration"`
}

func parseZarrJSON(t *testing.T, path string) *fixtureArray {
	var z struct {
		NodeType  string `json:"node_type"`
		Shape     []int  `json:"shape"`
		DataType  any    `json:"data_type"`
		ChunkGrid struct {
			Configuration struct {
				ChunkShape []int `json:"chunk_shape"`
			} `json:"configuration"`
		} `json:"chunk_grid"`
		Codecs []v3Codec `json:"codecs"`
	}
	readJSON(t, path, &z)
	if z.NodeType != "array" || len(z.Codecs) == 0 {
		return nil
	}
	a := &fixtureArray{chunk: z.ChunkGrid.Configuration.ChunkShape, shape: z.Shape}
	codecs := z.Codecs
	if codecs[0].Name == "sharding_indexed" {
		var sc struct {
			ChunkShape    []int     `json:"chunk_shape"`
			Codecs        []v3Codec `json:"codecs"`
			IndexLocation string    `json:"index_location"`
		}
		if err := json.Unmarshal(codecs[0].Configuration, &sc); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		a.shard = &shardInfo{inner: product(a.chunk) / max(product(sc.ChunkShape), 1), atStart: sc.IndexLocation == "start"}
		a.chunk, codecs = sc.ChunkShape, sc.Codecs
	}
	last := codecs[len(codecs)-1]
	if last.Name != "blosc" {
		return nil
	}
	if name, ok := z.DataType.(string); ok && codecs[0].Name != "vlen-utf8" && codecs[0].Name != "vlen-bytes" {
		if dt, err := dtype.ParseV3(name); err == nil && !dt.Variable() {
			a.itemSize = dt.Size
		}
	}
	return a
}

func product(s []int) int {
	p := 1
	for _, v := range s {
		p *= v
	}
	return p
}

// frames returns the blosc frames of one chunk file: the file itself, or
// the inner chunks of a shard (index of (offset, nbytes) pairs plus a
// crc32c, at the start or the end).
func (a fixtureArray) frames(t *testing.T, b []byte) [][]byte {
	if a.shard == nil {
		return [][]byte{b}
	}
	isz := 16*a.shard.inner + 4
	if len(b) < isz {
		t.Fatalf("%s: shard of %d bytes", a.rel, len(b))
	}
	index := b[len(b)-isz:]
	if a.shard.atStart {
		index = b[:isz]
	}
	var out [][]byte
	for i := range a.shard.inner {
		off, n := binary.LittleEndian.Uint64(index[16*i:]), binary.LittleEndian.Uint64(index[16*i+8:])
		if off == math.MaxUint64 && n == math.MaxUint64 {
			continue
		}
		if off+n > uint64(len(b)) {
			t.Fatalf("%s: inner chunk %d outside the shard", a.rel, i)
		}
		out = append(out, b[off:off+n])
	}
	return out
}

// chunkFiles lists the chunk files of an array directory (every file that
// is not metadata), keyed by path relative to the array.
func chunkFiles(t *testing.T, dir string) map[string][]byte {
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch d.Name() {
		case ".zarray", ".zattrs", ".zgroup", ".zmetadata", "zarr.json":
			return nil
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		files[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestFixtureChunks decodes every blosc frame of every fixture array and
// checks its length against the header and the chunk shape; for plain 1-D
// arrays the decoded chunks must also hash to expected.json's sha256.
func TestFixtureChunks(t *testing.T) {
	root, ok := fixturesDir(t)
	if !ok {
		return
	}
	arrays := findBloscArrays(t, root)
	if len(arrays) < 40 {
		t.Fatalf("found only %d blosc arrays under %s", len(arrays), root)
	}
	dec := &Codec{cfg: DefaultConfig()}
	nframes, hashed := 0, 0
	for _, a := range arrays {
		chunks := map[string][]byte{}
		for key, b := range chunkFiles(t, a.dir) {
			for i, frame := range a.frames(t, b) {
				out := decodeFixtureFrame(t, dec, a, key, frame)
				if i == 0 {
					chunks[key] = out
				}
				nframes++
			}
		}
		if a.plain1D && checkSHA256(t, root, a, chunks) {
			hashed++
		}
	}
	if hashed < 10 {
		t.Fatalf("only %d arrays compared with expected.json", hashed)
	}
	t.Logf("decoded %d blosc frames of %d fixture arrays; %d arrays match expected.json", nframes, len(arrays), hashed)
}

func decodeFixtureFrame(t *testing.T, dec *Codec, a fixtureArray, key string, frame []byte) []byte {
	t.Helper()
	h, err := ParseHeader(frame)
	if err != nil {
		t.Fatalf("%s/%s: %v", a.rel, key, err)
	}
	spec := codec.Spec{DecodedSize: -1}
	if a.itemSize > 0 {
		spec.DecodedSize = int64(product(a.chunk) * a.itemSize)
	}
	out, err := dec.DecodeBytes(context.Background(), spec, frame)
	if err != nil {
		t.Fatalf("%s/%s (flags %#x, typesize %d): %v", a.rel, key, h.Flags, h.TypeSize, err)
	}
	if len(out) != h.NBytes || (spec.DecodedSize >= 0 && int64(len(out)) != spec.DecodedSize) {
		t.Fatalf("%s/%s: decoded %d bytes, header %d, chunk %d", a.rel, key, len(out), h.NBytes, spec.DecodedSize)
	}
	return out
}

// checkSHA256 concatenates the chunks of a 1-D array in order, cuts them
// to the array length and compares with the canonical digest.
func checkSHA256(t *testing.T, root string, a fixtureArray, chunks map[string][]byte) bool {
	t.Helper()
	var doc struct {
		Arrays map[string]struct {
			Expect struct {
				SHA256 string `json:"sha256"`
			} `json:"expect"`
		} `json:"arrays"`
	}
	readJSON(t, filepath.Join(root, "expected.json"), &doc)
	want := doc.Arrays[a.rel].Expect.SHA256
	if want == "" {
		return false
	}
	n := (a.shape[0] + a.chunk[0] - 1) / a.chunk[0]
	h := sha256.New()
	left := a.shape[0] * a.itemSize
	for i := range n {
		c, ok := chunks[strconv.Itoa(i)]
		if !ok {
			return false // a missing chunk is fill value: nothing to compare
		}
		k := min(left, len(c))
		h.Write(c[:k])
		left -= k
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		t.Fatalf("%s: decoded values hash to %s, expected.json says %s", a.rel, got, want)
	}
	return true
}

// TestFixtureValues compares one 2-D chunk with its known values: zarrs'
// float32 10x10 array holds 0..99 row-major in 5x5 chunks, so chunk 0.0 is
// r*10+c for r, c < 5 (zstd, bitshuffle).
func TestFixtureValues(t *testing.T) {
	root, ok := fixturesDir(t)
	if !ok {
		return
	}
	frame, err := os.ReadFile(filepath.Join(root, "zarrs", "v3", "array_blosc.zarr", "0.0"))
	if err != nil {
		t.Fatal(err)
	}
	dec := &Codec{cfg: DefaultConfig()}
	out, err := dec.DecodeBytes(context.Background(), specOf(100, "float32"), frame)
	if err != nil {
		t.Fatal(err)
	}
	for r := range 5 {
		for c := range 5 {
			got := math.Float32frombits(binary.LittleEndian.Uint32(out[4*(r*5+c):]))
			if got != float32(r*10+c) {
				t.Fatalf("[%d,%d] = %v, want %d", r, c, got, r*10+c)
			}
		}
	}
}
