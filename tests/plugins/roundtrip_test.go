package plugins

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/plugins/builtin"
)

// chainCase is one codec chain for one data type.
type chainCase struct {
	name   string
	dtype  string
	chunks []int
	codecs string // JSON list of {"name", "configuration"}
}

const le = `{"name":"bytes","configuration":{"endian":"little"}}`

// chainCases use every bundled codec at least once.
var chainCases = []chainCase{
	{"bytes-big", "float64", nil, `[{"name":"bytes","configuration":{"endian":"big"}}]`},
	{"transpose", "int16", nil, `[{"name":"transpose","configuration":{"order":[2,0,1]}},` + le + `]`},
	{"gzip", "float32", nil, `[` + le + `,{"name":"gzip","configuration":{"level":5}}]`},
	{"zlib", "uint16", nil, `[` + le + `,{"name":"numcodecs.zlib","configuration":{"level":1}}]`},
	{"zstd", "float64", nil, `[` + le + `,{"name":"zstd","configuration":{"level":3,"checksum":true}}]`},
	{"lz4", "int32", nil, `[` + le + `,{"name":"numcodecs.lz4","configuration":{"acceleration":1}}]`},
	{"bz2", "uint8", nil, `[` + le + `,{"name":"numcodecs.bz2","configuration":{"level":1}}]`},
	{"blosc", "float32", nil, `[` + le + `,{"name":"blosc","configuration":{"cname":"lz4","clevel":5,"shuffle":"shuffle","typesize":4,"blocksize":0}}]`},
	{"shuffle-crc32c", "int64", nil, `[` + le + `,{"name":"numcodecs.shuffle","configuration":{"elementsize":8}},{"name":"crc32c"}]`},
	{"checksums", "uint32", nil, `[` + le + `,{"name":"numcodecs.crc32"},{"name":"numcodecs.adler32"},{"name":"numcodecs.fletcher32"}]`},
	{"delta", "int32", nil, `[{"name":"numcodecs.delta","configuration":{"dtype":"<i4"}},` + le + `]`},
	{"fixedscaleoffset", "float64", nil, `[{"name":"numcodecs.fixedscaleoffset","configuration":{"offset":0,"scale":1000,"dtype":"<f8","astype":"<i4"}},` + le + `]`},
	{"quantize", "float64", nil, `[{"name":"numcodecs.quantize","configuration":{"digits":3,"dtype":"<f8"}},` + le + `]`},
	{"bitround", "float32", nil, `[{"name":"numcodecs.bitround","configuration":{"keepbits":6}},` + le + `]`},
	{"vlen-utf8", "string", nil, `[{"name":"vlen-utf8"},{"name":"zstd","configuration":{"level":1}}]`},
	{"vlen-bytes", "bytes", nil, `[{"name":"vlen-bytes"}]`},
	{"json2", "string", nil, `[{"name":"numcodecs.json2"}]`},
	{"packbits", "int4", nil, `[{"name":"packbits"}]`},
	{"cast_value", "float64", nil, `[{"name":"cast_value","configuration":{"data_type":"float32","rounding":"nearest-even"}},` + le + `]`},
	{"scale_offset", "float64", nil, `[{"name":"scale_offset","configuration":{"offset":1,"scale":2}},` + le + `]`},
	{"reshape", "int16", nil, `[{"name":"reshape","configuration":{"shape":[[0,1],[2]]}},` + le + `]`},
	{"conditional", "int32", nil, `[` + le + `,{"name":"conditional","configuration":{"codecs":[{"name":"zstd","configuration":{"level":1,"checksum":false}}]}}]`},
	{"n5_default", "uint16", nil, `[{"name":"n5_default","configuration":{"codecs":[{"name":"transpose","configuration":{"order":[2,1,0]}},{"name":"bytes","configuration":{"endian":"big"}},{"name":"gzip","configuration":{"level":1}}]}}]`},
	{"sharding", "uint16", []int{4, 4, 2}, `[{"name":"sharding_indexed","configuration":{"chunk_shape":[2,2,1],
		"codecs":[` + le + `,{"name":"zstd","configuration":{"level":1}}],
		"index_codecs":[` + le + `,{"name":"crc32c"}],"index_location":"end"}}]`},
}

// Every chain writes and reads the same out of process as in process, down
// to the stored bytes; the counts of both runs are printed and must match.
func TestRoundTripOutOfProcess(t *testing.T) {
	checkEveryCodecUsed(t)
	l, _ := newLauncher(t)
	parts, err := registry.Bundled().OutOfProcess(l, zarrgwBin)
	if err != nil {
		t.Fatal(err)
	}
	codecs, openFS := parts.Codecs(), fsOpener(parts)
	var inPassed, outPassed int
	for _, c := range chainCases {
		t.Run(c.name, func(t *testing.T) {
			local := store.NewMemory()
			want, err := roundTripChain(c, local, registry.Codecs())
			if err != nil {
				t.Fatalf("in process: %v", err)
			}
			inPassed++
			remote, err := openFS(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer remote.Close()
			got, err := roundTripChain(c, remote, codecs)
			if err != nil {
				t.Fatalf("out of process: %v", err)
			}
			if got != want {
				t.Fatal("out of process read back other elements than in process")
			}
			if a, b := snapshot(t, local), snapshot(t, remote); !sameMap(a, b) {
				t.Fatalf("stored bytes differ between in and out of process (%d and %d keys)", len(a), len(b))
			}
			outPassed++
		})
	}
	fmt.Printf("round trip in process: %d of %d chains passed\nround trip out of process: %d of %d chains passed\n",
		inPassed, len(chainCases), outPassed, len(chainCases))
}

// roundTripChain writes random data in two overlapping writes (the second
// a read-modify-write of partial chunks), reopens the array and returns
// what a full read gives, in a comparable form.
func roundTripChain(c chainCase, s store.Store, codecs codec.Resolver) (string, error) {
	ctx := context.Background()
	var exts []meta.Extension
	if err := json.Unmarshal([]byte(c.codecs), &exts); err != nil {
		return "", err
	}
	dt := dtype.Named(c.dtype)
	chunks := c.chunks
	if chunks == nil {
		chunks = []int{3, 4, 2}
	}
	m := &meta.ArrayMeta{Format: meta.V3, Shape: []int{7, 6, 5}, ChunkShape: chunks, DataType: dt,
		Codecs: exts, ChunkKey: meta.ChunkKeyEncoding{Name: "default", Separator: "/"}, Attributes: json.RawMessage(`{}`)}
	if dt.Variable() {
		m.FillValue = []byte("")
	} else {
		m.FillValue = make([]byte, dt.Size)
	}
	opts := array.Options{Codecs: codecs, Concurrency: 4}
	a, err := hierarchy.CreateArray(ctx, s, "rt", m, opts)
	if err != nil {
		return "", err
	}
	r := rand.New(rand.NewSource(int64(len(c.name))))
	for _, box := range []grid.Selection{grid.Box([]int{0, 0, 0}, []int{7, 6, 5}), grid.Box([]int{1, 2, 1}, []int{4, 3, 3})} {
		if err := a.Write(ctx, box, randomElements(r, dt, box.Shape())); err != nil {
			return "", fmt.Errorf("write: %w", err)
		}
	}
	b, err := hierarchy.OpenArray(ctx, s, "rt", opts)
	if err != nil {
		return "", err
	}
	got, err := b.ReadAll(ctx)
	if err != nil {
		return "", fmt.Errorf("read: %w", err)
	}
	return fmt.Sprint(got.Shape, got.Strings, got.Data), nil
}

func randomElements(r *rand.Rand, dt dtype.DataType, shape []int) *ndarray.Array {
	a := ndarray.New(dt, shape)
	if dt.Variable() {
		for i := range a.Strings {
			a.Strings[i] = fmt.Sprintf("s%d-é", r.Intn(1000))
		}
		return a
	}
	r.Read(a.Data)
	if dt.Kind == dtype.Float {
		// small integers and halves: finite values every lossy filter keeps in range
		for i := 0; i < len(a.Data); i += dt.Size {
			setFloat(a.Data[i:i+dt.Size], float64(r.Intn(200))/2-50)
		}
	}
	return a
}

// checkEveryCodecUsed fails when a bundled codec is missing from chainCases,
// so a newly bundled codec is not left untested out of process.
func checkEveryCodecUsed(t *testing.T) {
	used := map[string]bool{}
	for _, c := range chainCases {
		var exts []struct {
			Name          string
			Configuration json.RawMessage
		}
		json.Unmarshal([]byte(c.codecs), &exts)
		for _, e := range exts {
			used[e.Name] = true
		}
	}
	used["bytes"] = true // in le, inside configurations
	for _, reg := range builtin.Codecs() {
		if !used[reg.Manifest.Name] {
			t.Errorf("bundled codec %s is in no chain", reg.Manifest.Name)
		}
	}
}

func setFloat(b []byte, v float64) {
	switch len(b) {
	case 4:
		binary.LittleEndian.PutUint32(b, math.Float32bits(float32(v)))
	case 8:
		binary.LittleEndian.PutUint64(b, math.Float64bits(v))
	}
}
