package keyprefix

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/core/store/storetest"
)

// The transformer over a memory store is a store like any other, and its
// keys land under the prefix below.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := New(context.Background(), json.RawMessage(`{"prefix":"v1/"}`), store.NewMemory())
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
	below := store.NewMemory()
	s, err := New(context.Background(), json.RawMessage(`{"prefix":"v1/"}`), below)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Set(context.Background(), "zarr.json", []byte("{}"), store.Condition{}); err != nil {
		t.Fatal(err)
	}
	if _, err := below.Get(context.Background(), "v1/zarr.json", store.ByteRange{}); err != nil {
		t.Fatalf("below: %v", err)
	}
	if _, err := New(context.Background(), json.RawMessage(`{"prefix":"v1"}`), below); err == nil {
		t.Error("a prefix without a trailing / accepted")
	}
}

// The transformer keeps exactly the optional operations of the store
// below, and serves each through that store's own.
func TestForwarding(t *testing.T) {
	storetest.RunForwarding(t, func(t testing.TB, inner store.Store) store.Store {
		s, err := New(context.Background(), json.RawMessage(`{"prefix":"v1/"}`), inner)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}, storetest.ForwardOptions{})
}
