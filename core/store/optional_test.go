package store_test

import (
	"context"
	"io"
	"os"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/core/store/storetest"
)

// WithOptional claims exactly the operations asked for, and a store that
// already shows them is returned as it is.
func TestWithOptional(t *testing.T) {
	m := filesToo{store.NewMemory()}
	for _, o := range store.EveryOptional() {
		if got := store.OptionalOf(store.WithOptional(m, o)); got != o {
			t.Errorf("WithOptional(memory, %s) shows %s", o, got)
		}
	}
	all := store.Optional{Into: true, Sorted: true, Info: true, File: true}
	if store.WithOptional(m, all) != store.Store(m) {
		t.Error("WithOptional(memory, all) is not the memory store itself")
	}
	if got := store.OptionalOf(store.WithOptional(store.WithOptional(m, store.Optional{}), all)); got != (store.Optional{}) {
		t.Errorf("WithOptional claimed %s of a store without any", got)
	}
}

// filesToo is a memory store with every optional operation: it claims
// files too (never opened here).
type filesToo struct{ *store.Memory }

func (f filesToo) Capabilities() store.Capabilities {
	c := f.Memory.Capabilities()
	c.File = true
	return c
}

func (filesToo) OpenFile(context.Context, string, []byte) (*os.File, store.Info, error) {
	return nil, store.Info{}, store.ErrUnsupported
}

func (filesToo) SetFrom(context.Context, string, io.Reader, store.Condition) (string, error) {
	return "", store.ErrUnsupported
}

// Every wrapper of this package keeps exactly the optional operations of
// the store below, and serves each through that store's own.
func TestWrappersForward(t *testing.T) {
	wrappers := map[string]storetest.Wrapper{
		"Sub": func(t testing.TB, inner store.Store) store.Store {
			s, err := store.Sub(inner, "p")
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
		"WithHook": func(_ testing.TB, inner store.Store) store.Store {
			return store.WithHook(inner, func(ctx context.Context, _, _ string, call func(context.Context) error) error {
				return call(ctx)
			})
		},
		"Limit":    func(_ testing.TB, inner store.Store) store.Store { return store.WithHook(inner, store.Limit(2)) },
		"ReadOnly": func(_ testing.TB, inner store.Store) store.Store { return store.ReadOnly(inner) },
	}
	for name, wrap := range wrappers {
		t.Run(name, func(t *testing.T) { storetest.RunForwarding(t, wrap, storetest.ForwardOptions{KeepsBytes: true}) })
	}
}
