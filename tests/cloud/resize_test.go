package cloud

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/plugins/stores/s3store"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// deleteCounter is an HTTP proxy in front of an S3 server that counts
// batch deletes (POST ?delete, S3's DeleteObjects) and single DELETEs.
type deleteCounter struct {
	URL             string
	batches, single atomic.Int64
}

func countDeletes(t *testing.T, upstream string) *deleteCounter {
	t.Helper()
	target, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(target)
		r.Out.Host = r.In.Host // the signature was made for the proxy's host
	}}
	c := &deleteCounter{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch _, batch := r.URL.Query()["delete"]; {
		case r.Method == http.MethodPost && batch:
			c.batches.Add(1)
		case r.Method == http.MethodDelete:
			c.single.Add(1)
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	c.URL = srv.URL
	return c
}

// eraseEach is a store whose EraseMany erases key by key, as every batch
// erase did before EraseMany was part of the Store interface (core/array's
// resize called one Erase per chunk, 8 at a time).
type eraseEach struct{ store.Store }

func (e eraseEach) EraseMany(ctx context.Context, keys []string) error {
	return store.EraseEach(ctx, e.Store, keys, 8)
}

// A resize that drops 10 000 chunks of an array on S3 makes at most 10
// DeleteObjects calls and no single DELETE, with the store in process
// and served by a plugin (counted at a proxy in front of versitygw). Key
// by key, as before EraseMany reached the store, a resize makes a DELETE
// per chunk (10 000 for this one, measured once; 1 000 here, to keep the
// test short): what the proxy sees when a layer does not forward the
// batch.
func TestResizeErasesInBatches(t *testing.T) {
	srv := servers.StartS3(t)
	front := countDeletes(t, srv.Endpoint)
	cfg := s3Config(t, srv)
	cfg.Endpoint = front.URL
	inProcess, err := s3store.New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inProcess.Close() })
	p := newPlugin(t)
	cases := []struct {
		name             string
		store            store.Store
		drop             int
		batches, singles int64 // at most, at most
	}{
		{"in process", inProcess, 10_000, 10, 0},
		{"out of process", remote(t, p, s3store.Name, cfg), 10_000, 10, 0},
		{"key by key", eraseEach{inProcess}, 1_000, 0, 1_000},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := strings.ReplaceAll(c.name, " ", "-")
			batches, singles := resizeDropping(t, c.store, path, c.drop, front)
			t.Logf("%s: dropping %d chunks made %d DeleteObjects calls and %d DELETEs", c.name, c.drop, batches, singles)
			if batches > c.batches || singles > c.singles || batches+singles == 0 {
				t.Fatalf("dropping %d chunks made %d DeleteObjects calls and %d DELETEs; want at most %d and %d",
					c.drop, batches, singles, c.batches, c.singles)
			}
		})
	}
}

// resizeDropping creates a 1-D array of drop+100 one-byte chunks at path,
// stores every 100th chunk, shrinks it to 100 elements and returns the
// batch and single deletes the resize made. The chunks outside must be
// gone and those inside kept.
func resizeDropping(t *testing.T, s store.Store, path string, drop int, front *deleteCounter) (batches, singles int64) {
	ctx := t.Context()
	m := &meta.ArrayMeta{Format: meta.V3, Shape: []int{drop + 100}, ChunkShape: []int{1}, DataType: dtype.Named("uint8"),
		FillValue: []byte{0}, Codecs: []meta.Extension{{Name: "bytes"}},
		ChunkKey: meta.ChunkKeyEncoding{Name: "default", Separator: "/"}, Attributes: json.RawMessage("{}")}
	a, err := hierarchy.CreateArray(ctx, s, path, m, array.Options{Codecs: registry.Codecs()})
	if err != nil {
		t.Fatal(err)
	}
	var kept, dropped []string
	for i := 0; i < drop+100; i += 100 {
		key := a.ChunkKey([]int{i + 1})
		if _, err := s.Set(ctx, key, []byte{1}, store.Condition{}); err != nil {
			t.Fatal(err)
		}
		if i+1 < 100 {
			kept = append(kept, key)
		} else {
			dropped = append(dropped, key)
		}
	}
	b0, s0 := front.batches.Load(), front.single.Load()
	if err := a.Resize(ctx, []int{100}); err != nil {
		t.Fatal(err)
	}
	batches, singles = front.batches.Load()-b0, front.single.Load()-s0
	for _, key := range dropped[:3] {
		if _, err := s.Stat(ctx, key); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("chunk %s outside the new shape: Stat = %v, want not found", key, err)
		}
	}
	left, err := store.ListAll(ctx, s, path+"/c/")
	if err != nil || fmt.Sprint(left) != fmt.Sprint(kept) {
		t.Errorf("chunks after the resize: %q, %v; want %q", left, err, kept)
	}
	return batches, singles
}
