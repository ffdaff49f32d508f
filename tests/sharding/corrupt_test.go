package sharding

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
)

// damage is one way to break a shard of n inner chunks whose index (raw
// pairs, then crc bytes) sits at the end.
type damage struct {
	name  string
	entry int // the inner chunk whose reads must fail (every read, for index damage)
	fn    func(b []byte, n, crc int) []byte
}

// setEntry rewrites entry i of an end index and, when the index carries a
// CRC-32C, its checksum.
func setEntry(b []byte, n, crc, i int, off, length uint64) []byte {
	b = append([]byte(nil), b...)
	idx := len(b) - n*16 - crc
	binary.LittleEndian.PutUint64(b[idx+16*i:], off)
	binary.LittleEndian.PutUint64(b[idx+16*i+8:], length)
	if crc == 4 {
		sum := crc32.Checksum(b[idx:len(b)-4], crc32.MakeTable(crc32.Castagnoli))
		binary.LittleEndian.PutUint32(b[len(b)-4:], sum)
	}
	return b
}

var damages = []damage{
	{"truncated", 0, func(b []byte, _, _ int) []byte { return b[:len(b)-5] }},
	{"index only, cut", 0, func(b []byte, n, crc int) []byte { return b[len(b)-n*16-crc+3:] }},
	{"checksum mismatch", 3, func(b []byte, n, crc int) []byte {
		b = append([]byte(nil), b...)
		b[len(b)-crc-1] ^= 0x40 // high byte of the last length: past the end without a checksum
		return b
	}},
	{"entry past the end", 1, func(b []byte, n, crc int) []byte { return setEntry(b, n, crc, 1, uint64(len(b)), 8) }},
	{"overlapping entries", 1, func(b []byte, n, crc int) []byte { return setEntry(b, n, crc, 1, 4, 16) }},
}

func TestCorruptShardsThroughArrays(t *testing.T) {
	dt := dtype.Named("int32")
	cases := []struct {
		kind string
		m    *meta.ArrayMeta
		crc  int
		key  string
	}{
		{"codec", shardedMeta(dt, []int{8, 8}, []int{8, 8}, []int{4, 4}, `[{"name":"bytes","configuration":{"endian":"little"}}]`, "end"), 4, "arr/c/0/0"},
		{"transformer", transformedMeta(dt, []int{8, 8}, []int{4, 4}, []int{2, 2}, []meta.Extension{bytesLE(dt)}), 0, "arr/c/0/0"},
	}
	for _, c := range cases {
		for _, d := range damages {
			s := store.NewMemory()
			ioArrayAt(t, s, "arr", c.m)
			v, _ := s.Get(ctx, c.key, store.ByteRange{})
			if _, err := s.Set(ctx, c.key, d.fn(v.Data, 4, c.crc), store.Condition{}); err != nil {
				t.Fatal(err)
			}
			// Reads touching the damaged entry fail; the whole shard is
			// validated as a whole.
			touching := grid.Box([]int{d.entry / 2 * 4, d.entry % 2 * 4}, []int{2, 2})
			for _, sel := range []grid.Selection{grid.All([]int{8, 8}), touching} {
				a, err := hierarchy.OpenArray(ctx, s, "arr", opts())
				if err != nil {
					t.Fatal(err)
				}
				_, err = a.Read(ctx, sel)
				what := c.kind + ", " + d.name
				if err == nil {
					t.Errorf("%s: read %+v succeeded", what, sel)
					continue
				}
				if !errors.Is(err, codec.ErrCorrupt) || errors.Is(err, store.ErrNotFound) {
					t.Errorf("%s: %v must wrap ErrCorrupt and not ErrNotFound", what, err)
				}
				if !strings.Contains(err.Error(), "/arr") || !strings.Contains(err.Error(), c.key) {
					t.Errorf("%s: %v does not name the array and key", what, err)
				}
				if sel[0].Count == 2 {
					t.Logf("%s: %v", what, err)
				}
			}
		}
	}
}

func ioArrayAt(t *testing.T, s store.Store, path string, m *meta.ArrayMeta) {
	t.Helper()
	a, err := hierarchy.CreateArray(ctx, s, path, m, opts())
	if err != nil {
		t.Fatal(err)
	}
	data := randomArray(newRand(), m.DataType, m.Shape)
	for i := range data.Data {
		data.Data[i] |= 1 // no inner chunk equals the fill value
	}
	if err := a.WriteAll(ctx, data); err != nil {
		t.Fatal(err)
	}
}
