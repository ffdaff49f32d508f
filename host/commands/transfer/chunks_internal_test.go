package transfer

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
)

// What a rewrite holds in flight is what its budget allows: with the
// default, two chunks of 256^3 uint16 (32 MiB) copied whole at once, the
// box read and its encoding counted for each; with 64 MiB, less than one
// such chunk holds, so it is written in pieces, one at a time; a shard
// holds its inner chunks as encoded too, so one is copied at a time; a grid
// that differs from the source's counts the scratch of the source chunks
// read at once too;
// the jobs bound the chunks in flight whatever the budget.
func TestChunkCopierSizing(t *testing.T) {
	chunk := []int{256, 256, 256}
	const chunkBytes = 256 * 256 * 256 * 2
	for _, c := range []struct {
		name              string
		budget            int64
		jobs              int
		srcChunks         []int
		sharded           bool // the new chunks shards of 64^3
		inFlight          int
		piece, scratchLen int64
	}{
		{"default", 0, 0, chunk, false, 2, chunkBytes, 0},
		{"64 MiB", 64 << 20, 0, chunk, false, 1, (64 << 20) * 8 / 17, 0},
		{"1 GiB, 4 jobs", 1 << 30, 4, chunk, false, 4, chunkBytes, 0},
		{"other source grid", 0, 0, []int{128, 128, 128}, false, 1, chunkBytes, 4 * chunkBytes / 8}, // 4 source chunks read at once
		{"sharded", 0, 0, chunk, true, 1, chunkBytes, 0},                                            // its inner chunks held too
	} {
		t.Run(c.name, func(t *testing.T) {
			inner := []meta.Extension{{Name: "bytes", Configuration: json.RawMessage(`{"endian":"little"}`)}, {Name: "zstd"}}
			m := func(chunks []int, codecs []meta.Extension) *meta.ArrayMeta {
				return &meta.ArrayMeta{Format: meta.V3, Shape: []int{1024, 1024, 1024}, ChunkShape: chunks, DataType: dtype.Named("uint16"),
					FillValue: []byte{0, 0}, ChunkKey: meta.ChunkKeyEncoding{Name: "default", Separator: "/"}, Codecs: codecs}
			}
			out := inner
			if c.sharded {
				out = []meta.Extension{{Name: "sharding_indexed", Configuration: json.RawMessage(`{"chunk_shape":[64,64,64],` +
					`"codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd"}],` +
					`"index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}]}`)}}
			}
			n := &outNode{src: hierarchy.Node{Path: "a", Array: m(c.srcChunks, inner)}, out: hierarchy.Node{Path: "a", Array: m(chunk, out)}}
			e := Endpoint{Name: "mem", Store: store.NewMemory(), Options: array.Options{Codecs: registry.Codecs(), Concurrency: 4}}
			cc, err := newChunkCopier(context.Background(), e, e, n, Options{Jobs: c.jobs, Stream: array.StreamOptions{MemoryBudget: c.budget}})
			if err != nil {
				t.Fatal(err)
			}
			if cc.inFlight != c.inFlight || cc.piece != c.piece || cc.scratch != c.scratchLen {
				t.Fatalf("%d in flight, pieces of %d bytes, scratch %d: want %d, %d, %d", cc.inFlight, cc.piece, cc.scratch, c.inFlight, c.piece, c.scratchLen)
			}
			budget := c.budget
			if budget == 0 {
				budget = DefaultMemoryBudget
			}
			if held := int64(cc.inFlight) * cc.memory(cc.piece); cc.inFlight > 1 && held > budget {
				t.Fatalf("%d in flight hold %d bytes, over the budget of %d", cc.inFlight, held, budget)
			}
		})
	}
}
