package shard

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/store"
)

var ctx = context.Background()

func rawIndex(entries ...uint64) []byte {
	var b []byte
	for _, v := range entries {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	return b
}

const none = ^uint64(0)

func TestRawIndexRoundTrip(t *testing.T) {
	cps := []int{2, 3}
	ix := NewIndex(cps)
	ix.Set(Flat(cps, []int{1, 2}), Entry{Offset: 10, Length: 5})
	ix.Set(1, Entry{Offset: 0, Length: 10})
	b := ix.AppendRaw(nil)
	if len(b) != 6*16 {
		t.Fatalf("raw index of %d bytes", len(b))
	}
	back, err := DecodeRaw(b, cps)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back.AppendRaw(nil), b) || back.At(5) != (Entry{10, 5}) || !back.At(0).Empty() {
		t.Fatalf("round trip differs: %+v", back.entries)
	}
	if got := Coords(cps, 5); got[0] != 1 || got[1] != 2 {
		t.Fatalf("Coords(5) = %v", got)
	}
	if _, err := DecodeRaw(b[:len(b)-1], cps); !errors.Is(err, codec.ErrCorrupt) {
		t.Fatalf("short index: %v", err)
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		name    string
		entries []uint64
		size    int64
		index   Region
		bad     bool
	}{
		{"ok", []uint64{0, 4, 4, 4}, 40, Region{8, 40}, false},
		{"empty", []uint64{none, none, 0, 4}, 36, Region{4, 36}, false},
		{"unknown size", []uint64{0, 4, 100, 4}, -1, Region{}, false},
		{"past end", []uint64{0, 4, 4, 40}, 40, Region{8, 40}, true},
		{"half empty", []uint64{none, 4, 0, 4}, 36, Region{4, 36}, true},
		{"overflow", []uint64{1 << 63, 1 << 63, 0, 4}, -1, Region{}, true},
		{"overlap", []uint64{0, 6, 4, 4}, 40, Region{8, 40}, true},
		{"same offset", []uint64{0, 4, 0, 4}, 40, Region{8, 40}, true},
		{"in index", []uint64{32, 4, 20, 4}, 40, Region{0, 32}, true},
		{"zero length in gap", []uint64{0, 4, 2, 0}, 40, Region{8, 40}, false},
	}
	for _, c := range cases {
		ix, err := DecodeRaw(rawIndex(c.entries...), []int{2})
		if err != nil {
			t.Fatal(err)
		}
		err = ix.Validate(c.size, c.index)
		if c.bad != (err != nil) {
			t.Errorf("%s: error %v, want error %v", c.name, err, c.bad)
		}
		if err != nil && (!errors.Is(err, codec.ErrCorrupt) || errors.Is(err, store.ErrNotFound)) {
			t.Errorf("%s: %v must wrap ErrCorrupt and not ErrNotFound", c.name, err)
		}
	}
}

func TestLegacyIndex(t *testing.T) {
	cps := []int{2}
	ix := NewIndex(cps)
	ix.Set(0, Entry{0, 3})
	l := NewLegacyIndex(cps)
	withCRC, _ := l.Encode(ctx, ix)
	plain := ix.AppendRaw(nil)
	for _, loc := range []Location{End, Start} {
		got, used, err := l.Decode(ctx, withCRC, loc)
		if err != nil || used != 36 || got.At(0) != (Entry{0, 3}) {
			t.Fatalf("%s crc layout: %v used %d", loc, err, used)
		}
	}
	// Plain index at the end, fetched with 4 bytes of chunk data before it.
	got, used, err := l.Decode(ctx, append([]byte{1, 2, 3, 4}, plain...), End)
	if err != nil || used != 32 || got.At(0) != (Entry{0, 3}) {
		t.Fatalf("plain end: %v used %d", err, used)
	}
	got, used, err = l.Decode(ctx, append(append([]byte{}, plain...), 9, 9, 9, 9), Start)
	if err != nil || used != 32 || got.At(0) != (Entry{0, 3}) {
		t.Fatalf("plain start: %v used %d", err, used)
	}
	if _, _, err := l.Decode(ctx, plain[:20], End); !errors.Is(err, codec.ErrCorrupt) {
		t.Fatalf("truncated: %v", err)
	}
}

// FuzzDecodeIndex feeds arbitrary bytes to the index decoders and the
// validator: they must never panic, every failure must be corruption, and
// whatever decodes must encode back to the same bytes.
func FuzzDecodeIndex(f *testing.F) {
	f.Add(rawIndex(0, 4, 4, 4), int64(40), uint8(0))
	f.Add(rawIndex(none, none, 0, 4), int64(36), uint8(1))
	f.Add(rawIndex(0, 6, 4, 4), int64(-1), uint8(2))
	f.Add([]byte{1, 2, 3}, int64(3), uint8(0))
	f.Add(append(rawIndex(0, 2, 2, 2), 0x04, 0x52, 0x6e, 0x88), int64(40), uint8(1))
	f.Fuzz(func(t *testing.T, b []byte, size int64, which uint8) {
		cps := []int{2}
		if which%3 == 2 {
			cps = []int{1, 2, 1}
		}
		codecs := []IndexCodec{NewRawIndex(cps), NewLegacyIndex(cps)}
		c := codecs[int(which)%len(codecs)]
		for _, loc := range []Location{End, Start} {
			fm := &Format{CPS: cps, Index: c, Location: loc}
			ix, err := fm.DecodeIndex(ctx, b, size)
			if err != nil {
				if !errors.Is(err, codec.ErrCorrupt) || errors.Is(err, store.ErrNotFound) {
					t.Fatalf("error %v is not corruption", err)
				}
				continue
			}
			if _, ok := c.(RawIndex); ok && !bytes.Equal(ix.AppendRaw(nil), b) {
				t.Fatalf("decoded index does not encode back")
			}
			for i := range ix.Len() {
				if e := ix.At(i); !e.Empty() && size >= 0 && e.End() > uint64(size) {
					t.Fatalf("entry %d past the end passed validation", i)
				}
			}
		}
	})
}
