package sharding_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
)

// plainReader hides memReader's versions and key: a store without
// versions, whose values are not cached.
type plainReader struct{ m *memReader }

func (p plainReader) ReadRanges(ctx context.Context, r []store.ByteRange) ([][]byte, string, error) {
	b, _, err := p.m.ReadRanges(ctx, r)
	return b, "", err
}
func (p plainReader) SuffixRanges() bool                      { return p.m.SuffixRanges() }
func (p plainReader) Size(ctx context.Context) (int64, error) { return p.m.Size(ctx) }
func (p plainReader) Key() string                             { return "" }

// bigShard is an int32 shard [32 32] of inner chunks [4 4] (64 chunks of
// 64 bytes, raw), every element distinct.
func bigShard(t *testing.T) (codec.Spec, *ndarray.Array, string) {
	sp := spec("int32", []int{32, 32}, []byte{0, 0, 0, 0})
	a := ndarray.New(sp.DataType, sp.Shape)
	for i := range a.Data {
		a.Data[i] = byte(i*7 + 1)
	}
	return sp, a, config([]int{4, 4}, `[{"name":"bytes","configuration":{"endian":"little"}}]`, crcIndex, "")
}

func box(start, count []int) []grid.Span {
	s := make([]grid.Span, len(start))
	for i := range start {
		s[i] = grid.Span{Start: start[i], Step: 1, Count: count[i]}
	}
	return s
}

func TestRequestsPerRead(t *testing.T) {
	sp, a, cfg := bigShard(t)
	enc, err := newCodec(t, cfg).Encode(ctx, sp, a)
	if err != nil {
		t.Fatal(err)
	}
	const index, chunk = 64*16 + 4, 64
	cases := []struct {
		name          string
		region        []grid.Span
		reads, ranges int
		maxBytes      int
	}{
		{"one inner chunk", box([]int{8, 12}, []int{4, 4}), 2, 2, index + chunk},
		{"one element", box([]int{9, 13}, []int{1, 1}), 2, 2, index + chunk},
		{"a row of inner chunks", box([]int{4, 0}, []int{4, 32}), 2, 2, index + 8*chunk},
		{"whole shard", box([]int{0, 0}, []int{32, 32}), 1, 1, len(enc)},
	}
	for _, c := range cases {
		r := &memReader{Name: "shard", Data: enc, Version: "1"}
		got, err := newCodec(t, cfg).DecodeRegion(ctx, sp, r, c.region)
		if err != nil {
			t.Fatal(err)
		}
		sameArray(t, c.name, got, slice(a, c.region))
		if r.ReadCalls != c.reads || r.RangesRead != c.ranges || r.BytesRead > c.maxBytes {
			t.Errorf("%s: %d reads of %d ranges, %d bytes; want %d reads of %d ranges, at most %d bytes",
				c.name, r.ReadCalls, r.RangesRead, r.BytesRead, c.reads, c.ranges, c.maxBytes)
		}
	}
}

func TestIndexCache(t *testing.T) {
	sp, a, cfg := bigShard(t)
	cd := newCodec(t, cfg)
	enc, _ := cd.Encode(ctx, sp, a)
	r := &memReader{Name: "shard", Data: enc, Version: "1"}
	read := func(region []grid.Span, want *ndarray.Array) int {
		t.Helper()
		before := r.ReadCalls
		got, err := cd.DecodeRegion(ctx, sp, r, region)
		if err != nil {
			t.Fatal(err)
		}
		sameArray(t, "region", got, slice(want, region))
		return r.ReadCalls - before
	}
	if n := read(box([]int{0, 0}, []int{4, 4}), a); n != 2 {
		t.Fatalf("cold read: %d requests", n)
	}
	if n := read(box([]int{16, 16}, []int{4, 4}), a); n != 1 {
		t.Fatalf("warm read: %d requests, want 1 (index from the cache)", n)
	}
	// The shard changes: the cached index must not be used for it.
	b := ndarray.New(sp.DataType, sp.Shape)
	for i := range b.Data {
		b.Data[i] = byte(i*3 + 2)
	}
	r.Data, _ = cd.Encode(ctx, sp, b)
	r.Version = "2"
	if n := read(box([]int{16, 16}, []int{4, 4}), b); n != 3 {
		t.Fatalf("read after a change: %d requests, want 3 (stale try, index, chunk)", n)
	}
	// An empty entry in a cached index is confirmed by reading the index.
	c := ndarray.New(sp.DataType, sp.Shape)
	r.Data, _ = cd.Encode(ctx, sp, c)
	r.Version = "3"
	if n := read(box([]int{0, 0}, []int{4, 4}), c); n != 2 {
		t.Fatalf("read of an emptied chunk: %d requests", n)
	}
	if n := read(box([]int{0, 0}, []int{4, 4}), c); n != 1 {
		t.Fatalf("cached empty entry: %d requests, want 1 (index re-read)", n)
	}
}

func TestReadersWithoutVersionsOrSuffixes(t *testing.T) {
	sp, a, cfg := bigShard(t)
	cd := newCodec(t, cfg)
	enc, _ := cd.Encode(ctx, sp, a)
	rnd := rand.New(rand.NewPCG(7, 8))
	for range 20 {
		region := randomRegion(rnd, sp.Shape)
		m := &memReader{Name: "shard", Data: enc, Version: "1"}
		got, err := cd.DecodeRegion(ctx, sp, plainReader{m}, region)
		if err != nil {
			t.Fatal(err)
		}
		sameArray(t, "unversioned", got, slice(a, region))
		m = &memReader{Name: "shard", Data: enc, NoSuffix: true}
		got, err = newCodec(t, cfg).DecodeRegion(ctx, sp, m, region)
		if err != nil {
			t.Fatal(err)
		}
		sameArray(t, "no suffix ranges", got, slice(a, region))
	}
}

// DecodeRegionInto places every element where dstSel says, whether an
// inner chunk lands in dst as one run (decoded straight into it) or not
// (decoded aside and copied), and touches nothing else of dst.
func TestDecodeRegionIntoPlacesElements(t *testing.T) {
	sp := spec("uint16", []int{6, 4}, []byte{0, 0})
	value := func(i, j int) uint16 { return uint16(i*131 + j*7 + 5) }
	a := ndarray.New(sp.DataType, sp.Shape)
	for i := range 6 {
		for j := range 4 {
			binary.LittleEndian.PutUint16(a.Data[2*(i*4+j):], value(i, j))
		}
	}
	zstd := `[{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd","configuration":{"level":1}}]`
	cd := newCodec(t, config([]int{2, 4}, zstd, crcIndex, ""))
	enc, err := cd.Encode(ctx, sp, a)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		region   []grid.Span // of the shard
		dstShape []int
		dstStart []int // where the region lands in dst
	}{
		{"one inner chunk, alone", box([]int{2, 0}, []int{2, 4}), []int{2, 4}, []int{0, 0}},
		{"inner chunks, rows of dst", box([]int{0, 0}, []int{4, 4}), []int{9, 4}, []int{3, 0}},
		{"an inner chunk in a wider dst", box([]int{4, 0}, []int{2, 4}), []int{3, 6}, []int{1, 1}},
		{"part of inner chunks", box([]int{1, 1}, []int{4, 2}), []int{4, 4}, []int{0, 2}},
	}
	for _, c := range cases {
		r := &memReader{Name: "shard", Data: enc, Version: "1"}
		dst := ndarray.New(sp.DataType, c.dstShape)
		for i := range dst.Data {
			dst.Data[i] = 0xee
		}
		want := bytes.Clone(dst.Data)
		dstSel := box(c.dstStart, []int{c.region[0].Count, c.region[1].Count})
		for i := range c.region[0].Count {
			for j := range c.region[1].Count {
				at := (c.dstStart[0]+i)*c.dstShape[1] + c.dstStart[1] + j
				binary.LittleEndian.PutUint16(want[2*at:], value(c.region[0].Start+i, c.region[1].Start+j))
			}
		}
		if err := cd.DecodeRegionInto(ctx, sp, r, c.region, dst, dstSel); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !bytes.Equal(dst.Data, want) {
			t.Errorf("%s: dst holds\n%x, want\n%x", c.name, dst.Data, want)
		}
	}
}
