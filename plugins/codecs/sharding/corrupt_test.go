package sharding_test

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math/rand/v2"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/store"
)

// shardWith builds a 1-D uint8 shard of two inner chunks of 2 bytes: data,
// then the given index entries and their CRC-32C.
func shardWith(data []byte, entries ...uint64) []byte {
	var idx []byte
	for _, e := range entries {
		idx = binary.LittleEndian.AppendUint64(idx, e)
	}
	idx = binary.LittleEndian.AppendUint32(idx, crc32.Checksum(idx, crc32.MakeTable(crc32.Castagnoli)))
	return append(append([]byte(nil), data...), idx...)
}

func mustCorrupt(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error", what)
	}
	if !errors.Is(err, codec.ErrCorrupt) || errors.Is(err, store.ErrNotFound) {
		t.Fatalf("%s: %v must wrap ErrCorrupt and not ErrNotFound", what, err)
	}
}

func TestCorruptShards(t *testing.T) {
	cd := newCodec(t, config([]int{2}, `[{"name":"bytes"}]`, crcIndex, ""))
	sp := spec("uint8", []int{4}, []byte{0})
	good := shardWith([]byte{1, 2, 3, 4}, 0, 2, 2, 2)
	flipped := append([]byte(nil), good...)
	flipped[len(flipped)-10] ^= 1
	cases := map[string][]byte{
		"truncated":     good[:len(good)-3],
		"index only":    good[4:],
		"crc mismatch":  flipped,
		"past the end":  shardWith([]byte{1, 2, 3, 4}, 0, 2, 39, 2),
		"into index":    shardWith([]byte{1, 2, 3, 4}, 0, 2, 4, 2),
		"overlapping":   shardWith([]byte{1, 2, 3, 4}, 0, 3, 2, 2),
		"huge offset":   shardWith([]byte{1, 2, 3, 4}, 0, 2, 1<<62, 2),
		"half empty":    shardWith([]byte{1, 2, 3, 4}, 0, 2, ^uint64(0), 2),
		"wrong length":  shardWith([]byte{1, 2, 3, 4}, 0, 1, 2, 2),
		"empty value":   {},
		"one byte long": {7},
	}
	for name, b := range cases {
		_, err := cd.Decode(ctx, sp, b)
		mustCorrupt(t, name+": Decode", err)
		for _, region := range [][]grid.Span{{{Start: 0, Step: 1, Count: 4}}, {{Start: 1, Step: 2, Count: 2}}} {
			for _, noSuffix := range []bool{false, true} {
				if (name == "into index" || name == "index only") && !noSuffix && region[0].Count != 4 {
					// A suffix read of the index does not tell the shard's
					// size, so the index's place is unknown (see
					// shard.Reader); bounded reads and whole reads know it.
					continue
				}
				_, err := cd.DecodeRegion(ctx, sp, &memReader{Name: "shard", Data: b, NoSuffix: noSuffix}, region)
				mustCorrupt(t, name+": DecodeRegion", err)
			}
		}
		_, _, err = cd.EncodeRegion(ctx, sp, b, []grid.Span{{Start: 0, Step: 1, Count: 1}}, byteArray(9), grid.WholeSpans([]int{1}))
		mustCorrupt(t, name+": EncodeRegion", err)
	}
}

// TestRandomDamage flips and cuts bytes of real shards: decoding must fail
// cleanly or succeed, never panic, and never report a missing value.
func TestRandomDamage(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, l := range layouts {
		cd := newCodecWith(t, config([]int{2, 3}, fixTranspose(l.codecs, 2), l.index, l.loc), l.opts)
		sp := spec("int16", []int{4, 6}, []byte{0, 0})
		data := randomData(r, sp.DataType, sp.Shape, []int{2, 3}, sp.FillValue)
		enc, err := cd.Encode(ctx, sp, data)
		if err != nil {
			t.Fatal(err)
		}
		for range 300 {
			b := append([]byte(nil), enc...)
			switch r.IntN(3) {
			case 0:
				b[r.IntN(len(b))] ^= byte(1 + r.IntN(255))
			case 1:
				b = b[:r.IntN(len(b))]
			default:
				b = b[r.IntN(len(b)):]
			}
			_, err := cd.Decode(ctx, sp, b)
			if errors.Is(err, store.ErrNotFound) {
				t.Fatalf("%s: damage read as missing: %v", l.name, err)
			}
			versions++
			_, err = cd.DecodeRegion(ctx, sp, &memReader{Name: "shard", Data: b, Version: string(rune(versions))}, randomRegion(r, sp.Shape))
			if errors.Is(err, store.ErrNotFound) {
				t.Fatalf("%s: damage read as missing: %v", l.name, err)
			}
		}
	}
}
