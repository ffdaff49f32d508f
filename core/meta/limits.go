package meta

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/zarrgw/zarrgw/core/checked"
)

// ErrInvalid is wrapped by the errors of array metadata that cannot be
// read safely: a broken invariant, a size that overflows 64 bits, a limit
// exceeded. Anyone who may write a dataset writes its metadata, so
// readers check it before they act on it.
var ErrInvalid = errors.New("invalid array metadata")

// Limits bound what an array's metadata may make a reader hold. The zero
// value of each field means its default; the defaults fit a machine of
// 4 GB and admit every real array we know of (a 1e6 x 1e6 array in
// 1000 x 1000 chunks, chunks of a few hundred MiB).
type Limits struct {
	// MaxRank bounds an array's dimensions (numpy's own bound is 64).
	MaxRank int
	// MaxChunkBytes bounds the memory of a chunk decoded whole: the
	// array's chunk, or, when its chain is one sharding_indexed codec
	// (read an inner chunk at a time), an inner chunk.
	MaxChunkBytes int64
	// MaxShardChunks bounds the inner chunks of a shard (sharding_indexed
	// at any depth, the sharding storage transformer's chunks_per_shard):
	// a shard's index, 16 bytes per inner chunk, is read whole.
	MaxShardChunks int64
	// MaxChunkEdges bounds the chunk edges one dimension of a rectilinear
	// grid lists, run-length pairs expanded: readers hold them.
	MaxChunkEdges int
}

// Defaults of Limits.
const (
	DefaultMaxRank        = 64
	DefaultMaxChunkBytes  = 1 << 30
	DefaultMaxShardChunks = 1 << 22 // an index of 64 MiB
	DefaultMaxChunkEdges  = 1 << 20 // 8 MiB of edges per dimension
)

// withDefaults fills the fields left zero.
func (l Limits) withDefaults() Limits {
	if l.MaxRank <= 0 {
		l.MaxRank = DefaultMaxRank
	}
	if l.MaxChunkBytes <= 0 {
		l.MaxChunkBytes = DefaultMaxChunkBytes
	}
	if l.MaxShardChunks <= 0 {
		l.MaxShardChunks = DefaultMaxShardChunks
	}
	if l.MaxChunkEdges <= 0 {
		l.MaxChunkEdges = DefaultMaxChunkEdges
	}
	return l
}

// ChunkEdgesLimit is MaxChunkEdges, or its default when zero.
func (l Limits) ChunkEdgesLimit() int { return l.withDefaults().MaxChunkEdges }

// invalidf is an error wrapping ErrInvalid.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// Check validates the metadata (Validate) and checks it against limits,
// from the metadata alone: readers call it before any store or codec
// work, so that a document asking for exabytes is refused, not obeyed.
// Errors wrap ErrInvalid and name the field.
func (a *ArrayMeta) Check(l Limits) error {
	if err := a.Validate(); err != nil {
		return err
	}
	l = l.withDefaults()
	if len(a.Shape) > l.MaxRank {
		return invalidf("shape has %d dimensions, more than the limit of %d (max_array_rank)", len(a.Shape), l.MaxRank)
	}
	if err := a.checkEdges(l); err != nil {
		return err
	}
	if err := a.shardEdgesUntiled(a.soleSharding()); err != nil {
		return err
	}
	for i, c := range a.Codecs {
		if err := checkShards(c, a.ChunkShape, l, fmt.Sprintf("codecs[%d] (%s)", i, c.Name)); err != nil {
			return err
		}
	}
	whole, field := a.ChunkShape, "chunk_grid.chunk_shape"
	if inner := a.soleSharding(); inner != nil {
		whole, field = inner, "codecs[0] ("+a.Codecs[0].Name+") chunk_shape"
	}
	if err := checkChunkBytes(whole, a.DataType.MemBytes(), l, field); err != nil {
		return err
	}
	for i, t := range a.StorageTransformers {
		if err := checkChunksPerShard(t.Configuration, l, fmt.Sprintf("storage_transformers[%d] (%s)", i, t.Name)); err != nil {
			return err
		}
	}
	return nil
}

// checkChunkBytes bounds a chunk decoded whole.
func checkChunkBytes(shape []int, elem int64, l Limits, field string) error {
	var c checked.Calc
	n := c.Mul(c.Product(shape), elem)
	if c.Overflowed() || n > l.MaxChunkBytes {
		return invalidf("%s %v: a chunk decoded whole would hold %s, more than the limit of %s (max_chunk_bytes)",
			field, shape, bytesText(n, c.Overflowed()), bytesText(l.MaxChunkBytes, false))
	}
	return nil
}

// checkShards checks the inner chunks of shards of shardShape, when c
// is a sharding codec: how many a shard has, here and in the sharding
// codecs nested in its inner codecs.
func checkShards(c Extension, shardShape []int, l Limits, field string) error {
	inner, codecs, ok := shardingConfig(c)
	if !ok || len(inner) != len(shardShape) {
		return nil
	}
	counts := make([]int, len(shardShape))
	for d, n := range inner {
		if n <= 0 {
			return nil // the codec refuses it
		}
		counts[d] = checked.CeilDiv(shardShape[d], n)
	}
	if err := checkShardCount(counts, l, field+" chunk_shape "+fmt.Sprint(inner)); err != nil {
		return err
	}
	for i, nested := range codecs {
		if err := checkShards(nested, inner, l, fmt.Sprintf("%s codecs[%d] (%s)", field, i, nested.Name)); err != nil {
			return err
		}
	}
	return nil
}

// checkChunksPerShard checks a storage transformer that groups chunks
// into shards (the sharding transformer's chunks_per_shard, under any of
// its names); other transformers pass.
func checkChunksPerShard(configuration json.RawMessage, l Limits, field string) error {
	var cfg struct {
		ChunksPerShard []int `json:"chunks_per_shard"`
	}
	if json.Unmarshal(configuration, &cfg) != nil || cfg.ChunksPerShard == nil {
		return nil
	}
	return checkShardCount(cfg.ChunksPerShard, l, field+" chunks_per_shard")
}

func checkShardCount(counts []int, l Limits, field string) error {
	n, ok := checked.Product(counts)
	if !ok || int64(n) > l.MaxShardChunks {
		return invalidf("%s: a shard holds %s inner chunks (%s), more than the limit of %d (max_shard_chunks)",
			field, countText(int64(n), !ok), joinTimes(counts), l.MaxShardChunks)
	}
	return nil
}

// bytesText writes a byte count for people; over says it overflowed.
func bytesText(n int64, over bool) string {
	if over {
		return "more than 8 EiB (the product overflows 64 bits)"
	}
	for _, u := range []struct {
		unit string
		size int64
	}{{"EiB", 1 << 60}, {"PiB", 1 << 50}, {"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size {
			if n%u.size == 0 {
				return fmt.Sprintf("%d%s", n/u.size, u.unit)
			}
			return fmt.Sprintf("%.1f%s", float64(n)/float64(u.size), u.unit)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// joinTimes writes counts as a product: "4 x 1024 x 1024".
func joinTimes(counts []int) string {
	parts := make([]string, len(counts))
	for i, n := range counts {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, " x ")
}

func countText(n int64, over bool) string {
	if over {
		return "more than 2^63 (the product overflows 64 bits)"
	}
	return fmt.Sprint(n)
}
