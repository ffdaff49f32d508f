package store

import (
	"context"
	"fmt"
	"io"
	"iter"
	"os"
	"strings"
)

// Optional names the optional operations of Store a store does by its own
// means (part of its Capabilities). The helpers GetInto, ListSorted,
// ListInfo, OpenFile and SetFrom ask for them (ListInfo takes one listing
// with sizes where a store has it, and a Stat of each key where it has
// not), so a store that wraps another must claim one exactly when the
// store below can do what it promises: a wrapper that drops one turns a
// listing into a Stat per key, and one that claims one its store lacks
// hides that fallback from whoever asks. A wrapper that returns the
// Capabilities of the store below, changed where it must, claims them
// exactly so.
type Optional struct {
	Into   bool // GetInto
	Sorted bool // ListSorted
	Info   bool // ListInfo
	File   bool // OpenFile and SetFrom
}

// String names the operations o names, "into+sorted+info+file", or "none".
func (o Optional) String() string {
	var names []string
	for _, n := range []struct {
		on   bool
		name string
	}{{o.Into, "into"}, {o.Sorted, "sorted"}, {o.Info, "info"}, {o.File, "file"}} {
		if n.on {
			names = append(names, n.name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, "+")
}

// Minus is the optional operations o names and p does not.
func (o Optional) Minus(p Optional) Optional {
	return Optional{Into: o.Into && !p.Into, Sorted: o.Sorted && !p.Sorted, Info: o.Info && !p.Info, File: o.File && !p.File}
}

// EveryOptional is every combination of optional operations, none first.
func EveryOptional() []Optional {
	out := make([]Optional, 0, 16)
	for i := range 16 {
		out = append(out, Optional{Into: i&1 != 0, Sorted: i&2 != 0, Info: i&4 != 0, File: i&8 != 0})
	}
	return out
}

// OptionalOf reports the optional operations s does by its own means.
func OptionalOf(s Store) Optional { return s.Capabilities().Optional }

// Or is every optional operation o or p names.
func (o Optional) Or(p Optional) Optional {
	return Optional{Into: o.Into || p.Into, Sorted: o.Sorted || p.Sorted, Info: o.Info || p.Info, File: o.File || p.File}
}

// And is the optional operations both o and p name.
func (o Optional) And(p Optional) Optional {
	return Optional{Into: o.Into && p.Into, Sorted: o.Sorted && p.Sorted, Info: o.Info && p.Info, File: o.File && p.File}
}

// ForwardOptional returns w claiming only those of its optional
// operations that inner, the store it wraps, claims too.
//
// Deprecated: a wrapper whose Capabilities are those of the store below
// claims exactly those already; it needs no ForwardOptional.
func ForwardOptional(w, inner Store) Store { return WithOptional(w, OptionalOf(inner)) }

// WithOptional returns s claiming only those of its optional operations
// that o names (the others served by the helpers' fallbacks); s itself
// when it claims exactly those already. Tests use it to stand for a store
// without some of them.
func WithOptional(s Store, o Optional) Store {
	if o = o.And(OptionalOf(s)); o == OptionalOf(s) {
		return s
	}
	return withOptional{s, o}
}

// withOptional is a store with fewer optional operations than the store
// it holds.
type withOptional struct {
	Store
	o Optional
}

func (w withOptional) Capabilities() Capabilities {
	c := w.Store.Capabilities()
	c.Optional = w.o
	return c
}

// NoOptional, embedded in a store, gives it the optional operations of
// Store, each reporting ErrUnsupported: a store that does none of them
// by its own means embeds it and leaves Capabilities().Optional unset,
// and one that does some defines those and claims them. A wrapper does
// not embed it: it forwards each one to the store it wraps.
type NoOptional struct{}

// GetInto reports ErrUnsupported.
func (NoOptional) GetInto(_ context.Context, key string, _ []byte) (bool, error) {
	return false, fmt.Errorf("get %q into a buffer: %w", key, ErrUnsupported)
}

// ListSorted yields ErrUnsupported.
func (NoOptional) ListSorted(_ context.Context, prefix, _ string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		yield("", fmt.Errorf("list %q in order: %w", prefix, ErrUnsupported))
	}
}

// ListInfo yields ErrUnsupported.
func (NoOptional) ListInfo(_ context.Context, prefix, _ string) iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		yield(Entry{}, fmt.Errorf("list %q with sizes: %w", prefix, ErrUnsupported))
	}
}

// OpenFile reports ErrUnsupported.
func (NoOptional) OpenFile(_ context.Context, key string, _ []byte) (*os.File, Info, error) {
	return nil, Info{}, fmt.Errorf("open %q as a file: %w", key, ErrUnsupported)
}

// SetFrom reports ErrUnsupported without reading r.
func (NoOptional) SetFrom(_ context.Context, key string, _ io.Reader, _ Condition) (string, error) {
	return "", fmt.Errorf("set %q from a stream: %w", key, ErrUnsupported)
}
