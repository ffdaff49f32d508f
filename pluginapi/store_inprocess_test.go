package pluginapi

import (
	"context"
	"iter"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/core/store/storetest"
	"github.com/zarrgw/zarrgw/core/transformer"
)

// A store served over the protocol passes the store conformance suite:
// one with the sorted listings (asked for in List) and one without (the
// host walks directories and Stats keys through the protocol).
func TestStoreConformanceInProcess(t *testing.T) {
	c := inProcess(t, Extensions{Stores: []store.Registration{
		storeExtension("memory", func() store.Store { return store.NewMemory() }),
		storeExtension("plain", func() store.Store { return store.WithOptional(store.NewMemory(), store.Optional{}) }),
	}})
	var ids instances
	for _, name := range []string{"memory", "plain"} {
		t.Run(name, func(t *testing.T) {
			storetest.Run(t, func(t *testing.T) store.Store {
				s, err := c.Store(t.Context(), name, ids.next())
				if err != nil {
					t.Fatal(err)
				}
				return s
			})
		})
	}
}

// A transformer in the plugin over a store the host serves back to it
// through the broker passes the suite too.
func TestTransformerConformanceInProcess(t *testing.T) {
	c := inProcess(t, Extensions{Transformers: []transformer.Registration{subTransformer}})
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := c.Transformer(t.Context(), "sub", nil, store.NewMemory())
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// serveStore is a Wrapper: inner served by an in-process plugin, and the
// host's client of it.
func serveStore(t testing.TB, inner store.Store) store.Store {
	c := inProcess(t, Extensions{Stores: []store.Registration{storeExtension("inner", func() store.Store { return inner })}})
	s, err := c.Store(t.Context(), "inner", nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The client shows a sorted listing, and one with sizes, exactly where
// the plugin's store has them, and each is one List call reaching that
// store's own (no Stat per key, no walk); it reads into the caller's
// buffer whatever the plugin's store does.
func TestStoreForwarding(t *testing.T) {
	storetest.RunForwarding(t, serveStore, storetest.ForwardOptions{Own: store.Optional{Into: true}})
}

// Through a transformer in the plugin, the listings of the host's store
// below reach the host's client: host store -> broker -> plugin's client
// of it -> transformer -> plugin's server -> host's client.
func TestTransformerForwarding(t *testing.T) {
	storetest.RunForwarding(t, func(t testing.TB, inner store.Store) store.Store {
		c := inProcess(t, Extensions{Transformers: []transformer.Registration{subTransformer}})
		s, err := c.Transformer(t.Context(), "sub", nil, inner)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}, storetest.ForwardOptions{Own: store.Optional{Into: true}})
}

// The forwarding check over the protocol catches a plugin's store that
// drops its listing with sizes, and one whose listing loses the sizes.
func TestForwardingCatchesPluginMutants(t *testing.T) {
	all := store.Optional{Into: true, Sorted: true, Info: true}
	mutants := map[string]struct {
		wrap func(inner store.Store) store.Store
		want string
	}{
		"dropsInfo": {func(inner store.Store) store.Store {
			return store.WithOptional(inner, store.OptionalOf(inner).Minus(store.Optional{Info: true}))
		}, "drops info"},
		"losesSizes": {func(inner store.Store) store.Store { return &zeroSizes{inner} }, "has size 0"},
	}
	for name, m := range mutants {
		t.Run(name, func(t *testing.T) {
			problems := storetest.ForwardingProblems(t, func(t testing.TB, inner store.Store) store.Store {
				return serveStore(t, m.wrap(inner))
			}, all, storetest.ForwardOptions{Own: store.Optional{Into: true}})
			if !strings.Contains(strings.Join(problems, "\n"), m.want) {
				t.Fatalf("problems %q, want one with %q", problems, m.want)
			}
		})
	}
}

// zeroSizes is a store whose listing with sizes reports none.
type zeroSizes struct{ store.Store }

func (z *zeroSizes) ListSorted(ctx context.Context, prefix, after string) iter.Seq2[string, error] {
	return store.ListSorted(ctx, z.Store, prefix, after)
}

func (z *zeroSizes) ListInfo(ctx context.Context, prefix, after string) iter.Seq2[store.Entry, error] {
	return func(yield func(store.Entry, error) bool) {
		for e, err := range store.ListInfo(ctx, z.Store, prefix, after) {
			e.Info.Size = 0
			if !yield(e, err) || err != nil {
				return
			}
		}
	}
}
