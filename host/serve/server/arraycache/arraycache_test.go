package arraycache

import (
	"context"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
)

const (
	v3Doc = `{"zarr_format":3,"node_type":"array","shape":[4],"data_type":"uint8",
"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[2]}},"chunk_key_encoding":{"name":"default"},
"fill_value":FILL,"codecs":[{"name":"bytes"}],"attributes":{}}`
	v2Doc = `{"zarr_format":2,"shape":[4],"chunks":[2],"dtype":"|u1","fill_value":FILL,"order":"C",
"compressor":null,"filters":null}`
)

func doc(tmpl string, fill string) []byte { return []byte(strings.Replace(tmpl, "FILL", fill, 1)) }

func set(t *testing.T, s store.Store, key string, value []byte) {
	t.Helper()
	if _, err := s.Set(context.Background(), key, value, store.Condition{}); err != nil {
		t.Fatal(err)
	}
}

// open opens path through c and returns the array and its fill value.
func open(t *testing.T, c *Cache, path string) (*array.Array, byte) {
	t.Helper()
	a, err := c.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return a, a.Meta().FillValue[0]
}

// An array is opened once while its documents read the same, and again
// as soon as one of them changes, appears or goes: for v2, the .zattrs
// read missing when it was opened counts as one of them.
func TestKeptWhileDocumentsReadTheSame(t *testing.T) {
	for _, c := range []struct {
		name, key, tmpl string
		extra           string // a document that was missing when first opened
	}{
		{"v3", "a/zarr.json", v3Doc, ""},
		{"v2", "a/.zarray", v2Doc, "a/.zattrs"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := store.NewMemory()
			set(t, s, c.key, doc(c.tmpl, "1"))
			cache := New(s, array.Options{Codecs: registry.Codecs()})
			first, fill := open(t, cache, "a")
			if fill != 1 {
				t.Fatalf("fill value %d, want 1", fill)
			}
			if again, _ := open(t, cache, "/a/"); again != first {
				t.Fatal("the array was opened again though nothing changed")
			}
			set(t, s, c.key, doc(c.tmpl, "2"))
			second, fill := open(t, cache, "a")
			if second == first || fill != 2 {
				t.Fatalf("after its document changed: the same array %v, fill value %d (want a new one, 2)", second == first, fill)
			}
			if c.extra == "" {
				return
			}
			set(t, s, c.extra, []byte(`{"note":"new"}`))
			third, _ := open(t, cache, "a")
			if third == second || string(third.Meta().Attributes) != `{"note":"new"}` {
				t.Fatalf("after %s appeared: the same array %v, attributes %s", c.extra, third == second, third.Meta().Attributes)
			}
		})
	}
}

// A path that holds no array is an error, and nothing is kept for it.
func TestNoArray(t *testing.T) {
	s := store.NewMemory()
	cache := New(s, array.Options{Codecs: registry.Codecs()})
	if _, err := cache.Open(context.Background(), "nothing"); err == nil {
		t.Fatal("opened an array where there is none")
	}
	set(t, s, "nothing/zarr.json", doc(v3Doc, "3"))
	if _, fill := open(t, cache, "nothing"); fill != 3 {
		t.Fatalf("fill value %d, want 3", fill)
	}
}
