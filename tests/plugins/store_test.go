package plugins

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/core/store/storetest"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
)

// The fs store passes the store conformance suite out of process.
func TestStoreConformanceFS(t *testing.T) {
	l, _ := newLauncher(t)
	parts, err := registry.Bundled().OutOfProcess(l, zarrgwBin)
	if err != nil {
		t.Fatal(err)
	}
	openFS := fsOpener(parts)
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := openFS(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// A memory store served by a plugin passes the suite; each test names a
// new instance through its configuration.
func TestStoreConformanceMemory(t *testing.T) {
	l, _ := newLauncher(t)
	p := addPlugin(t, l, "example.org/test/memory", testPluginBin, nil, "memory")
	var n atomic.Int64
	storetest.Run(t, func(t *testing.T) store.Store {
		config := json.RawMessage(fmt.Sprintf(`{"instance":%d}`, n.Add(1)))
		s, err := p.Store(context.Background(), "memory", config)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// A transformer in a plugin wraps a store the host serves back to it
// through the broker (here an in-process memory store), and the stack
// passes the suite; the keys land under the transformer's prefix.
func TestTransformerConformance(t *testing.T) {
	l, _ := newLauncher(t)
	p := addPlugin(t, l, "example.org/test/prefix", keyprefixBin, nil)
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := p.Transformer(context.Background(), "keyprefix", json.RawMessage(`{"prefix":"under/"}`), store.NewMemory())
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
	next := store.NewMemory()
	s, err := p.Transformer(context.Background(), "keyprefix", json.RawMessage(`{"prefix":"under/"}`), next)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Set(context.Background(), "a/b", []byte("x"), store.Condition{}); err != nil {
		t.Fatal(err)
	}
	if v, err := next.Get(context.Background(), "under/a/b", store.ByteRange{}); err != nil || string(v.Data) != "x" {
		t.Fatalf("next store holds %q, %v", v.Data, err)
	}
	if _, err := s.Get(context.Background(), "missing", store.ByteRange{}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("missing key through two process boundaries: %v", err)
	}
}

// A 256 MiB value goes through Set and Get of an out-of-process store
// intact, far beyond gRPC's 4 MiB message limit.
func TestStoreLargeValue(t *testing.T) {
	l, _ := newLauncher(t)
	parts, err := registry.Bundled().OutOfProcess(l, zarrgwBin)
	if err != nil {
		t.Fatal(err)
	}
	openFS := fsOpener(parts)
	s, err := openFS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	value := pattern(256 << 20)
	ctx := context.Background()
	if _, err := s.Set(ctx, "big", value, store.Condition{}); err != nil {
		t.Fatal(err)
	}
	v, err := s.Get(ctx, "big", store.ByteRange{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(v.Data, value) {
		t.Fatalf("read back %d bytes, not the %d written", len(v.Data), len(value))
	}
	part, err := s.Get(ctx, "big", store.Range(200<<20, 5<<20))
	if err != nil || !bytes.Equal(part.Data, value[200<<20:205<<20]) {
		t.Fatalf("range read: %d bytes, %v", len(part.Data), err)
	}
}

// pattern returns n bytes that no shift or truncation leaves unchanged.
func pattern(n int) []byte {
	b := make([]byte, n)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

// GetInto reads a value of the buffer's size into the buffer, and reports
// false without reading for any other size, out of process too.
func TestStoreGetInto(t *testing.T) {
	l, _ := newLauncher(t)
	parts, err := registry.Bundled().OutOfProcess(l, zarrgwBin)
	if err != nil {
		t.Fatal(err)
	}
	openFS := fsOpener(parts)
	s, err := openFS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	into := s
	if !store.OptionalOf(s).Into {
		t.Fatal("the out-of-process store does not read into buffers")
	}
	ctx := context.Background()
	for _, n := range []int{1, 1 << 20, 9 << 20} { // in shared memory, and in frames
		value := pattern(n)
		if _, err := s.Set(ctx, "v", value, store.Condition{}); err != nil {
			t.Fatal(err)
		}
		dst := make([]byte, n)
		if got, err := into.GetInto(ctx, "v", dst); err != nil || !got || !bytes.Equal(dst, value) {
			t.Fatalf("%d bytes: read %v, %v", n, got, err)
		}
		short := make([]byte, n+1)
		if got, err := into.GetInto(ctx, "v", short); err != nil || got {
			t.Fatalf("%d bytes into %d: %v, %v", n, len(short), got, err)
		}
	}
	if _, err := into.GetInto(ctx, "missing", make([]byte, 3)); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("missing key: %v", err)
	}
}

// A store plugin's refusal of the credentials stays store.ErrAccessDenied
// on the host side, distinct from a missing key: here the bundled http
// store, out of process, reads from a loopback server that answers 403.
func TestStoreAccessDeniedCrossesTheBoundary(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/secret/") {
			http.Error(w, "forbidden", http.StatusForbidden)
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	l, _ := newLauncher(t)
	parts, err := registry.Bundled().OutOfProcess(l, zarrgwBin)
	if err != nil {
		t.Fatal(err)
	}
	s, err := parts.OpenStore(context.Background(), "http", json.RawMessage(`{"url":"`+srv.URL+`/","max_attempts":1}`))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = s.Get(context.Background(), "secret/k", store.ByteRange{})
	if !errors.Is(err, store.ErrAccessDenied) || errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), "zarrgw/http") {
		t.Fatalf("403 from a store plugin: %v, want store.ErrAccessDenied naming the plugin", err)
	}
	if _, err := s.Get(context.Background(), "public/k", store.ByteRange{}); !errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrAccessDenied) {
		t.Fatalf("404 from a store plugin: %v", err)
	}
}
