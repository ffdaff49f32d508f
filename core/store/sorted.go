package store

import (
	"context"
	"errors"
	"iter"
	"slices"
	"strings"
)

// ListSorted lists as Store.ListSorted does, through s's own ListSorted
// when it claims one (Optional.Sorted), else by walking its directories (ListDir) in order: the
// directories that lie wholly before startAfter are never listed, so a
// page of a paged listing costs the directories on its way, not the
// whole tree before it.
func ListSorted(ctx context.Context, s Store, prefix, startAfter string) iter.Seq2[string, error] {
	if OptionalOf(s).Sorted {
		return s.ListSorted(ctx, prefix, startAfter)
	}
	return WalkSorted(ctx, s, prefix, startAfter)
}

// WalkSorted lists as ListSorted does by walking s's directories, whether
// or not s lists sorted by its own means: ListSorted's fallback, and the
// sorted listing of a transformer whose keys do not come in its store's
// order (a ListSorted that walks its own ListDir).
func WalkSorted(ctx context.Context, s Store, prefix, startAfter string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		if err := walkSorted(ctx, s, prefix, startAfter, yield); err != nil && err != errStopped {
			yield("", err)
		}
	}
}

// SkipPast, appended to a prefix, makes a startAfter that lists on past
// every key starting with that prefix, without listing them (a listing
// that rolls keys up into common prefixes asks for this): no rune sorts
// after U+10FFFF, a noncharacter that keys do not hold.
const SkipPast = "\U0010FFFF"

// errStopped ends a walk the caller broke out of.
var errStopped = errors.New("listing stopped")

// walkSorted yields the keys below dir after startAfter, in byte order.
func walkSorted(ctx context.Context, s Store, dir, startAfter string, yield func(string, error) bool) error {
	d, err := s.ListDir(ctx, dir)
	if err != nil {
		return err
	}
	// keys and child directories in one order: every key below a child
	// directory starts with its name, so names compare as their keys do
	names := make([]string, 0, len(d.Keys)+len(d.Prefixes))
	names = append(append(names, d.Keys...), d.Prefixes...)
	slices.Sort(names)
	for _, name := range names {
		if !strings.HasSuffix(name, "/") {
			if name > startAfter && !yield(name, nil) {
				return errStopped
			}
			continue
		}
		if startAfter > name && !strings.HasPrefix(startAfter, name) || startAfter == name+SkipPast {
			continue // every key below it comes before startAfter
		}
		if err := walkSorted(ctx, s, name, startAfter, yield); err != nil {
			return err
		}
	}
	return nil
}

// Entry is a key and what Stat says of its value.
type Entry struct {
	Key  string
	Info Info
}

// ListInfo lists as Store.ListInfo does, through s's own ListInfo when it
// claims one (Optional.Info), else with ListSorted and a Stat of each key (a key erased in
// between is left out).
func ListInfo(ctx context.Context, s Store, prefix, startAfter string) iter.Seq2[Entry, error] {
	if OptionalOf(s).Info {
		return s.ListInfo(ctx, prefix, startAfter)
	}
	return func(yield func(Entry, error) bool) {
		for k, err := range ListSorted(ctx, s, prefix, startAfter) {
			if err != nil {
				yield(Entry{}, err)
				return
			}
			info, err := s.Stat(ctx, k)
			if errors.Is(err, ErrNotFound) {
				continue
			}
			if !yield(Entry{Key: k, Info: info}, err) || err != nil {
				return
			}
		}
	}
}
