package storetest_test

import (
	"context"
	"iter"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/core/store/storetest"
)

// ReadVia keeps the copy-free read of its reader, and lists nothing.
func TestReadViaForwards(t *testing.T) {
	storetest.RunForwarding(t, func(_ testing.TB, inner store.Store) store.Store {
		return storetest.ReadVia(inner, inner)
	}, storetest.ForwardOptions{Lacks: store.Optional{Sorted: true, Info: true}})
}

// Each mutant wrapper gets one thing wrong, and the check names it for
// some inner store; the honest wrapper passes over every one.
func TestForwardingCatchesMutants(t *testing.T) {
	none := store.Optional{}
	mutants := map[string]struct {
		wrap storetest.Wrapper
		want string // in one of the problems reported; "" for none
	}{
		"honest": {func(_ testing.TB, in store.Store) store.Store { return &pass{in} }, ""},
		// the wrappers of before: every optional operation, whatever is below
		"claimsAll": {func(_ testing.TB, in store.Store) store.Store { return &claimsAll{pass{in}} }, "claims into+sorted+info, which its store lacks"},
		"dropsInfo": {func(_ testing.TB, in store.Store) store.Store {
			return store.WithOptional(&pass{in}, store.OptionalOf(in).Minus(store.Optional{Info: true}))
		}, "drops info"},
		"dropsAll": {func(_ testing.TB, in store.Store) store.Store { return store.WithOptional(&pass{in}, none) }, "drops into+sorted+info"},
		"infoByStat": {func(_ testing.TB, in store.Store) store.Store {
			return &infoByStat{pass{in}}
		}, "did not list through the inner store's ListInfo"},
		"sortedByWalk": {func(_ testing.TB, in store.Store) store.Store {
			return &sortedByWalk{pass{in}}
		}, "did not list through the inner store's sorted listing"},
		"intoByGet": {func(_ testing.TB, in store.Store) store.Store {
			return &intoByGet{pass{in}}
		}, "never reached the inner store's GetInto"},
		"erasesEach": {func(_ testing.TB, in store.Store) store.Store {
			return &erasesEach{pass{in}}
		}, "did not reach the inner store as one EraseMany"},
		"losesStartAfter": {func(_ testing.TB, in store.Store) store.Store {
			return &losesStartAfter{pass{in}}
		}, `ListSorted("", "a/b") = ["a/b" "a/c" "d"]`},
	}
	for name, m := range mutants {
		t.Run(name, func(t *testing.T) {
			var all []string
			for _, o := range store.EveryOptional() {
				for _, p := range storetest.ForwardingProblems(t, m.wrap, o, storetest.ForwardOptions{}) {
					all = append(all, o.String()+": "+p)
				}
			}
			found := false
			for _, p := range all {
				found = found || m.want != "" && strings.Contains(p, m.want)
			}
			if m.want == "" && len(all) > 0 || m.want != "" && !found {
				t.Fatalf("problems found: %q\nwant one with %q", all, m.want)
			}
		})
	}
}

// pass is a wrapper that passes every call on, with every optional
// operation served by the store below's where it has one.
type pass struct{ store.Store }

// claimsAll claims every optional operation whatever its store has.
type claimsAll struct{ pass }

func (c *claimsAll) Capabilities() store.Capabilities {
	caps := c.Store.Capabilities()
	caps.Into, caps.Sorted, caps.Info = true, true, true
	return caps
}

func (p *pass) GetInto(ctx context.Context, key string, dst []byte) (bool, error) {
	return store.GetInto(ctx, p.Store, key, dst)
}

func (p *pass) ListSorted(ctx context.Context, prefix, after string) iter.Seq2[string, error] {
	return store.ListSorted(ctx, p.Store, prefix, after)
}

func (p *pass) ListInfo(ctx context.Context, prefix, after string) iter.Seq2[store.Entry, error] {
	return store.ListInfo(ctx, p.Store, prefix, after)
}

// infoByStat lists with sizes by a Stat of each key even where the store
// below lists them itself.
type infoByStat struct{ pass }

func (p *infoByStat) ListInfo(ctx context.Context, prefix, after string) iter.Seq2[store.Entry, error] {
	return store.ListInfo(ctx, store.WithOptional(p.Store, store.Optional{Sorted: true}), prefix, after)
}

// sortedByWalk lists sorted by walking directories.
type sortedByWalk struct{ pass }

func (p *sortedByWalk) ListSorted(ctx context.Context, prefix, after string) iter.Seq2[string, error] {
	return store.WalkSorted(ctx, p.Store, prefix, after)
}

// intoByGet reads into a buffer by a Get and a copy.
type intoByGet struct{ pass }

func (p *intoByGet) GetInto(ctx context.Context, key string, dst []byte) (bool, error) {
	return store.GetInto(ctx, store.WithOptional(p.Store, store.Optional{}), key, dst)
}

// losesStartAfter lists from the first key whatever it is asked.
type losesStartAfter struct{ pass }

func (p *losesStartAfter) ListSorted(ctx context.Context, prefix, _ string) iter.Seq2[string, error] {
	return store.ListSorted(ctx, p.Store, prefix, "")
}

// erasesEach erases a batch key by key, as every wrapper did before
// EraseMany was part of Store.
type erasesEach struct{ pass }

func (e *erasesEach) EraseMany(ctx context.Context, keys []string) error {
	return store.EraseEach(ctx, e.Store, keys, 0)
}
