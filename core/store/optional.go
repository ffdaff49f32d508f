package store

import "strings"

// Optional names the optional interfaces a store may implement beyond
// Store: ReaderInto, SortedLister, InfoLister and FileOpener. Callers test for them
// (store.ListInfo takes one listing with sizes where a store has it, and a
// Stat of each key where it has not), so a store that wraps another must
// have one exactly when the store below can do what it promises: a wrapper
// that drops one turns a listing into a Stat per key, and one that claims
// one its store lacks hides that fallback from whoever asks.
type Optional struct {
	Into   bool // ReaderInto
	Sorted bool // SortedLister
	Info   bool // InfoLister
	File   bool // FileOpener
}

// String names the interfaces o names, "into+sorted+info+file", or "none".
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

// Minus is the optional interfaces o names and p does not.
func (o Optional) Minus(p Optional) Optional {
	return Optional{Into: o.Into && !p.Into, Sorted: o.Sorted && !p.Sorted, Info: o.Info && !p.Info, File: o.File && !p.File}
}

// EveryOptional is every combination of optional interfaces, none first.
func EveryOptional() []Optional {
	out := make([]Optional, 0, 16)
	for i := range 16 {
		out = append(out, Optional{Into: i&1 != 0, Sorted: i&2 != 0, Info: i&4 != 0, File: i&8 != 0})
	}
	return out
}

// OptionalOf reports the optional interfaces s implements.
func OptionalOf(s Store) Optional {
	_, into := s.(ReaderInto)
	_, sorted := s.(SortedLister)
	_, info := s.(InfoLister)
	_, file := s.(FileOpener)
	return Optional{Into: into, Sorted: sorted, Info: info, File: file}
}

// Or is every optional interface o or p names.
func (o Optional) Or(p Optional) Optional {
	return Optional{Into: o.Into || p.Into, Sorted: o.Sorted || p.Sorted, Info: o.Info || p.Info, File: o.File || p.File}
}

// And is the optional interfaces both o and p name.
func (o Optional) And(p Optional) Optional {
	return Optional{Into: o.Into && p.Into, Sorted: o.Sorted && p.Sorted, Info: o.Info && p.Info, File: o.File && p.File}
}

// ForwardOptional returns the wrapper w showing those of its optional
// interfaces that inner, the store it wraps, has too. A wrapper implements
// every one of them (with the helpers GetInto, ListSorted and ListInfo,
// which fall back where inner lacks one) and its constructor returns
// ForwardOptional(w, inner).
func ForwardOptional(w, inner Store) Store { return WithOptional(w, OptionalOf(inner)) }

// WithOptional returns s showing only those of its optional interfaces
// that o names; s itself when it shows exactly those already. The result
// has s's Store methods and no other methods of s.
func WithOptional(s Store, o Optional) Store {
	o = o.And(OptionalOf(s))
	if o == OptionalOf(s) {
		return s
	}
	if !o.File {
		return withLists(s, o)
	}
	file := s.(FileOpener)
	into, _ := s.(ReaderInto)
	sorted, _ := s.(SortedLister)
	info, _ := s.(InfoLister)
	// One type per combination: Go cannot add methods to a value at run
	// time, and an embedded interface that is nil would claim a method
	// that panics.
	switch o.Minus(Optional{File: true}) {
	case Optional{Into: true, Sorted: true, Info: true}:
		return struct {
			Store
			ReaderInto
			SortedLister
			InfoLister
			FileOpener
		}{s, into, sorted, info, file}
	case Optional{Into: true, Sorted: true}:
		return struct {
			Store
			ReaderInto
			SortedLister
			FileOpener
		}{s, into, sorted, file}
	case Optional{Into: true, Info: true}:
		return struct {
			Store
			ReaderInto
			InfoLister
			FileOpener
		}{s, into, info, file}
	case Optional{Sorted: true, Info: true}:
		return struct {
			Store
			SortedLister
			InfoLister
			FileOpener
		}{s, sorted, info, file}
	case Optional{Into: true}:
		return struct {
			Store
			ReaderInto
			FileOpener
		}{s, into, file}
	case Optional{Sorted: true}:
		return struct {
			Store
			SortedLister
			FileOpener
		}{s, sorted, file}
	case Optional{Info: true}:
		return struct {
			Store
			InfoLister
			FileOpener
		}{s, info, file}
	}
	return struct {
		Store
		FileOpener
	}{s, file}
}

// withLists is WithOptional for the combinations without FileOpener.
func withLists(s Store, o Optional) Store {
	into, _ := s.(ReaderInto)
	sorted, _ := s.(SortedLister)
	info, _ := s.(InfoLister)
	switch o {
	case Optional{Into: true, Sorted: true, Info: true}:
		return struct {
			Store
			ReaderInto
			SortedLister
			InfoLister
		}{s, into, sorted, info}
	case Optional{Into: true, Sorted: true}:
		return struct {
			Store
			ReaderInto
			SortedLister
		}{s, into, sorted}
	case Optional{Into: true, Info: true}:
		return struct {
			Store
			ReaderInto
			InfoLister
		}{s, into, info}
	case Optional{Sorted: true, Info: true}:
		return struct {
			Store
			SortedLister
			InfoLister
		}{s, sorted, info}
	case Optional{Into: true}:
		return struct {
			Store
			ReaderInto
		}{s, into}
	case Optional{Sorted: true}:
		return struct {
			Store
			SortedLister
		}{s, sorted}
	case Optional{Info: true}:
		return struct {
			Store
			InfoLister
		}{s, info}
	}
	return struct{ Store }{s}
}
