package cache_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/core/store/storetest"
	"github.com/zarrgw/zarrgw/plugins/stores/fsstore"
	"github.com/zarrgw/zarrgw/plugins/transformers/cache"
)

// The cache passes the store conformance suite over the memory store and
// the fs store, revalidating every read and trusting versions for an
// hour, with a small memory tier that evicts all along, and with a disk
// tier: everything the suite reads after a write through the stack is
// what it wrote.
func TestConformance(t *testing.T) {
	nexts := map[string]func(t *testing.T) store.Store{
		"memory": func(*testing.T) store.Store { return store.NewMemory() },
		"fs": func(t *testing.T) store.Store {
			s, err := fsstore.New(t.TempDir(), fsstore.WithDirSync(false))
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
	}
	configs := map[string]string{
		"revalidate_0":  `{"revalidate_after":"0s"}`,
		"revalidate_1h": `{"revalidate_after":"1h","negative_ttl":"1h"}`,
		"small_memory":  `{"revalidate_after":"1h","memory":"64KiB"}`,
		"disk":          `{"revalidate_after":"1h","memory":"64KiB","disk":{"path":%q,"size":"64MiB"}}`,
	}
	for nextName, newNext := range nexts {
		for cfgName, cfg := range configs {
			t.Run(nextName+"/"+cfgName, func(t *testing.T) {
				t.Parallel()
				storetest.Run(t, func(t *testing.T) store.Store {
					return newFromConfig(t, cfg, newNext(t))
				})
			})
		}
	}
}

// newFromConfig builds the cache as a dataset does, from its JSON
// configuration; a %q in it becomes a fresh directory.
func newFromConfig(t testing.TB, cfg string, next store.Store) store.Store {
	t.Helper()
	if fmtHasVerb(cfg) {
		cfg = fmt.Sprintf(cfg, filepath.Join(t.TempDir(), "cache"))
	}
	s, err := cache.Registration.New(context.Background(), json.RawMessage(cfg), next)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func fmtHasVerb(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '%' && s[i+1] == 'q' {
			return true
		}
	}
	return false
}

// The cache shows exactly the optional operations of its next store, and
// serves them through the next store's own.
func TestForwarding(t *testing.T) {
	storetest.RunForwarding(t, func(t testing.TB, inner store.Store) store.Store {
		return newFromConfig(t, `{}`, inner)
	}, storetest.ForwardOptions{})
}

// Forwarding holds with revalidation on every read too (the copy-free read
// then revalidates before it reads).
func TestForwardingRevalidating(t *testing.T) {
	storetest.RunForwarding(t, func(t testing.TB, inner store.Store) store.Store {
		c, err := cache.New(inner, cache.Options{MemoryBytes: 1 << 20, RevalidateAfter: 0, NegativeTTL: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		return c.Store()
	}, storetest.ForwardOptions{})
}
