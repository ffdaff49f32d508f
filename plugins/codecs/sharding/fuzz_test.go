package sharding_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"testing"

	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/builtin"
	"github.com/zarrgw/zarrgw/plugins/codecs/sharding"
)

// FuzzDecodeShard decodes arbitrary bytes as a shard, whole and in part:
// no panic, and never an error that reads as a missing value.
func FuzzDecodeShard(f *testing.F) {
	seeds := []string{
		"01020304" + "0000000000000000" + "0200000000000000" + "0200000000000000" + "0200000000000000" + "04526e88",
		"0102" + "0000000000000000" + "0200000000000000" + "ffffffffffffffffffffffffffffffff" + "bd13bd56",
	}
	for _, s := range seeds {
		b, _ := hex.DecodeString(s)
		f.Add(b, false)
		f.Add(b, true)
	}
	cd, err := sharding.NewWith(context.Background(), json.RawMessage(config([]int{2}, `[{"name":"bytes"}]`, crcIndex, "")), builtin.Registry(), sharding.Options{IndexCacheBytes: -1})
	if err != nil {
		f.Fatal(err)
	}
	sp := spec("uint8", []int{4}, []byte{0})
	f.Fuzz(func(t *testing.T, b []byte, noSuffix bool) {
		if _, err := cd.Decode(ctx, sp, b); errors.Is(err, store.ErrNotFound) {
			t.Fatalf("Decode: %v", err)
		}
		for _, region := range [][]grid.Span{{{Start: 0, Step: 1, Count: 4}}, {{Start: 1, Step: 2, Count: 2}}, {{Start: 2, Step: 1, Count: 2}}} {
			if _, err := cd.DecodeRegion(ctx, sp, &memReader{Name: "shard", Data: b, NoSuffix: noSuffix}, region); errors.Is(err, store.ErrNotFound) {
				t.Fatalf("DecodeRegion: %v", err)
			}
		}
	})
}
