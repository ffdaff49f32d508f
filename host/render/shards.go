package render

import (
	"context"
	"errors"
	"fmt"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/codecs/sharding"
)

// maxShardsScanned bounds how many shard indexes inspect reads per array;
// beyond it the filled fraction is estimated from the first ones.
const maxShardsScanned = 1000

// ShardLayout describes a sharded array's layout and how full its shards
// are: "" for arrays that are not sharded.
func ShardLayout(ctx context.Context, a *array.Array) (string, error) {
	ab, sole := a.Pipeline().ArrayBytes()
	sc, ok := ab.(*sharding.Codec)
	if !ok || !sole {
		return "", nil
	}
	desc, err := sharding.Describe(sc.Configuration(), a.Meta().ChunkShape)
	if err != nil {
		return "", err
	}
	fill, err := filled(ctx, a, sc)
	if err != nil {
		return "", err
	}
	return desc + ", " + fill, nil
}

// filled counts stored inner chunks over the shards' indexes.
func filled(ctx context.Context, a *array.Array, sc *sharding.Codec) (string, error) {
	var stored, total, shards, present int
	var ferr error
	spec := a.Pipeline().Spec()
	a.Grid().Chunks(func(c []int) bool {
		if shards == maxShardsScanned {
			return false
		}
		shards++
		s, t, err := sc.Occupancy(ctx, spec, a.ChunkRanges(c))
		switch {
		case errors.Is(err, store.ErrNotFound):
			total += innerPerShard(a, sc)
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

func innerPerShard(a *array.Array, sc *sharding.Codec) int {
	n, _ := sc.InnerChunks(a.Meta().ChunkShape)
	return n
}
