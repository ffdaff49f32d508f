package array

import (
	"context"
	"fmt"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/store"
)

// chunkRanges reads byte ranges of one chunk key for partial decoders
// (a codec.RangeReader).
type chunkRanges struct {
	st  store.Store
	key string
}

// ReadRanges reads the ranges with the version they came from, so a
// partial decoder (sharding) may cache a shard's index and still notice
// when the shard changes under it.
func (c chunkRanges) ReadRanges(ctx context.Context, ranges []store.ByteRange) ([][]byte, string, error) {
	return store.ReadRanges(ctx, c.st, c.key, ranges)
}

func (c chunkRanges) SuffixRanges() bool { return c.st.Capabilities().SuffixRanges }

func (c chunkRanges) Key() string { return c.key }

func (c chunkRanges) Size(ctx context.Context) (int64, error) {
	info, err := c.st.Stat(ctx, c.key)
	if err != nil {
		return 0, fmt.Errorf("stat %s: %w", c.key, err)
	}
	return info.Size, nil
}

// ReadWhole reads the whole chunk into buf when the store can read into a
// buffer and buf holds it. The version is the one Stat saw just before: a
// value replaced in between by one of the same size is returned with the
// older version, which a conditional write then refuses, never accepts.
func (c chunkRanges) ReadWhole(ctx context.Context, buf []byte) ([]byte, string, error) {
	if _, into := c.st.(store.ReaderInto); into {
		info, err := c.st.Stat(ctx, c.key)
		if err != nil {
			return nil, "", fmt.Errorf("stat %s: %w", c.key, err)
		}
		if info.Size <= int64(cap(buf)) {
			got, err := store.GetInto(ctx, c.st, c.key, buf[:info.Size])
			if err != nil {
				return nil, "", fmt.Errorf("read %s: %w", c.key, err)
			}
			if got {
				return buf[:info.Size], info.Version, nil
			}
		}
	}
	v, err := c.st.Get(ctx, c.key, store.ByteRange{})
	if err != nil {
		return nil, "", fmt.Errorf("read %s: %w", c.key, err)
	}
	return v.Data, v.Version, nil
}

// ChunkRanges reads byte ranges of the stored chunk at coords, as partial
// decoders do (for tools that inspect chunk layouts, such as shard indexes).
func (a *Array) ChunkRanges(coords []int) codec.RangeReader {
	return chunkRanges{st: a.data, key: a.ChunkKey(coords)}
}
