package cache

import (
	"bytes"
	"fmt"
	"net/http"
	"testing"
	"time"
)

// replicaConfig is one replica's configuration: the cache (revalidating
// after 2 s, misses remembered for 1 s) over the slow store, writable.
func replicaConfig(b *backend) string {
	return b.stores() + `
dataset "d" {
  store = store.s3.slow
  transformer "cache" {
    memory           = "64MiB"
    revalidate_after = "2s"
    negative_ttl     = "1s"
  }
  access {
    read  = ["*"]
    write = ["*"]
  }
}
dataset "w" {
  store = store.s3.direct
  access {
    read = ["*"]
  }
}
`
}

// Two gateway replicas, A and B, each with its own cache, over one
// bucket. A write through A is seen through B once B revalidates (polled
// with a bound only against a hang; how long it took is logged, within
// revalidate_after = 2s on a machine that is not starved), and B served
// the old value from its cache until then. Conditional writes through B
// are decided by S3: a stale If-Match is refused (412) even while B's
// cache still holds the version it names, the current ETag (from A's
// answer) is accepted, and If-None-Match: * on a key B remembers as
// missing is refused once A has created it.
func TestReplicas(t *testing.T) {
	b := newBackend(t)
	file := writeConfig(t, replicaConfig(b))
	a, r := startGateway(t, file, b.env()), startGateway(t, file, b.env())
	key := "/d/d/shared/k"
	tag0 := put(t, a.URL+key, []byte("version 0"))

	// B reads the value and keeps it: reads again make no store GET.
	if got := get(t, r.URL+key); string(got) != "version 0" {
		t.Fatalf("B read %q, want version 0", got)
	}
	m0 := r.slowCalls(t)
	for range 3 {
		if got := get(t, r.URL+key); string(got) != "version 0" {
			t.Fatalf("B read %q before A's write, want version 0", got)
		}
	}
	if m := r.slowCalls(t).since(m0); m.gets() != 0 {
		t.Fatalf("B's reads again made store calls %v: it does not cache, so the test shows nothing", m)
	}

	// A writes; B sees it after revalidating.
	tag1 := put(t, a.URL+key, []byte("version 1"))
	if tag1 == tag0 || tag1 == "" {
		t.Fatalf("A's write gave ETag %q, the first %q", tag1, tag0)
	}
	written := time.Now()
	first := string(get(t, r.URL+key))
	polls := 0
	waitFor(t, "B sees A's write", 60*time.Second, 100*time.Millisecond, func() bool {
		polls++
		got := string(get(t, r.URL+key))
		if got != "version 0" && got != "version 1" {
			t.Fatalf("B read %q", got)
		}
		return got == "version 1"
	})
	t.Logf("B's first read after A's write: %q; B saw version 1 %v after the write (%d polls; revalidate_after 2s)",
		first, time.Since(written).Round(time.Millisecond), polls)

	// B now holds version 1 (tag1) in its cache; A writes version 2.
	tag2 := put(t, a.URL+key, []byte("version 2"))
	// A stale If-Match through B: refused, though B's cache holds tag1.
	code, body, _ := do(t, http.MethodPut, r.URL+key, []byte("from B, stale"), "If-Match", tag1)
	if code != http.StatusPreconditionFailed {
		t.Fatalf("PUT through B with If-Match %s (stale: A wrote %s since): %d %s, want 412", tag1, tag2, code, body)
	}
	if got := get(t, a.URL+"/d/w/shared/k"); string(got) != "version 2" {
		t.Fatalf("S3 holds %q after the refused write, want version 2", got)
	}
	// The current ETag through B at once: accepted by S3, whatever B kept.
	code, body, h := do(t, http.MethodPut, r.URL+key, []byte("from B"), "If-Match", tag2)
	if code/100 != 2 {
		t.Fatalf("PUT through B with If-Match %s (the current ETag, from A's write): %d %s, want 2xx", tag2, code, body)
	}
	if got := get(t, a.URL+"/d/w/shared/k"); string(got) != "from B" {
		t.Fatalf("S3 holds %q after B's conditional write, want \"from B\"", got)
	}
	// B's own write is seen through B at once (its entries dropped).
	if got := get(t, r.URL+key); string(got) != "from B" {
		t.Fatalf("B reads %q after its own write, want \"from B\"", got)
	}
	t.Logf("ETags: %s, %s, %s, then B's %s", tag0, tag1, tag2, h.Get("ETag"))

	// A missing key B remembers; A creates it; B's create-only write is
	// refused by S3.
	newKey := "/d/d/shared/new"
	if code, _, _ := do(t, http.MethodGet, r.URL+newKey, nil); code != http.StatusNotFound {
		t.Fatalf("GET of a missing key through B: %d, want 404", code)
	}
	put(t, a.URL+newKey, []byte("A's"), "If-None-Match", "*")
	code, body, _ = do(t, http.MethodPut, r.URL+newKey, []byte("B's"), "If-None-Match", "*")
	if code != http.StatusPreconditionFailed {
		t.Fatalf("PUT If-None-Match: * through B of a key A created (B remembered it missing): %d %s, want 412", code, body)
	}
	if got := get(t, a.URL+"/d/w/shared/new"); string(got) != "A's" {
		t.Fatalf("S3 holds %q, want A's", got)
	}
	// and B sees it once the miss it remembered expires
	waitFor(t, "B sees the key A created", 60*time.Second, 100*time.Millisecond, func() bool {
		code, got, _ := do(t, http.MethodGet, r.URL+newKey, nil)
		if code != http.StatusOK && code != http.StatusNotFound {
			t.Fatalf("GET through B: %d %s", code, got)
		}
		return code == http.StatusOK && bytes.Equal(got, []byte("A's"))
	})

	// A deletes the key; B stops serving it once it revalidates.
	if code, body, _ := do(t, http.MethodDelete, a.URL+key, nil); code/100 != 2 {
		t.Fatalf("DELETE through A: %d %s", code, body)
	}
	waitFor(t, "B sees A's delete", 60*time.Second, 100*time.Millisecond, func() bool {
		code, got, _ := do(t, http.MethodGet, r.URL+key, nil)
		if code != http.StatusOK && code != http.StatusNotFound {
			t.Fatalf("GET through B after A's delete: %d %s", code, got)
		}
		if code == http.StatusOK && string(got) != "from B" {
			t.Fatalf("B read %q after A's delete", got)
		}
		return code == http.StatusNotFound
	})
}

// A replica whose cache knows a value's size and version (a HEAD through
// it is a Stat the cache keeps) still lets S3 decide a conditional
// write: A writes, and B's PUT with If-Match of the current ETag (from
// A's answer) is accepted at once, as S3 would accept it. The gateway
// compares If-Match with the version a Stat through the dataset's stack
// returns before it writes, and the cache answers that Stat from what it
// kept for up to revalidate_after: B refuses (412) a write S3 holds the
// version for.
func TestReplicasIfMatchAfterHead(t *testing.T) {
	b := newBackend(t)
	file := writeConfig(t, replicaConfig(b))
	a, r := startGateway(t, file, b.env()), startGateway(t, file, b.env())
	key := "/d/d/shared/k"
	tag0 := put(t, a.URL+key, []byte("version 0"))
	if code, _, h := do(t, http.MethodHead, r.URL+key, nil); code != http.StatusOK || h.Get("ETag") != tag0 {
		t.Fatalf("HEAD through B: %d, ETag %q, want 200 and %q", code, h.Get("ETag"), tag0)
	}
	tag1 := put(t, a.URL+key, []byte("version 1"))
	code, body, _ := do(t, http.MethodPut, r.URL+key, []byte("from B"), "If-Match", tag1)
	if code/100 != 2 {
		t.Fatalf("PUT through B with If-Match %s (the current ETag, from A's write; B's HEAD saw %s): %d %s; "+
			"want 2xx: S3 holds that version, and B refused it on the version its cache kept", tag1, tag0, code, body)
	}
	if got := get(t, a.URL+"/d/w/shared/k"); string(got) != "from B" {
		t.Fatalf("S3 holds %q after B's conditional write, want \"from B\"", got)
	}
}

// Eight clients write disjoint parts of one shard through the array API,
// four through each replica, five rounds each: every write is a
// read-modify-write of the shard, committed with If-Match on the version
// read. With a cache in each replica the version read may be one the
// other replica has since replaced; S3 refuses such a write, the cache
// drops what it kept, and the retry reads afresh: no write is lost.
func TestReplicasReadModifyWrite(t *testing.T) {
	b := newBackend(t)
	file := writeConfig(t, replicaConfig(b))
	gws := []*gateway{startGateway(t, file, b.env()), startGateway(t, file, b.env())}
	meta := `{"zarr_format":3,"node_type":"array","shape":[8,8],"data_type":"uint8",
		"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[8,8]}},"chunk_key_encoding":{"name":"default"},
		"fill_value":0,"codecs":[{"name":"sharding_indexed","configuration":{"chunk_shape":[2,4],
		"codecs":[{"name":"bytes"}],"index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}]}}],"attributes":{}}`
	put(t, gws[0].URL+"/d/d/a/zarr.json", []byte(meta))
	// both replicas read (and keep) the empty array first
	for _, g := range gws {
		get(t, g.URL+"/d/d/a?format=raw")
	}
	const rounds = 5
	forEach(t, 8, 8, func(w int) error {
		slice := fmt.Sprintf("%d:%d,%d:%d", (w/2)*2, (w/2)*2+2, (w%2)*4, (w%2)*4+4)
		for r := 1; r <= rounds; r++ {
			body := bytes.Repeat([]byte{byte(w*10 + r)}, 8)
			code, data, _, err := tryDo(http.MethodPut, gws[w%2].URL+"/d/d/a?format=raw&slice="+slice, body)
			if err != nil {
				return err
			}
			if code/100 != 2 {
				return fmt.Errorf("writer %d round %d: %d %s", w, r, code, data)
			}
		}
		return nil
	})
	got := get(t, gws[0].URL+"/d/w/a?format=raw")
	for w := range 8 {
		for i := range 2 {
			for j := range 4 {
				at := ((w/2)*2+i)*8 + (w%2)*4 + j
				if got[at] != byte(w*10+rounds) {
					t.Fatalf("writer %d's last write is lost at element %d (S3 holds %d)", w, at, got[at])
				}
			}
		}
	}
}
