package cache

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net/http"
	"net/http/httptrace"
	"sync"
	"testing"
	"time"
)

// plainMeta is a 256 x 256 uint16 array in 16 x 16 chunks (a 16 x 16 grid,
// 256 chunks of 512 bytes), uncompressed.
const plainMeta = `{"zarr_format":3,"node_type":"array","shape":[256,256],"data_type":"uint16",
 "chunk_grid":{"name":"regular","configuration":{"chunk_shape":[16,16]}},
 "chunk_key_encoding":{"name":"default","configuration":{"separator":"/"}},
 "fill_value":0,"codecs":[{"name":"bytes","configuration":{"endian":"little"}}],"attributes":{}}`

// ramp is n uint16 elements, little endian, none of them the fill value,
// different from one chunk to the next.
func ramp(n int, seed uint16) []byte {
	b := make([]byte, 2*n)
	for i := range n {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(i)*7+seed|1)
	}
	return b
}

// writeArray writes an array's metadata and all of its elements (raw, C
// order) through a dataset's key and array APIs (base: URL/d/DATASET).
func writeArray(t *testing.T, base, path, meta string, shape [2]int, data []byte) {
	t.Helper()
	put(t, base+"/"+path+"/zarr.json", []byte(meta))
	put(t, fmt.Sprintf("%s/%s?format=raw&slice=0:%d,0:%d", base, path, shape[0], shape[1]), data)
}

// chunkKeys are the keys of an n x n grid's chunks under path.
func chunkKeys(path string, n int) []string {
	var keys []string
	for i := range n {
		for j := range n {
			keys = append(keys, fmt.Sprintf("%s/c/%d/%d", path, i, j))
		}
	}
	return keys
}

// keyDatasets are a dataset over the slow store with the cache as the
// brief gives it, and a writer over the direct store.
func keyDatasets(b *backend) string {
	return b.stores() + `
dataset "d" {
  store = store.s3.slow
  transformer "cache" {
    memory = "256MiB"
  }
  access {
    read = ["*"]
  }
}
dataset "w" {
  store = store.s3.direct
  access {
    read  = ["*"]
    write = ["*"]
  }
}
`
}

// readAll reads every key through the dataset at base with workers
// clients, checking each value against want.
func readAll(t *testing.T, base string, keys []string, want map[string][]byte, workers int) {
	t.Helper()
	forEach(t, len(keys), workers, func(i int) error {
		code, data, _, err := tryDo(http.MethodGet, base+"/"+keys[i], nil)
		switch {
		case err != nil:
			return err
		case code != http.StatusOK:
			return fmt.Errorf("GET %s: %d %s", keys[i], code, data)
		case !bytes.Equal(data, want[keys[i]]):
			return fmt.Errorf("GET %s: %d bytes, not the %d stored", keys[i], len(data), len(want[keys[i]]))
		}
		return nil
	})
}

// All 256 chunks of an array read twice through the key API, over S3
// behind the latency proxy: the first pass makes one store GET per chunk,
// the second none (counted by the gateway's store metrics and at the
// proxy in front of S3; Stats would count as HEADs, and there are none
// either within revalidate_after's default 30s).
func TestSecondPassNoStoreGets(t *testing.T) {
	b := newBackend(t)
	g := startGateway(t, writeConfig(t, keyDatasets(b)), b.env())
	writeArray(t, g.URL+"/d/w", "a", plainMeta, [2]int{256, 256}, ramp(256*256, 3))
	keys := chunkKeys("a", 16)
	want := map[string][]byte{}
	for _, k := range keys {
		want[k] = get(t, g.URL+"/d/w/"+k)
		if len(want[k]) != 512 {
			t.Fatalf("chunk %s holds %d bytes, want 512", k, len(want[k]))
		}
	}
	pass := func() (calls, snapshot) {
		m0, p0 := g.slowCalls(t), b.count.snapshot()
		readAll(t, g.URL+"/d/d", keys, want, 8)
		return g.slowCalls(t).since(m0), b.count.snapshot().since(p0)
	}
	m1, p1 := pass()
	t.Logf("first pass: store calls %v; at the proxy: %s", m1, p1)
	if m1.gets() != int64(len(keys)) || p1.gets < int64(len(keys)) {
		t.Fatalf("first pass of %d chunks: %d store GETs in the metrics (%v), %d at the proxy; want one per chunk",
			len(keys), m1.gets(), m1, p1.gets)
	}
	c0 := g.cacheReads(t, "d")
	m2, p2 := pass()
	c := g.cacheReads(t, "d").since(c0)
	t.Logf("second pass: store calls %v; at the proxy: %s; the cache's reads: %v", m2, p2, c)
	if m2.gets() != 0 || p2.gets != 0 {
		t.Fatalf("second pass: %d store GETs in the metrics (%v), %d at the proxy (%s); want none",
			m2.gets(), m2, p2.gets, p2)
	}
	if c["hit"] != int64(len(keys)) {
		t.Fatalf("second pass: the cache's metrics count %v, want %d hits", c, len(keys))
	}
}

// 32 clients GET one key no one has read, at once: one store GET. The
// proxy holds that GET until the gateway has taken in every client's
// request (its metrics count the readers waiting), so the readers overlap
// it; readers that reach the cache after it was answered are hits, so
// the count is exactly one either way, and a cache that does not
// coalesce makes up to 32.
func TestConcurrentReadersOneGet(t *testing.T) {
	b := newBackend(t)
	g := startGateway(t, writeConfig(t, keyDatasets(b)), b.env())
	value := bytes.Repeat([]byte("one value, 32 readers "), 100)
	put(t, g.URL+"/d/w/one/key", value)

	release := b.count.hold("one/key")
	defer release()
	m0, p0, c0 := g.slowCalls(t), b.count.snapshot(), g.cacheReads(t, "d")
	const clients = 32
	var sent, done sync.WaitGroup
	sent.Add(clients)
	errs := make(chan error, clients)
	for range clients {
		done.Go(func() {
			var once sync.Once
			trace := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { once.Do(sent.Done) }}
			req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(t.Context(), trace), http.MethodGet, g.URL+"/d/d/one/key", nil)
			resp, err := client.Do(req)
			once.Do(sent.Done)
			if err != nil {
				errs <- err
				return
			}
			defer resp.Body.Close()
			var buf bytes.Buffer
			buf.ReadFrom(resp.Body)
			if resp.StatusCode != http.StatusOK || !bytes.Equal(buf.Bytes(), value) {
				errs <- fmt.Errorf("GET: %d, %d bytes (want 200, the %d written)", resp.StatusCode, buf.Len(), len(value))
			}
		})
	}
	select {
	case <-b.count.arrived:
	case <-time.After(60 * time.Second):
		t.Fatal("no store GET reached the proxy within 60s")
	}
	sent.Wait()
	// The clients' requests are on the wire; the store GET is held until
	// the gateway has taken every one of them in: the other 31 wait for
	// the first one's call (a cache that does not coalesce never gets
	// there, and makes its own GETs meanwhile).
	waitFor(t, "the other readers waiting for the first one's store GET", 60*time.Second, 10*time.Millisecond, func() bool {
		return g.cacheReads(t, "d").since(c0)["coalesced"] >= clients-1
	})
	release()
	done.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	m, p, c := g.slowCalls(t).since(m0), b.count.snapshot().since(p0), g.cacheReads(t, "d").since(c0)
	t.Logf("%d concurrent GETs: store calls %v; at the proxy: %s; the cache's reads: %v", clients, m, p, c)
	if m.gets() != 1 || p.gets != 1 {
		t.Fatalf("%d concurrent GETs of one key made %d store GETs (metrics %v), %d at the proxy; want exactly one", clients, m.gets(), m, p.gets)
	}
	if c["miss"] != 1 || c["miss"]+c["coalesced"]+c["hit"] != clients {
		t.Fatalf("the cache's metrics count %v for %d readers, want one miss and the others coalesced or hits", c, clients)
	}
}

// A store read that fails (S3 refuses it: 403, which is not retried)
// fails every concurrent reader with an error, never a missing key or
// fill, and is not kept: once S3 answers again, the next read has the
// value.
func TestFailedReadNotKept(t *testing.T) {
	b := newBackend(t)
	g := startGateway(t, writeConfig(t, keyDatasets(b)), b.env())
	value := []byte("the value")
	put(t, g.URL+"/d/w/f/key", value)
	stopFailing := b.count.fail("f/key", http.StatusForbidden,
		`<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`)
	const clients = 8
	codes := make([]int, clients)
	forEach(t, clients, clients, func(i int) error {
		code, _, _, err := tryDo(http.MethodGet, g.URL+"/d/d/f/key", nil)
		codes[i] = code
		return err
	})
	for i, code := range codes {
		if code == http.StatusOK || code == http.StatusNotFound {
			t.Fatalf("reader %d while S3 refused the read: %d, want an error that is not 404 (all: %v)", i, code, codes)
		}
	}
	stopFailing()
	got := get(t, g.URL+"/d/d/f/key")
	if !bytes.Equal(got, value) {
		t.Fatalf("after the failure: %q, want %q", got, value)
	}
	t.Logf("readers during the failure: %v", codes)
}

// Writes and deletes through the gateway are seen through it at once,
// though the cache trusts what it kept for an hour: a value replaced, a
// key remembered missing then created, a key deleted.
func TestOwnWritesSeenAtOnce(t *testing.T) {
	b := newBackend(t)
	g := startGateway(t, writeConfig(t, b.stores()+`
dataset "d" {
  store = store.s3.slow
  transformer "cache" {
    revalidate_after = "1h"
    negative_ttl     = "1h"
  }
  access {
    read  = ["*"]
    write = ["*"]
  }
}
`), b.env())
	u := g.URL + "/d/d/own/k"
	put(t, u, []byte("first"))
	for range 2 {
		if got := get(t, u); string(got) != "first" {
			t.Fatalf("read %q, want first", got)
		}
	}
	put(t, u, []byte("second"))
	if got := get(t, u); string(got) != "second" {
		t.Fatalf("read %q after replacing it, want second", got)
	}
	if code, _, _ := do(t, http.MethodDelete, u, nil); code/100 != 2 {
		t.Fatalf("DELETE: %d", code)
	}
	for range 2 {
		if code, data, _ := do(t, http.MethodGet, u, nil); code != http.StatusNotFound {
			t.Fatalf("GET after DELETE: %d %q, want 404", code, data)
		}
	}
	put(t, u, []byte("third"))
	if got := get(t, u); string(got) != "third" {
		t.Fatalf("read %q after creating the key it remembered missing, want third", got)
	}
	m0 := g.slowCalls(t)
	get(t, u)
	if m := g.slowCalls(t).since(m0); m.total() != 0 {
		t.Fatalf("a read again made store calls %v: the cache keeps nothing, so the test shows nothing", m)
	}
}
