package pages

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/checked"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/commands/render"
	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/host/serve/pages/picture"
	"github.com/zarrgw/zarrgw/host/serve/server"
	"github.com/zarrgw/zarrgw/host/serve/server/arraycost"
)

// The fuzzed gateway's budget of expensive requests, and the most an
// estimate may be for the request to be carried out and measured.
const (
	fuzzBudget = 64 << 20
	fuzzRun    = 64 << 20
)

// FuzzArrayEstimate takes any array metadata (v3 zarr.json, or v2
// .zarray) and any request (selection, format, max_pixels) through what
// the array API does before it reads: opening the array (the checks of
// its metadata), parsing the selection, estimating the memory the read
// holds (a slice's, or a picture's as it is fitted to the budget). It
// asserts no panic and no negative estimate, an overflow only as 413;
// and, carrying out the request over a store of no chunks (each read as
// its fill value), that what the read allocates is at most the estimate.
func FuzzArrayEstimate(f *testing.F) {
	for _, s := range []struct {
		doc, slice string
		format     uint8
	}{
		{fuzzV3(`[100,200]`, `[10,20]`, `float32`, plainCodecs), "0:50,::3", 0},
		{fuzzV3(`[100,200]`, `[10,20]`, `float32`, plainCodecs), "5,:", 1},
		{fuzzV3(`[1000]`, `[7]`, `uint8`, plainCodecs), "::2", 2},
		{fuzzV3(`[64,64]`, `[32,32]`, `int16`, shardedCodecs(`[8,8]`)), "1:60,2:63", 3},
		{fuzzV3(`[64,64]`, `[32,32]`, `float64`, shardedCodecs(`[8,8]`)), "", 4},
		{fuzzV3(`[100000]`, `[1000]`, `float32`, plainCodecs), "", 5},
		{fuzzV3(`[100000]`, `[1000]`, `float32`, plainCodecs), "::7", 6},
		{fuzzV3(`[30,40,50]`, `[7,8,9]`, `string`, `[{"name":"vlen-utf8"}]`), "1:3,::2,4", 0},
		{fuzzV3(`[1099511627776,1099511627776]`, `[1073741824,1073741824]`, `float32`, shardedCodecs(`[1073741824,1073741824]`)), "0:2,0:2", 0},
		{fuzzV3(`[1073741824,1073741824]`, `[1073741824,1073741824]`, `float32`, shardedCodecs(`[1,1]`)), "0:2", 0},
		{fuzzV3(`[4611686018427387904,1]`, `[1048576,1]`, `uint8`, plainCodecs), "", 3},
		{fuzzV3(`[4611686018427387904]`, `[1024]`, `uint8`, plainCodecs), "", 2},
		{`{"zarr_format":2,"shape":[100,100],"chunks":[10,10],"dtype":"<f8","compressor":{"id":"zlib","level":1},"fill_value":0,"order":"F","filters":null}`, "3:7", 0},
	} {
		f.Add([]byte(s.doc), s.slice, s.format, uint32(0))
	}
	g := &Pages{Server: &server.Server{ExpensiveBudget: server.NewBudget(config.Safeguards{ExpensiveMemory: fuzzBudget})}}
	opts := registry.Bundled().InProcess().ArrayOptions()
	opts.Concurrency = 2
	// small limits: a chunk read whole is allocated whole, every run
	opts.Limits = meta.Limits{MaxChunkBytes: 8 << 20, MaxShardChunks: 1 << 16}
	ds := &server.Dataset{Opts: opts}
	f.Fuzz(func(t *testing.T, doc []byte, slice string, format uint8, maxPixels uint32) {
		var calls atomic.Int64
		a := fuzzArray(t, doc, opts, &calls)
		if a == nil {
			return
		}
		sel, err := grid.Parse(slice, a.Shape())
		if err != nil {
			return
		}
		stream := array.StreamOptions{MemoryBudget: g.ExpensiveBudget.StreamBudget()}
		if format%8 < 3 {
			f := []render.Format{render.FormatJSON, render.FormatNPY, render.FormatRaw}[format%8]
			cost, err := arraycost.SliceCost(a, sel, opts.Concurrency, stream.MemoryBudget)
			if !checkEstimate(t, cost, err) {
				return
			}
			allocated(t, cost, &calls, func() {
				render.Stream(context.Background(), &stopAfter{left: 64 << 10}, a, sel, f, stream)
			})
			return
		}
		po := picture.Options{MaxPixels: int(maxPixels % (1 << 16)), Stream: stream,
			Mean: format%8 == 4 || format%8 == 7, Plot: format%8 >= 5, Stride: format%8 == 6}
		po, cost, err := g.fitPicture(ds, a, sel, po)
		if errors.Is(err, picture.ErrUnsupported) || !checkEstimate(t, cost.bytes, err) {
			return
		}
		if n, ok := checked.Product(sel.Counts()); (po.Mean || po.Plot) && (!ok || n > 1<<22) {
			return // streamed whole: bounded in memory, not in time
		}
		allocated(t, cost.bytes, &calls, func() {
			var buf bytes.Buffer
			drawPicture(context.Background(), &buf, a, sel, po)
		})
	})
}

const plainCodecs = `[{"name":"bytes","configuration":{"endian":"little"}}]`

func shardedCodecs(inner string) string {
	return `[{"name":"sharding_indexed","configuration":{"chunk_shape":` + inner +
		`,"codecs":[{"name":"bytes","configuration":{"endian":"little"}}],"index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}]}}]`
}

func fuzzV3(shape, chunks, dtype, codecs string) string {
	fill := "0"
	if dtype == "string" {
		fill = `""`
	}
	return `{"zarr_format":3,"node_type":"array","shape":` + shape + `,"data_type":"` + dtype +
		`","chunk_grid":{"name":"regular","configuration":{"chunk_shape":` + chunks +
		`}},"chunk_key_encoding":{"name":"default"},"fill_value":` + fill + `,"codecs":` + codecs + `}`
}

// fuzzArray opens the array doc describes over an empty store whose
// calls it counts, or nil when the metadata is refused (never by a
// panic).
func fuzzArray(t *testing.T, doc []byte, opts array.Options, calls *atomic.Int64) *array.Array {
	am, _, err := meta.ParseV3(doc)
	if err != nil || am == nil {
		if am, err = meta.ParseV2Array(doc, nil); err != nil {
			return nil
		}
	}
	counted := store.WithHook(store.NewMemory(), func(ctx context.Context, _, _ string, call func(context.Context) error) error {
		calls.Add(1)
		return call(ctx)
	})
	a, err := array.New(context.Background(), counted, "", am, opts)
	if err != nil {
		return nil
	}
	return a
}

// checkEstimate fails on a negative estimate, and on a refusal other
// than 413 (beyond the budget, or beyond counting); it reports whether
// the request would be carried out within fuzzRun.
func checkEstimate(t *testing.T, cost int64, err error) bool {
	t.Helper()
	var re *server.RequestError
	switch {
	case err != nil && errors.As(err, &re) && re.Status == http.StatusRequestEntityTooLarge:
		return false
	case err != nil:
		t.Fatalf("estimate: %v (want 413 or an estimate)", err)
	case cost < 0:
		t.Fatalf("negative estimate %d", cost)
	}
	return cost <= fuzzRun
}

// Allocations that are garbage at once, which an estimate of the memory
// held leaves out: what each store call makes (a key, the error of a
// missing chunk), and the goroutines and channels of a read.
const (
	garbagePerCall = 1 << 10
	garbageFixed   = 256 << 10
)

// allocated runs fn and fails when it allocates more than the estimate
// and the garbage of the store calls it makes.
func allocated(t *testing.T, estimate int64, calls *atomic.Int64, fn func()) {
	t.Helper()
	var before, after runtime.MemStats
	calls.Store(0)
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	n, garbage := int64(after.TotalAlloc-before.TotalAlloc), garbageFixed+garbagePerCall*calls.Load()
	if n > estimate+garbage {
		t.Fatalf("allocated %d bytes, estimated %d (with %d for the garbage of %d store calls)", n, estimate, garbage, calls.Load())
	}
}

// stopAfter is a client that goes away after left bytes.
type stopAfter struct{ left int }

func (s *stopAfter) Write(p []byte) (int, error) {
	if len(p) > s.left {
		return 0, errors.New("client gone")
	}
	s.left -= len(p)
	return len(p), nil
}
