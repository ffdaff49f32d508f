package azurestore

import (
	"context"
	"iter"
	"slices"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"

	"github.com/zarrgw/zarrgw/core/store"
)

// nextPage fetches a listing's next page under the retry policy; a pager
// whose fetch failed fetches the same page again.
func nextPage[T any](ctx context.Context, s *Store, pager *runtime.Pager[T]) (T, error) {
	var page T
	err := s.do(ctx, func(ctx context.Context) error {
		var err error
		page, err = pager.NextPage(ctx)
		return err
	})
	return page, err
}

// flatPager lists every blob below p, a page at a time.
func (s *Store) flatPager(p string) *runtime.Pager[container.ListBlobsFlatResponse] {
	return s.client.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{Prefix: &p, MaxResults: &s.pageSize})
}

// List yields every key below prefix, a page at a time.
func (s *Store) List(ctx context.Context, prefix string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		p, err := s.space.Dir("list", prefix)
		if err != nil {
			yield("", err)
			return
		}
		for pager := s.flatPager(p); pager.More(); {
			page, err := nextPage(ctx, s, pager)
			if err != nil {
				yield("", s.wrap("list", prefix, err))
				return
			}
			for _, b := range page.Segment.BlobItems {
				if key, ok := s.space.Key(deref(b.Name)); ok && !yield(key, nil) {
					return
				}
			}
		}
	}
}

// ListDir lists the keys and child prefixes directly under prefix with the
// "/" delimiter, following every page.
func (s *Store) ListDir(ctx context.Context, prefix string) (store.Dir, error) {
	p, err := s.space.Dir("list", prefix)
	if err != nil {
		return store.Dir{}, err
	}
	var d store.Dir
	pager := s.client.NewListBlobsHierarchyPager("/", &container.ListBlobsHierarchyOptions{Prefix: &p, MaxResults: &s.pageSize})
	for pager.More() {
		page, err := nextPage(ctx, s, pager)
		if err != nil {
			return store.Dir{}, s.wrap("list", prefix, err)
		}
		for _, b := range page.Segment.BlobItems {
			if key, ok := s.space.Key(deref(b.Name)); ok {
				d.Keys = append(d.Keys, key)
			}
		}
		for _, bp := range page.Segment.BlobPrefixes {
			if child, ok := s.space.Child(deref(bp.Name)); ok {
				d.Prefixes = append(d.Prefixes, child)
			}
		}
	}
	slices.Sort(d.Keys)
	slices.Sort(d.Prefixes)
	return d, nil
}

// deref is *p, or "" (a name no key has) for nil.
func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
