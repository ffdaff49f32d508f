package store

import (
	"context"
	"iter"
	"slices"
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
// it has one, else by listing every key under prefix and sorting.
func ListSorted(ctx context.Context, s Store, prefix, startAfter string) iter.Seq2[string, error] {
	if sl, ok := s.(SortedLister); ok {
		return sl.ListSorted(ctx, prefix, startAfter)
	}
	return func(yield func(string, error) bool) {
		var keys []string
		for k, err := range s.List(ctx, prefix) {
			if err != nil {
				yield("", err)
				return
			}
			if k > startAfter {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			if !yield(k, nil) {
				return
			}
		}
	}
}
