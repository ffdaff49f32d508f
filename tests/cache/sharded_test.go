package cache

import (
	"bytes"
	"net/http"
	"testing"
)

// shardedMeta is a 128 x 128 uint16 array in shards of 32 x 32 (16
// shards) holding inner chunks of 8 x 8 (16 per shard, 256 in all), with
// a checksummed index at the end: the sharding codec, which reads each
// shard's index and inner chunks as byte ranges of the shard.
const shardedMeta = `{"zarr_format":3,"node_type":"array","shape":[128,128],"data_type":"uint16",
 "chunk_grid":{"name":"regular","configuration":{"chunk_shape":[32,32]}},
 "chunk_key_encoding":{"name":"default","configuration":{"separator":"/"}},
 "fill_value":0,"codecs":[{"name":"sharding_indexed","configuration":{"chunk_shape":[8,8],
   "codecs":[{"name":"bytes","configuration":{"endian":"little"}}],
   "index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}],
   "index_location":"end"}}],"attributes":{}}`

// smallChunksMeta is a 128 x 128 uint16 array in chunks of 16 x 16 (an 8
// x 8 grid), which the sharding transformer of a dataset stores in shards
// of 2 x 2 chunks.
const smallChunksMeta = `{"zarr_format":3,"node_type":"array","shape":[128,128],"data_type":"uint16",
 "chunk_grid":{"name":"regular","configuration":{"chunk_shape":[16,16]}},
 "chunk_key_encoding":{"name":"default","configuration":{"separator":"/"}},
 "fill_value":0,"codecs":[{"name":"bytes","configuration":{"endian":"little"}}],"attributes":{}}`

// shardedDatasets: "d" is the cache over the slow store; "ds" the
// sharding transformer over the cache over the slow store (the cache
// last, as it must be); "w" and "ws" write the same keys straight to S3,
// and "raw" reads S3's keys as they are.
// The gateway's own caches (metadata documents, decoded chunks) are off,
// so that every read of the array API goes down the dataset's stack.
func shardedDatasets(b *backend) string {
	return b.stores() + `
server {
  listen         = "127.0.0.1:0"
  metadata_cache = 0
  chunk_cache    = 0
}
dataset "d" {
  store  = store.s3.slow
  prefix = "codec"
  transformer "cache" {
    memory           = "256MiB"
    revalidate_after = "10m"
  }
  access {
    read = ["*"]
  }
}
dataset "w" {
  store  = store.s3.direct
  prefix = "codec"
  access {
    read  = ["*"]
    write = ["*"]
  }
}
dataset "ds" {
  store  = store.s3.slow
  prefix = "transformer"
  transformer "sharding" {
    chunks_per_shard = [2, 2]
  }
  transformer "cache" {
    memory           = "256MiB"
    revalidate_after = "10m"
  }
  access {
    read = ["*"]
  }
}
dataset "raw" {
  store = store.s3.direct
  access {
    read = ["*"]
  }
}
dataset "ws" {
  store  = store.s3.direct
  prefix = "transformer"
  transformer "sharding" {
    chunks_per_shard = [2, 2]
  }
  access {
    read  = ["*"]
    write = ["*"]
  }
}
`
}

// A sharded array (the sharding codec in its metadata) read twice through
// the array API, a region and then the whole array: the first read of
// each reads shards in byte ranges, the second makes no store call at
// all (no Get, no Stat, no listing), by the gateway's store metrics and
// at the proxy. Revalidation is set to ten minutes here, so that a slow
// machine does not turn the second read into Stats.
func TestShardedSecondReadNoStoreCall(t *testing.T) {
	b := newBackend(t)
	g := startGateway(t, writeConfig(t, shardedDatasets(b)), b.env())
	data := ramp(128*128, 5)
	writeArray(t, g.URL+"/d/w", "sh", shardedMeta, [2]int{128, 128}, data)
	if got := get(t, g.URL+"/d/w/sh?format=raw"); !bytes.Equal(got, data) {
		t.Fatal("the array read straight from S3 is not what was written")
	}
	region := get(t, g.URL+"/d/w/sh?format=raw&slice=5:77,9:100")
	for _, read := range []struct{ name, query string }{
		{"region", "?format=raw&slice=5:77,9:100"},
		{"whole array", "?format=raw"},
	} {
		want := data
		if read.name == "region" {
			want = region
		}
		once := func() (calls, snapshot) {
			m0, p0 := g.slowCalls(t), b.count.snapshot()
			if got := get(t, g.URL+"/d/d/sh"+read.query); !bytes.Equal(got, want) {
				t.Fatalf("the %s read through the cache is not what was written", read.name)
			}
			return g.slowCalls(t).since(m0), b.count.snapshot().since(p0)
		}
		m1, p1 := once()
		t.Logf("first read of the %s: store calls %v; at the proxy: %s", read.name, m1, p1)
		if read.name == "region" && (m1.gets() == 0 || p1.gets == 0) {
			t.Fatalf("the first read of the region made no store GET (metrics %v, proxy %s)", m1, p1)
		}
		m2, p2 := once()
		t.Logf("second read of the %s: store calls %v; at the proxy: %s", read.name, m2, p2)
		if m2.total() != 0 || p2.all != 0 {
			t.Fatalf("second read of the %s: store calls %v, at the proxy %s; want none", read.name, m2, p2)
		}
	}
}

// The sharding transformer of a dataset over the cache: every inner
// chunk read twice through the key API (the transformer reads each as a
// byte range of its shard, and the shard's index): the second pass makes
// no store call at all.
func TestShardingTransformerSecondPassNoStoreCall(t *testing.T) {
	b := newBackend(t)
	g := startGateway(t, writeConfig(t, shardedDatasets(b)), b.env())
	data := ramp(128*128, 9)
	writeArray(t, g.URL+"/d/ws", "t", smallChunksMeta, [2]int{128, 128}, data)
	keys := chunkKeys("t", 8)
	want := map[string][]byte{}
	for _, k := range keys {
		want[k] = get(t, g.URL+"/d/ws/"+k)
	}
	// the shards are what S3 holds: a 4 x 4 grid of them (chunk c/i/j
	// is in shard c/(i/2)/(j/2))
	if code, _, _ := do(t, http.MethodGet, g.URL+"/d/raw/transformer/t/c/7/7", nil); code != http.StatusNotFound {
		t.Fatalf("t/c/7/7 is a key of S3 (%d): the transformer did not shard the array", code)
	}
	if shard := get(t, g.URL+"/d/raw/transformer/t/c/3/3"); len(shard) <= 4*512 {
		t.Fatalf("shard t/c/3/3 holds %d bytes, not 4 chunks of 512 and an index", len(shard))
	}
	pass := func() (calls, snapshot) {
		m0, p0 := g.slowCalls(t), b.count.snapshot()
		readAll(t, g.URL+"/d/ds", keys, want, 8)
		return g.slowCalls(t).since(m0), b.count.snapshot().since(p0)
	}
	m1, p1 := pass()
	t.Logf("first pass over %d inner chunks: store calls %v; at the proxy: %s", len(keys), m1, p1)
	if m1.gets() == 0 || p1.gets == 0 {
		t.Fatalf("the first pass made no store GET (metrics %v, proxy %s)", m1, p1)
	}
	m2, p2 := pass()
	t.Logf("second pass: store calls %v; at the proxy: %s", m2, p2)
	if m2.total() != 0 || p2.all != 0 {
		t.Fatalf("second pass: store calls %v, at the proxy %s; want none", m2, p2)
	}
}
