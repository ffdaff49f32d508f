package zipstore

import (
	"archive/zip"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
)

// writeZip writes members, the odd ones stored and the even ones deflated.
func writeZip(t *testing.T, members map[string]string, order []string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data.zip")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for i, name := range order {
		method := zip.Deflate
		if i%2 == 1 {
			method = zip.Store
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(members[name]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return path
}

func TestZipStore(t *testing.T) {
	members := map[string]string{"a/zarr.json": "{}", "a/c/0": "0123456789", "a/c/1": "abcdef", "b": "top"}
	path := writeZip(t, members, []string{"a/zarr.json", "a/c/0", "a/c/1", "b"})
	ctx := context.Background()
	s, err := Open(ctx, json.RawMessage(`{"path":"`+path+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for key, want := range members {
		if v, err := s.Get(ctx, key, store.ByteRange{}); err != nil || string(v.Data) != want {
			t.Errorf("%s: %q, %v", key, v.Data, err)
		}
	}
	for _, key := range []string{"a/c/0", "a/c/1"} { // stored, then deflated
		if v, err := s.Get(ctx, key, store.Range(2, 3)); err != nil || string(v.Data) != members[key][2:5] {
			t.Errorf("%s bytes 2-4: %q, %v", key, v.Data, err)
		}
		if v, err := s.Get(ctx, key, store.Last(2)); err != nil || string(v.Data) != members[key][len(members[key])-2:] {
			t.Errorf("%s last 2: %q, %v", key, v.Data, err)
		}
	}
	if _, err := s.Get(ctx, "a/c/2", store.ByteRange{}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("missing member: %v", err)
	}
	if _, err := s.Set(ctx, "x", nil, store.Condition{}); !errors.Is(err, store.ErrUnsupported) {
		t.Errorf("set: %v", err)
	}
	d, err := s.ListDir(ctx, "a/")
	if want := (store.Dir{Keys: []string{"a/zarr.json"}, Prefixes: []string{"a/c/"}}); err != nil || !reflect.DeepEqual(d, want) {
		t.Errorf("ListDir(a/) = %+v, %v", d, err)
	}
	var keys []string
	for k, err := range s.List(ctx, "a/c/") {
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	if !reflect.DeepEqual(keys, []string{"a/c/0", "a/c/1"}) {
		t.Errorf("List(a/c/) = %v", keys)
	}
}
