package meta

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/dtype"
)

// limitDoc is a v3 zarr.json of a float32 array, its codecs given as JSON.
func limitDoc(shape, chunks, codecs string) string {
	return fmt.Sprintf(`{"zarr_format":3,"node_type":"array","shape":%s,"data_type":"float32",
"chunk_grid":{"name":"regular","configuration":{"chunk_shape":%s}},"chunk_key_encoding":{"name":"default"},
"fill_value":0,"codecs":%s}`, shape, chunks, codecs)
}

const bytesLE = `{"name":"bytes","configuration":{"endian":"little"}}`

// sharded is a sharding_indexed chain with inner chunks of inner and
// inner codecs (bytes when empty).
func sharded(inner, codecs string) string {
	if codecs == "" {
		codecs = "[" + bytesLE + "]"
	}
	return `[{"name":"sharding_indexed","configuration":{"chunk_shape":` + inner + `,"codecs":` + codecs +
		`,"index_codecs":[` + bytesLE + `,{"name":"crc32c"}]}}]`
}

func parsedArray(t *testing.T, doc string) *ArrayMeta {
	t.Helper()
	a, _, err := ParseV3([]byte(doc))
	if err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
	return a
}

// Real arrays, large ones included, are within the default limits.
func TestCheckAdmitsRealArrays(t *testing.T) {
	plain := "[" + bytesLE + "]"
	for name, doc := range map[string]string{
		"1e6 x 1e6 in 1000 x 1000 chunks": limitDoc("[1000000,1000000]", "[1000,1000]", plain),
		"chunks of 256 MiB":               limitDoc("[100000,100000]", "[8192,8192]", plain),
		"chunks larger than the array":    limitDoc("[10]", "[1000]", plain),
		"empty":                           limitDoc("[0,5]", "[1,1]", plain),
		"a 0-d array":                     limitDoc("[]", "[]", plain),
		"shards of 32 x 32 inner chunks":  limitDoc("[1000000,1000000]", "[32768,32768]", sharded("[1024,1024]", "")),
		"shards of 1 GiB inner chunks":    limitDoc("[1000000,1000000]", "[65536,65536]", sharded("[16384,16384]", "")),
		"nested sharding":                 limitDoc("[65536,65536]", "[4096,4096]", sharded("[1024,1024]", sharded("[64,64]", ""))),
		"sharding named by its URI":       limitDoc("[1000000,1000000]", "[32768,32768]", strings.Replace(sharded("[1024,1024]", ""), "sharding_indexed", "https://zarr-specs.readthedocs.io/en/latest/v3/codecs/sharding-indexed/v1.0.html", 1)),
		"the most elements of float32":    limitDoc("[2305843009213693951]", "[1000]", plain),
	} {
		if err := parsedArray(t, doc).Check(Limits{}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	a := parsedArray(t, limitDoc("[1000,1000]", "[100,100]", "["+bytesLE+"]"))
	a.StorageTransformers = []Extension{{Name: "sharding", Configuration: []byte(`{"chunks_per_shard":[32,32]}`)}}
	if err := a.Check(Limits{}); err != nil {
		t.Errorf("sharding transformer of 32 x 32: %v", err)
	}
}

// Metadata beyond what a reader can hold is refused from the document
// alone, with an error wrapping ErrInvalid that names the field.
func TestCheckRefusesBombs(t *testing.T) {
	plain := "[" + bytesLE + "]"
	for _, c := range []struct {
		name, doc string
		limits    Limits
		want      string // in the error
	}{
		{"elements past 64 bits", limitDoc("[1099511627776,1099511627776]", "[1073741824,1073741824]", plain), Limits{}, "shape [1099511627776 1099511627776]"},
		{"bytes past 64 bits", limitDoc("[2,4611686018427387904]", "[1,1]", plain), Limits{}, "shape [2 4611686018427387904]"},
		{"one dimension's bytes past 64 bits", limitDoc("[4611686018427387904]", "[1]", plain), Limits{}, "8 EiB"},
		{"a chunk past 64 bits", limitDoc("[1,1]", "[4611686018427387904,4611686018427387904]", plain), Limits{}, "chunk shape"},
		{"a chunk of 2 GiB", limitDoc("[100000,100000]", "[32768,16384]", plain), Limits{}, "chunk_grid.chunk_shape [32768 16384]: a chunk decoded whole would hold 2GiB, more than the limit of 1GiB (max_chunk_bytes)"},
		{"an inner chunk of 4 EiB", limitDoc("[1099511627776,1048576]", "[1073741824,1073741824]", sharded("[1073741824,1073741824]", "")), Limits{}, "codecs[0] (sharding_indexed) chunk_shape [1073741824 1073741824]: a chunk decoded whole would hold 4EiB"},
		{"2^60 inner chunks in a shard", limitDoc("[1073741824,1073741824]", "[1073741824,1073741824]", sharded("[1,1]", "")), Limits{}, "a shard holds 1152921504606846976 inner chunks (1073741824 x 1073741824), more than the limit of 4194304 (max_shard_chunks)"},
		{"nested inner chunks past 64 bits", limitDoc("[1,1]", "[1,1]", sharded("[4294967296,4294967296]", sharded("[1,1]", ""))), Limits{}, "more than 2^63"},
		{"a nested shard's inner chunks", limitDoc("[65536,65536]", "[65536,65536]", sharded("[8192,8192]", sharded("[1,1]", ""))), Limits{}, "codecs[0] (sharding_indexed) codecs[0] (sharding_indexed) chunk_shape [1 1]: a shard holds 67108864 inner chunks (8192 x 8192)"},
		{"a whole shard decoded when sharding is not alone", limitDoc("[100000,100000]", "[32768,32768]", `[{"name":"sharding_indexed","configuration":{"chunk_shape":[1024,1024],"codecs":[`+bytesLE+`]}},{"name":"crc32c"}]`), Limits{}, "chunk_grid.chunk_shape [32768 32768]: a chunk decoded whole would hold 4GiB"},
		{"65 dimensions", limitDoc("["+strings.Repeat("1,", 64)+"1]", "["+strings.Repeat("1,", 64)+"1]", plain), Limits{}, "shape has 65 dimensions, more than the limit of 64 (max_array_rank)"},
		{"a configured rank", limitDoc("[1,1,1]", "[1,1,1]", plain), Limits{MaxRank: 2}, "more than the limit of 2 (max_array_rank)"},
		{"a configured chunk size", limitDoc("[4096]", "[1024]", plain), Limits{MaxChunkBytes: 1024}, "would hold 4KiB, more than the limit of 1KiB"},
		{"a configured shard size", limitDoc("[64]", "[64]", sharded("[1]", "")), Limits{MaxShardChunks: 16}, "a shard holds 64 inner chunks (64), more than the limit of 16"},
	} {
		err := parsedArray(t, c.doc).Check(c.limits)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want an invalid metadata error saying %q", c.name, err, c.want)
		}
	}
	a := parsedArray(t, limitDoc("[1000000,1000000]", "[1,1]", "["+bytesLE+"]"))
	a.StorageTransformers = []Extension{{Name: "https://purl.org/zarr/spec/storage_transformers/sharding/1.0", Configuration: []byte(`{"chunks_per_shard":[4096,4096]}`)}}
	if err := a.Check(Limits{}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "storage_transformers[0]") {
		t.Errorf("chunks_per_shard [4096, 4096]: %v; want it refused, naming storage_transformers[0]", err)
	}
	s := &ArrayMeta{Format: V3, Shape: []int{3}, ChunkShape: []int{1}, DataType: dtype.DataType{Kind: dtype.String, Name: "string"}}
	s.Shape = []int{1 << 58}
	if err := s.Check(Limits{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("2^58 strings (64 bytes each in memory): %v, want refused", err)
	}
}

// Every metadata document of the shared fixtures is within the default
// limits: they are real arrays, written by real implementations.
func TestCheckAdmitsEveryFixture(t *testing.T) {
	checked := 0
	for _, dir := range []string{fixturesDir(t), filepath.Join(fixturesDir(t), "zarr-metadata")} {
		files := metadataFiles(t, dir)
		for _, p := range files["zarr.json"] {
			a, _, err := ParseV3(readFile(t, p))
			if err != nil || a == nil {
				continue // groups, and the documents meant to fail parsing
			}
			if err := a.Check(Limits{}); err != nil {
				t.Errorf("%s: %v", p, err)
			}
			checked++
		}
		for _, p := range files[".zarray"] {
			a, err := ParseV2Array(readFile(t, p), nil)
			if err != nil {
				continue
			}
			if err := a.Check(Limits{}); err != nil {
				t.Errorf("%s: %v", p, err)
			}
			checked++
		}
	}
	if _, err := os.Stat(fixturesDir(t)); err != nil || checked < 100 {
		t.Fatalf("checked %d fixture arrays (%v): the fixtures are missing", checked, err)
	}
	t.Logf("%d fixture arrays within the default limits", checked)
}
