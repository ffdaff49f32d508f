package azure

import (
	"context"
	"iter"
	"slices"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"

	"github.com/zarrgw/zarrgw/core/store"
)

// storeKey returns the store key of a blob, and false for blobs no store
// key names (ending in "/", names a store would refuse), which listings
// leave out.
func (s *Store) storeKey(name *string) (string, bool) {
	if name == nil {
		return "", false
	}
	key, ok := strings.CutPrefix(*name, s.prefix)
	return key, ok && store.ValidateKey(key) == nil
}

// List yields every key below prefix, a page at a time.
func (s *Store) List(ctx context.Context, prefix string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		p, err := s.dir("list", prefix)
		if err != nil {
			yield("", err)
			return
		}
		pager := s.client.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{Prefix: &p, MaxResults: &s.pageSize})
		for pager.More() {
			var page container.ListBlobsFlatResponse
			err := s.do(ctx, func(ctx context.Context) error {
				var err error
				page, err = pager.NextPage(ctx)
				return err
			})
			if err != nil {
				yield("", s.wrap("list", prefix, err))
				return
			}
			for _, b := range page.Segment.BlobItems {
				if key, ok := s.storeKey(b.Name); ok && !yield(key, nil) {
					return
				}
			}
		}
	}
}

// ListDir lists the keys and child prefixes directly under prefix with the
// "/" delimiter, following every page.
func (s *Store) ListDir(ctx context.Context, prefix string) (store.Dir, error) {
	p, err := s.dir("list", prefix)
	if err != nil {
		return store.Dir{}, err
	}
	var d store.Dir
	pager := s.client.NewListBlobsHierarchyPager("/", &container.ListBlobsHierarchyOptions{Prefix: &p, MaxResults: &s.pageSize})
	for pager.More() {
		var page container.ListBlobsHierarchyResponse
		err := s.do(ctx, func(ctx context.Context) error {
			var err error
			page, err = pager.NextPage(ctx)
			return err
		})
		if err != nil {
			return store.Dir{}, s.wrap("list", prefix, err)
		}
		for _, b := range page.Segment.BlobItems {
			if key, ok := s.storeKey(b.Name); ok {
				d.Keys = append(d.Keys, key)
			}
		}
		for _, bp := range page.Segment.BlobPrefixes {
			if bp.Name == nil {
				continue
			}
			if child, ok := strings.CutPrefix(*bp.Name, s.prefix); ok && store.ValidatePrefix(child) == nil {
				d.Prefixes = append(d.Prefixes, child)
			}
		}
	}
	slices.Sort(d.Keys)
	slices.Sort(d.Prefixes)
	return d, nil
}
