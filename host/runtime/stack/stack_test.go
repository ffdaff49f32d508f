package stack_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/host/runtime/stack"
)

func start(t *testing.T, root string) *stack.Host {
	t.Helper()
	src := fmt.Sprintf(`
store "fs" "local" {
  root = %q
}
dataset "plain" {
  store  = store.fs.local
  prefix = "plain.zarr"
}
dataset "frozen" {
  store     = store.fs.local
  prefix    = "plain.zarr"
  read_only = true
}
dataset "sharded" {
  store  = store.fs.local
  prefix = "sharded.zarr"
  transformer "sharding" {
    chunks_per_shard = [2, 2]
  }
}
`, root)
	cfg, diags := config.Parse([]byte(src), filepath.Join(t.TempDir(), "zarrgw.hcl"), registry.Bundled().Catalog())
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	h, err := stack.Start(cfg, registry.Bundled(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

func TestDatasetPrefixAndReadOnly(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	h := start(t, root)
	plain, err := h.Dataset(ctx, "plain")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plain.Store.Set(ctx, "a/zarr.json", []byte("{}"), store.Condition{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "plain.zarr", "a", "zarr.json")); err != nil {
		t.Fatalf("not stored below the dataset's prefix: %v", err)
	}
	frozen, err := h.Dataset(ctx, "frozen")
	if err != nil {
		t.Fatal(err)
	}
	if v, err := frozen.Store.Get(ctx, "a/zarr.json", store.ByteRange{}); err != nil || string(v.Data) != "{}" {
		t.Fatalf("read-only dataset Get = %q, %v", v.Data, err)
	}
	if _, err := frozen.Store.Set(ctx, "a/zarr.json", []byte("[]"), store.Condition{}); !errors.Is(err, store.ErrUnsupported) {
		t.Fatalf("read-only dataset accepted a write: %v", err)
	}
	if _, err := h.Dataset(ctx, "missing"); err == nil {
		t.Fatal("opened an undeclared dataset")
	}
}

// A dataset's sharding transformer stores chunk c/3/1 of any array in it
// in shard c/1/0, and lists the original chunk key.
func TestDatasetTransformerStack(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	h := start(t, root)
	ds, err := h.Dataset(ctx, "sharded")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"t2m/c/3/1", "t2m/c/2/0", "t2m/zarr.json"} {
		if _, err := ds.Store.Set(ctx, k, []byte(k), store.Condition{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "sharded.zarr", "t2m", "c", "1", "0")); err != nil {
		t.Fatalf("shard c/1/0 not written: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "sharded.zarr", "t2m", "c", "3", "1")); err == nil {
		t.Fatal("chunk stored under its own key, not in a shard")
	}
	v, err := ds.Store.Get(ctx, "t2m/c/3/1", store.ByteRange{})
	if err != nil || string(v.Data) != "t2m/c/3/1" {
		t.Fatalf("Get = %q, %v", v.Data, err)
	}
	keys, err := store.ListAll(ctx, ds.Store, "t2m/")
	slices.Sort(keys)
	if err != nil || !slices.Equal(keys, []string{"t2m/c/2/0", "t2m/c/3/1", "t2m/zarr.json"}) {
		t.Fatalf("List = %v, %v", keys, err)
	}
}
