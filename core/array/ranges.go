package array

import (
	"context"
	"fmt"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/store"
)

// chunkRanges reads byte ranges of one chunk key for partial decoders
// (a codec.RangeReader), and the whole chunk into a recycled buffer.
type chunkRanges struct{ store.KeyRanges }

func newChunkRanges(s store.Store, key string) chunkRanges {
	return chunkRanges{store.KeyRanges{Store: s, Name: key}}
}

// ReadWhole reads the whole chunk into buf when the store can read into a
// buffer and buf holds it (see readWhole).
func (c chunkRanges) ReadWhole(ctx context.Context, buf []byte) ([]byte, string, error) {
	data, version, err := readWhole(ctx, c.Store, c.Name, func(n int64) []byte {
		if n > int64(cap(buf)) {
			return nil
		}
		return buf[:n]
	})
	if err != nil {
		return nil, "", fmt.Errorf("read %s: %w", c.Name, err)
	}
	return data, version, nil
}

// readWhole reads the whole value of key: where the store reads into the
// caller's buffer, into the one buf gives for its size (nil: none), and
// otherwise, or when the value changes size under it, with Get. The
// version is the one Stat saw just before the read: a value replaced in
// between by one of the same size comes with the older version, which a
// conditional write then refuses, never accepts.
func readWhole(ctx context.Context, s store.Store, key string, buf func(n int64) []byte) ([]byte, string, error) {
	if store.OptionalOf(s).Into {
		info, err := s.Stat(ctx, key)
		if err != nil {
			return nil, "", err
		}
		if b := buf(info.Size); b != nil {
			got, err := store.GetInto(ctx, s, key, b)
			if err != nil {
				return nil, "", err
			}
			if got {
				return b, info.Version, nil
			}
		}
	}
	v, err := s.Get(ctx, key, store.ByteRange{})
	return v.Data, v.Version, err
}

// ChunkRanges reads byte ranges of the stored chunk at coords, as partial
// decoders do (for tools that inspect chunk layouts, such as shard indexes).
func (a *Array) ChunkRanges(coords []int) codec.RangeReader {
	return newChunkRanges(a.data, a.ChunkKey(coords))
}
