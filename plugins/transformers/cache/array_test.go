package cache_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/codecs/bytescodec"
	"github.com/zarrgw/zarrgw/plugins/codecs/crc32c"
	"github.com/zarrgw/zarrgw/plugins/codecs/sharding"
	"github.com/zarrgw/zarrgw/plugins/transformers/cache"
	"github.com/zarrgw/zarrgw/plugins/transformers/shardtransformer"
)

var arrayOpts = array.Options{Codecs: codec.NewRegistry(bytescodec.Registration, crc32c.Registration, sharding.Registration)}

// shardedMeta is a 16x16 uint16 array in shards of 8x8 holding inner
// chunks of 4x4 (the sharding codec), with a checksummed index at the end.
func shardedMeta() *meta.ArrayMeta {
	return &meta.ArrayMeta{
		Format: meta.V3, Shape: []int{16, 16}, ChunkShape: []int{8, 8}, DataType: dtype.Named("uint16"), FillValue: []byte{0, 0},
		ChunkKey: meta.ChunkKeyEncoding{Name: "default", Separator: "/"}, Attributes: json.RawMessage(`{}`),
		Codecs: []meta.Extension{{Name: "sharding_indexed", MustUnderstand: true, Configuration: json.RawMessage(`{"chunk_shape":[4,4],
			"codecs":[{"name":"bytes","configuration":{"endian":"little"}}],
			"index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}],"index_location":"end"}`)}},
	}
}

func ramp(m *meta.ArrayMeta) *ndarray.Array {
	a := ndarray.New(m.DataType, m.Shape)
	for i := range a.Data {
		a.Data[i] = byte(i * 7)
	}
	return a
}

// A sharded array (the sharding codec reads each shard's index and inner
// chunks as byte ranges of the shard) read twice through the cache: the
// second read, whole or of a region, makes no call to the store.
func TestShardedArrayReadTwice(t *testing.T) {
	s := newSetup(t, cache.Options{RevalidateAfter: long}, "")
	ctx := context.Background()
	m := shardedMeta()
	a, err := hierarchy.CreateArray(ctx, s.c.Store(), "a", m, arrayOpts)
	if err != nil {
		t.Fatal(err)
	}
	want := ramp(m)
	if err := a.WriteAll(ctx, want); err != nil {
		t.Fatal(err)
	}
	open := func() *array.Array {
		t.Helper()
		b, err := hierarchy.OpenArray(ctx, s.c.Store(), "a", arrayOpts)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// a region: each shard's index and the inner chunks it needs, as
	// byte ranges of the shard
	region := func() {
		t.Helper()
		sel, err := grid.Parse("3:11,5:13", m.Shape)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := open().Read(ctx, sel); err != nil {
			t.Fatal(err)
		}
	}
	whole := func() {
		t.Helper()
		got, err := open().ReadAll(ctx)
		if err != nil || !bytes.Equal(got.Data, want.Data) {
			t.Fatalf("ReadAll: %v (same data: %v)", err, err == nil && bytes.Equal(got.Data, want.Data))
		}
	}
	for _, read := range []struct {
		name string
		read func()
	}{{"region", region}, {"whole array", whole}} {
		s.next.reset()
		read.read()
		first := s.next.String()
		t.Logf("first read of the %s: %s (%d ranged)", read.name, first, s.next.ranged.Load())
		if s.next.calls() == 0 {
			t.Fatalf("the first read of the %s made no call: the write did not drop what the cache kept", read.name)
		}
		if read.name == "region" && s.next.ranged.Load() == 0 {
			t.Fatal("the region was not read in byte ranges: the test no longer shows what it should")
		}
		s.next.reset()
		read.read()
		s.wantCalls(t, 0, "second read of the "+read.name+" (the first saw "+first+")")
	}
}

// Below a sharding transformer the cache keeps the shards' byte ranges:
// a chunk read twice through the transformer makes one store read, and
// a write of another chunk of the shard (a write of the shard below) is
// seen at once.
func TestBelowShardingTransformer(t *testing.T) {
	s := newSetup(t, cache.Options{RevalidateAfter: long}, "")
	ctx := context.Background()
	st, err := shardtransformer.New(s.c.Store(), shardtransformer.Layout{AnyDepth: true,
		Encoding: meta.ChunkKeyEncoding{Name: "default", Separator: "/"}}, []int{2, 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"c/0/0", "c/0/1"} {
		if _, err := st.Set(ctx, k, []byte("chunk "+k), store.Condition{}); err != nil {
			t.Fatal(err)
		}
	}
	wantGet(t, st, "c/0/0", store.ByteRange{}, "chunk c/0/0")
	s.next.reset()
	wantGet(t, st, "c/0/0", store.ByteRange{}, "chunk c/0/0")
	s.wantCalls(t, 0, "a chunk read again")
	if _, err := st.Set(ctx, "c/0/1", []byte("rewritten"), store.Condition{}); err != nil {
		t.Fatal(err)
	}
	wantGet(t, st, "c/0/1", store.ByteRange{}, "rewritten")
	v0, _ := st.Get(ctx, "c/0/0", store.ByteRange{})
	info, _ := s.mem.Stat(ctx, "c/0/0")
	if info.Version != v0.Version {
		t.Fatalf("a chunk of the rewritten shard has version %q, the shard %q", v0.Version, info.Version)
	}
}
