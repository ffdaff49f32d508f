package gateway_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/plugins/stores/fsstore"
)

// The arrays the gateway keeps between slice requests, and the shard
// indexes their codecs keep, never hide a change: the tests below write
// through the gateway and underneath it, and read values computed from
// the formula that wrote them.

// keptShape is the test array: uint16 [12 10] in shards [6 10] of inner
// chunks [3 5], zstd inside, crc32c on the index.
var keptShape = []int{12, 10}

const keptMeta = `{"zarr_format":3,"node_type":"array","shape":[12,10],"data_type":"uint16",
"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[6,10]}},
"chunk_key_encoding":{"name":"default","configuration":{"separator":"/"}},
"fill_value":FILL,"codecs":[{"name":"sharding_indexed","configuration":{"chunk_shape":[3,5],
"codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd","configuration":{"level":1}}],
"index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}]}}],"attributes":{}}`

func keptMetaDoc(fill int) string { return strings.Replace(keptMeta, "FILL", fmt.Sprint(fill), 1) }

// keptValues gives element (i, j) of the test array.
type keptValues func(i, j int) uint16

// formula is every element from the formula with seed.
func formula(seed int) keptValues {
	return func(i, j int) uint16 { return uint16(seed*1000 + i*37 + j*11) }
}

// withHoles is formula(seed) but for the first inner chunk of every
// shard, written as 0, the fill value: not stored, so that the shards'
// layout (where each inner chunk lies) differs from formula's. It reads
// as the fill value of the day, fill.
func withHoles(seed, fill int) keptValues {
	return func(i, j int) uint16 {
		if i%6 < 3 && j < 5 {
			return uint16(fill)
		}
		return formula(seed)(i, j)
	}
}

// fillOf is every element the fill value v.
func fillOf(v int) keptValues { return func(int, int) uint16 { return uint16(v) } }

// elements is the raw little-endian bytes of a box of the array.
func (f keptValues) elements(start, count []int) []byte {
	out := make([]byte, 0, 2*count[0]*count[1])
	for i := start[0]; i < start[0]+count[0]; i++ {
		for j := start[1]; j < start[1]+count[1]; j++ {
			out = binary.LittleEndian.AppendUint16(out, f(i, j))
		}
	}
	return out
}

// writeKept writes the array at path under dir (the store's root),
// without the gateway.
func writeKept(t *testing.T, dir, path string, f keptValues) {
	t.Helper()
	s, err := fsstore.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := meta.ParseV3([]byte(keptMetaDoc(0)))
	if err != nil || m == nil {
		t.Fatalf("the test's metadata: %v", err)
	}
	ctx := context.Background()
	a, err := hierarchy.CreateArray(ctx, s, path, m, array.Options{Codecs: registry.Codecs()})
	if err != nil {
		t.Fatal(err)
	}
	data := &ndarray.Array{DType: m.DataType, Shape: keptShape, Data: f.elements([]int{0, 0}, keptShape)}
	if err := a.Write(ctx, grid.All(keptShape), data); err != nil {
		t.Fatal(err)
	}
}

// readKept reads a box through the array API as raw bytes.
func readKept(t *testing.T, tg *testGateway, path string, start, count []int) string {
	t.Helper()
	slice := fmt.Sprintf("%d:%d,%d:%d", start[0], start[0]+count[0], start[1], start[1]+count[1])
	resp, body := tg.do(t, http.MethodGet, "/d/open/"+path+"?format=raw&slice="+slice, "")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s[%s]: %d %s", path, slice, resp.StatusCode, body)
	}
	return body
}

// checkKept fails unless a box of the array reads as f.
func checkKept(t *testing.T, tg *testGateway, what, path string, f keptValues, start, count []int) {
	t.Helper()
	if got, want := readKept(t, tg, path, start, count), string(f.elements(start, count)); got != want {
		t.Fatalf("%s: %v+%v reads %x, want %x", what, start, count, got, want)
	}
}

// checkInner checks the inner chunks of shard (row) k one by one, each
// read with the shard's index as kept.
func checkInner(t *testing.T, tg *testGateway, what string, f keptValues, k int) {
	t.Helper()
	for i := 6 * k; i < 6*k+6; i += 3 {
		for j := 0; j < 10; j += 5 {
			checkKept(t, tg, what, "a", f, []int{i, j}, []int{3, 5})
		}
	}
}

// One inner chunk, a box across inner chunks and shards, the whole array.
var keptBoxes = [][2][]int{{{3, 5}, {3, 5}}, {{2, 3}, {7, 6}}, {{0, 0}, {12, 10}}}

// A slice written through the array API, and a shard and a metadata
// document written through the key API, read back at once.
func TestKeptArraysSeeWritesThroughTheGateway(t *testing.T) {
	tg := newTestGateway(t) // cache_ttl 1h: only invalidation shows a change
	writeKept(t, filepath.Join(tg.root, "open"), "a", formula(1))
	writeKept(t, filepath.Join(tg.root, "other"), "a", withHoles(2, 0)) // a shard to copy in
	for _, b := range keptBoxes {
		checkKept(t, tg, "as written", "a", formula(1), b[0], b[1])
	}

	// the array API writes the first inner chunk and part of another
	resp, body := tg.do(t, http.MethodPut, "/d/open/a?format=raw&slice=0:3,0:10", string(formula(3).elements([]int{0, 0}, []int{3, 10})))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("PUT slice: %d %s", resp.StatusCode, body)
	}
	checkKept(t, tg, "after a slice write", "a", formula(3), []int{0, 0}, []int{3, 10})
	checkKept(t, tg, "beside a slice write", "a", formula(1), []int{3, 0}, []int{9, 10})

	// the key API replaces the second shard by another array's
	shard, err := os.ReadFile(filepath.Join(tg.root, "other", "a", "c", "1", "0"))
	if err != nil {
		t.Fatal(err)
	}
	tg.put(t, "/d/open/a/c/1/0", string(shard))
	checkInner(t, tg, "after a shard write", withHoles(2, 0), 1)
	checkKept(t, tg, "beside a shard write", "a", formula(3), []int{0, 0}, []int{3, 10})

	// the key API changes the fill value, and a shard goes
	tg.put(t, "/d/open/a/zarr.json", keptMetaDoc(7))
	if resp, body := tg.do(t, http.MethodDelete, "/d/open/a/c/1/0", ""); resp.StatusCode/100 != 2 {
		t.Fatalf("DELETE shard: %d %s", resp.StatusCode, body)
	}
	checkKept(t, tg, "after the fill value changed", "a", fillOf(7), []int{6, 0}, []int{6, 10})
	checkKept(t, tg, "a shard kept", "a", formula(1), []int{3, 0}, []int{3, 10})
}

// A shard rewritten underneath the gateway reads at once (the shard's
// index kept is confirmed by the version of the bytes read next); a
// metadata document rewritten underneath reads within cache_ttl.
func TestKeptArraysSeeChangesUnderneath(t *testing.T) {
	tg := newGatewayOf(t, strings.Replace(testConfig, `cache_ttl        = "1h"`, `cache_ttl = "200ms"`, 1))
	dir := filepath.Join(tg.root, "open")
	writeKept(t, dir, "a", formula(1))
	for _, b := range keptBoxes {
		checkKept(t, tg, "as written", "a", formula(1), b[0], b[1])
	}
	writeKept(t, dir, "a", withHoles(4, 0))
	checkInner(t, tg, "rewritten underneath", withHoles(4, 0), 0)
	checkInner(t, tg, "rewritten underneath", withHoles(4, 0), 1)
	for _, b := range keptBoxes {
		checkKept(t, tg, "rewritten underneath", "a", withHoles(4, 0), b[0], b[1])
	}

	// a new fill value, and the second shard gone: seen once the
	// metadata cache lets the old document go
	if err := os.WriteFile(filepath.Join(dir, "a", "zarr.json"), []byte(keptMetaDoc(9)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "a", "c", "1", "0")); err != nil {
		t.Fatal(err)
	}
	want := string(fillOf(9).elements([]int{6, 0}, []int{6, 10}))
	// the metadata cache keeps the old document for cache_ttl: poll
	waitFor(t, func() bool { return readKept(t, tg, "a", []int{6, 0}, []int{6, 10}) == want })
	checkInner(t, tg, "a shard kept", withHoles(4, 9), 0)
}

// Reading the inner chunks of a shard one by one reads the shard's index
// once: every later inner chunk is one ranged read.
func TestKeptArraysReadAnIndexOnce(t *testing.T) {
	tg := newTestGateway(t)
	writeKept(t, filepath.Join(tg.root, "open"), "a", formula(5))
	tg.rec.reset()
	for i := 0; i < 6; i += 3 {
		for j := 0; j < 10; j += 5 {
			checkKept(t, tg, "an inner chunk", "a", formula(5), []int{i, j}, []int{3, 5})
		}
	}
	reads := 0
	tg.rec.mu.Lock()
	for _, c := range tg.rec.calls {
		if c == "get open/a/c/0/0" {
			reads++
		}
	}
	tg.rec.mu.Unlock()
	if reads != 5 {
		t.Fatalf("4 inner chunks of a shard took %d reads of it, want 5 (its index once, then each chunk)", reads)
	}
}
