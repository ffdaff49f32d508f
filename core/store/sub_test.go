package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/core/store/storetest"
)

func TestSubConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := store.Sub(store.NewMemory(), "data/set.zarr")
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// Keys land below the prefix, nothing outside it is listed or erased, and
// ".." cannot climb out of it.
func TestSubStaysBelowPrefix(t *testing.T) {
	ctx := context.Background()
	base := store.NewMemory()
	if _, err := base.Set(ctx, "other/x", []byte("outside"), store.Condition{}); err != nil {
		t.Fatal(err)
	}
	s, err := store.Sub(base, "/ds/")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Set(ctx, "a/zarr.json", []byte("{}"), store.Condition{}); err != nil {
		t.Fatal(err)
	}
	if _, err := base.Get(ctx, "ds/a/zarr.json", store.ByteRange{}); err != nil {
		t.Fatalf("value not stored below the prefix: %v", err)
	}
	keys, err := store.ListAll(ctx, s, "")
	if err != nil || len(keys) != 1 || keys[0] != "a/zarr.json" {
		t.Fatalf("List = %v, %v; want [a/zarr.json]", keys, err)
	}
	if _, err := s.Get(ctx, "../other/x", store.ByteRange{}); !errors.Is(err, store.ErrInvalidKey) {
		t.Fatalf("Get(../other/x) = %v, want ErrInvalidKey", err)
	}
	if err := s.ErasePrefix(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if v, err := base.Get(ctx, "other/x", store.ByteRange{}); err != nil || string(v.Data) != "outside" {
		t.Fatalf("key outside the prefix lost: %q, %v", v.Data, err)
	}
	if _, err := store.Sub(base, "a/../b"); !errors.Is(err, store.ErrInvalidKey) {
		t.Fatalf("Sub(a/../b) = %v, want ErrInvalidKey", err)
	}
}

func TestReadOnlyConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return store.ReadOnly(store.NewMemory()) })
}

// A read-only store refuses writes and erasures and leaves what is stored.
func TestReadOnlyKeepsData(t *testing.T) {
	ctx := context.Background()
	base := store.NewMemory()
	if _, err := base.Set(ctx, "k", []byte("v"), store.Condition{}); err != nil {
		t.Fatal(err)
	}
	ro := store.ReadOnly(base)
	if _, err := ro.Set(ctx, "k", []byte("w"), store.Condition{}); !errors.Is(err, store.ErrUnsupported) {
		t.Fatalf("Set = %v, want ErrUnsupported", err)
	}
	if err := ro.Erase(ctx, "k"); !errors.Is(err, store.ErrUnsupported) {
		t.Fatalf("Erase = %v, want ErrUnsupported", err)
	}
	if err := ro.ErasePrefix(ctx, ""); !errors.Is(err, store.ErrUnsupported) {
		t.Fatalf("ErasePrefix = %v, want ErrUnsupported", err)
	}
	if v, err := ro.Get(ctx, "k", store.ByteRange{}); err != nil || string(v.Data) != "v" {
		t.Fatalf("Get = %q, %v", v.Data, err)
	}
}
