package references_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	nethttp "net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/stores/references"
)

// bigSet is a JSON reference set of about n bytes: keys v/I of inline
// values of 1000 random bytes, the last one v/last.
func bigSet(t *testing.T, n int) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(`{"v/last": "end"`)
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, `, "v/%d": "base64:%s"`, i, base64.StdEncoding.EncodeToString(randomBytes(t, 1000)))
	}
	b.WriteString("}")
	return b.Bytes()
}

func randomBytes(t *testing.T, n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// countingFiles opens local directories as fs stores whose Get counts the
// bytes it returns.
type countingFiles struct{ read *atomic.Int64 }

func (c countingFiles) OpenURL(ctx context.Context, url string) (store.Store, error) {
	s, err := localFiles{}.OpenURL(ctx, url)
	if err != nil {
		return nil, err
	}
	// without the files and copy-free reads of the fs store: every read
	// is a counted Get
	return store.WithOptional(countingStore{s, c.read}, store.Optional{}), nil
}

type countingStore struct {
	store.Store
	read *atomic.Int64
}

func (c countingStore) Get(ctx context.Context, key string, r store.ByteRange) (store.Value, error) {
	v, err := c.Store.Get(ctx, key, r)
	c.read.Add(int64(len(v.Data)))
	return v, err
}

// openWithin opens the references store over location with max_set_bytes
// max.
func openWithin(opener store.URLOpener, location string, max int64) (store.Store, error) {
	cfg, _ := json.Marshal(map[string]any{"references": location, "max_set_bytes": max})
	return references.Registration.New(store.WithURLOpener(context.Background(), opener), cfg)
}

// wantSetTooLarge fails unless err refuses the set at location for its
// size, naming the location, the attribute and what was too large.
func wantSetTooLarge(t *testing.T, err error, location, what string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: opened, want it refused by max_set_bytes", location)
	}
	for _, w := range []string{location, what, "max_set_bytes"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: %v, want an error naming %q", location, err, w)
		}
	}
}

// A JSON set larger than max_set_bytes is refused, naming the set and
// the attribute, having read at most one byte more than the bound; one
// within it opens and reads.
func TestJSONSetBoundedWhileRead(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "set.json")
	doc := bigSet(t, 8<<20)
	if err := os.WriteFile(path, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	var read atomic.Int64
	_, err := openWithin(countingFiles{&read}, path, 1<<20)
	wantSetTooLarge(t, err, path, "document")
	if n := read.Load(); n > 1<<20+1 {
		t.Errorf("read %d bytes of a set of %d to refuse it at %d", n, len(doc), 1<<20)
	}
	s, err := openWithin(countingFiles{&read}, path, int64(len(doc)))
	if err != nil {
		t.Fatalf("a set of exactly max_set_bytes: %v", err)
	}
	defer s.Close()
	if v, err := s.Get(context.Background(), "v/last", store.ByteRange{}); err != nil || string(v.Data) != "end" {
		t.Errorf("v/last: %q %v", v.Data, err)
	}
}

// Over HTTP too, from a server that answers ranges and from one that
// ignores them: the server sends little more than the bound.
func TestJSONSetBoundedOverHTTP(t *testing.T) {
	doc := bigSet(t, 32<<20)
	for _, ignoreRange := range []bool{false, true} {
		t.Run(fmt.Sprintf("ignoring Range %v", ignoreRange), func(t *testing.T) {
			sent := make(chan int64, 1)
			srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
				if r.URL.Path != "/set.json" { // the store first asks for set.json/.zmetadata
					nethttp.NotFound(w, r)
					return
				}
				cw := &countingWriter{ResponseWriter: w}
				if ignoreRange {
					r.Header.Del("Range")
				}
				nethttp.ServeContent(cw, r, "set.json", time.Time{}, bytes.NewReader(doc))
				sent <- cw.n
			}))
			defer srv.Close()
			location := srv.URL + "/set.json"
			_, err := openWithin(filesAndWeb{}, location, 1<<20)
			wantSetTooLarge(t, err, location, "document")
			// socket buffers take a few MiB of what a server that ignores
			// the range writes after the store stops reading
			if n := <-sent; n > 8<<20 {
				t.Errorf("the server sent %d bytes of a set of %d refused at %d", n, len(doc), 1<<20)
			}
		})
	}
}

type countingWriter struct {
	nethttp.ResponseWriter
	n int64
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.ResponseWriter.Write(b)
	c.n += int64(n)
	return n, err
}

// The Parquet form's index (.zmetadata) and each record file are read
// within max_set_bytes: over it, the error names the file and the
// attribute.
func TestParquetDocumentsBounded(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "set.parq")
	doc := `{"v/.zarray": "{\"zarr_format\":2,\"shape\":[20],\"chunks\":[1],\"dtype\":\"|u1\",\"compressor\":null,\"fill_value\":0,\"order\":\"C\",\"filters\":null}"`
	for i := range 20 {
		doc += fmt.Sprintf(`, "v/%d": "base64:%s"`, i, base64.StdEncoding.EncodeToString(randomBytes(t, 1000)))
	}
	writeParquet(t, []byte(doc+"}"), dir, 10)
	index, record := fileSize(t, filepath.Join(dir, ".zmetadata")), fileSize(t, filepath.Join(dir, "v", "refs.0.parq"))
	if index >= record {
		t.Fatalf(".zmetadata of %d bytes, a record file of %d: want the index the smaller", index, record)
	}
	var read atomic.Int64
	_, err := openWithin(countingFiles{&read}, dir+"/", index-1)
	wantSetTooLarge(t, err, dir, ".zmetadata")

	s, err := openWithin(countingFiles{&read}, dir+"/", record-1)
	if err != nil {
		t.Fatalf("the index within max_set_bytes: %v", err)
	}
	defer s.Close()
	_, err = s.Get(context.Background(), "v/3", store.ByteRange{})
	if err == nil || errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a record file over max_set_bytes: %v, want an error other than not found", err)
	}
	wantSetTooLarge(t, err, "refs.0.parq", "record file")

	s2, err := openWithin(countingFiles{&read}, dir+"/", record)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if v, err := s2.Get(context.Background(), "v/3", store.ByteRange{}); err != nil || len(v.Data) != 1000 {
		t.Errorf("v/3 within max_set_bytes: %d bytes, %v", len(v.Data), err)
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
