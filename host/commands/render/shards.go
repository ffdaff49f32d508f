package render

import (
	"context"
	"errors"
	"fmt"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/store"
)

// maxShardsScanned bounds how many shard indexes inspect reads per array;
// beyond it the filled fraction is estimated from the first ones.
const maxShardsScanned = 1000

// ShardLayout describes the layout of an array's chunks and how full they
// are, for arrays whose sole codec describes one (codec.LayoutDescriber:
// sharding_indexed, in process or in a plugin); "" for other arrays.
func ShardLayout(ctx context.Context, a *array.Array) (string, error) {
	ab, sole := a.Pipeline().ArrayBytes()
	ld, ok := ab.(codec.LayoutDescriber)
	if !ok || !sole {
		return "", nil
	}
	layout, err := ld.DescribeLayout(ctx, a.Pipeline().Spec())
	if err != nil {
		return "", err
	}
	fill, err := filled(ctx, a, ld, layout.InnerChunks)
	if err != nil {
		return "", err
	}
	return layout.Description + ", " + fill, nil
}

// innerChunks is how many inner chunks a shard of spec holds; perShard
// those of the array's ChunkShape (every shard of a regular grid).
func innerChunks(ctx context.Context, ld codec.LayoutDescriber, spec codec.Spec, perShard int) int {
	if l, err := ld.DescribeLayout(ctx, spec); err == nil {
		return l.InnerChunks
	}
	return perShard
}

// filled counts stored inner chunks over the shards' indexes.
func filled(ctx context.Context, a *array.Array, ld codec.LayoutDescriber, perShard int) (string, error) {
	var stored, total, shards, present int
	var ferr error
	a.Grid().Chunks(func(c []int) bool {
		if shards == maxShardsScanned {
			return false
		}
		shards++
		spec, err := a.ChunkSpec(ctx, c) // a rectilinear grid's shards differ
		if err != nil {
			ferr = err
			return false
		}
		s, t, err := ld.Occupancy(ctx, spec, a.ChunkRanges(c))
		switch {
		case errors.Is(err, store.ErrNotFound):
			total += innerChunks(ctx, ld, spec, perShard)
		case err != nil:
			ferr = fmt.Errorf("shard %s: %w", a.ChunkKey(c), err)
			return false
		default:
			present++
			stored += s
			total += t
		}
		return true
	})
	if ferr != nil {
		return "", ferr
	}
	note := ""
	if shards < a.Grid().NumChunks() {
		note = fmt.Sprintf(" (first %d of %d shards)", shards, a.Grid().NumChunks())
	}
	pct := 0.0
	if total > 0 {
		pct = 100 * float64(stored) / float64(total)
	}
	return fmt.Sprintf("filled %d/%d inner chunks (%.0f%%) in %d stored shards%s", stored, total, pct, present, note), nil
}
