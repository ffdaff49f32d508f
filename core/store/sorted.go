package store

import (
	"context"
	"errors"
	"iter"
	"slices"
	"strings"
)

// SortedLister is implemented by stores that can list keys in
// lexicographic (byte) order, starting after a given key, without walking
// the keys before it: what a paged listing needs to fetch each page at the
// cost of that page.
type SortedLister interface {
	// ListSorted yields the keys starting with prefix that sort after
	// startAfter ("" for all), in byte order.
	ListSorted(ctx context.Context, prefix, startAfter string) iter.Seq2[string, error]
}

// ListSorted lists as SortedLister does, through s's own ListSorted when
// it has one, else by walking its directories (ListDir) in order: the
// directories that lie wholly before startAfter are never listed, so a
// page of a paged listing costs the directories on its way, not the
// whole tree before it.
func ListSorted(ctx context.Context, s Store, prefix, startAfter string) iter.Seq2[string, error] {
	if sl, ok := s.(SortedLister); ok {
		return sl.ListSorted(ctx, prefix, startAfter)
	}
	return WalkSorted(ctx, s, prefix, startAfter)
}

// WalkSorted lists as ListSorted does by walking s's directories, whether
// or not s is a SortedLister: ListSorted's fallback, and the sorted
// listing of a transformer whose keys do not come in its store's order
// (a SortedLister that walks its own ListDir).
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

// InfoLister is implemented by stores that list keys with their sizes,
// versions and times in one go (S3's listing does), in byte order after
// startAfter as ListSorted does.
type InfoLister interface {
	ListInfo(ctx context.Context, prefix, startAfter string) iter.Seq2[Entry, error]
}

// ListInfo lists as InfoLister does, through s's own ListInfo when it has
// one, else with ListSorted and a Stat of each key (a key erased in
// between is left out).
func ListInfo(ctx context.Context, s Store, prefix, startAfter string) iter.Seq2[Entry, error] {
	if il, ok := s.(InfoLister); ok {
		return il.ListInfo(ctx, prefix, startAfter)
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
