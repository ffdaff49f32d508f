package azurestore

import (
	"context"
	"errors"
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"golang.org/x/sync/errgroup"

	"github.com/zarrgw/zarrgw/core/store"
)

// notFoundErr reports whether a store error wraps ErrNotFound.
func notFoundErr(err error) bool { return errors.Is(err, store.ErrNotFound) }

// Erase removes a blob and its snapshots; a missing blob is not an error.
func (s *Store) Erase(ctx context.Context, key string) error {
	name, err := s.space.Object("erase", key)
	if err != nil {
		return err
	}
	return s.wrap("erase", key, s.deleteBlob(ctx, name))
}

func (s *Store) deleteBlob(ctx context.Context, name string) error {
	bc := s.client.NewBlobClient(name)
	opts := &blob.DeleteOptions{DeleteSnapshots: to.Ptr(blob.DeleteSnapshotsOptionTypeInclude)}
	err := s.do(ctx, func(ctx context.Context) error {
		_, err := bc.Delete(ctx, opts)
		return err
	})
	if notFound(err) {
		return nil
	}
	return err
}

// EraseMany removes keys, several deletes at once. Missing keys are not
// errors.
func (s *Store) EraseMany(ctx context.Context, keys []string) error {
	names := make([]string, len(keys))
	for i, key := range keys {
		name, err := s.space.Object("erase", key)
		if err != nil {
			return err
		}
		names[i] = name
	}
	return s.deleteAll(ctx, names)
}

func (s *Store) deleteAll(ctx context.Context, names []string) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(s.workers)
	for _, name := range names {
		g.Go(func() error {
			return s.wrap("erase", name[len(s.space.Prefix):], s.deleteBlob(gctx, name))
		})
	}
	return g.Wait()
}

// ErasePrefix removes every key below prefix, deleting each page of the
// listing as it arrives.
func (s *Store) ErasePrefix(ctx context.Context, prefix string) error {
	p, err := s.space.Dir("erase prefix", prefix)
	if err != nil {
		return err
	}
	for pager := s.flatPager(p); pager.More(); {
		page, err := nextPage(ctx, s, pager)
		if err != nil {
			return s.wrap("erase prefix", prefix, err)
		}
		names := make([]string, 0, len(page.Segment.BlobItems))
		for _, b := range page.Segment.BlobItems {
			if b.Name != nil {
				names = append(names, *b.Name)
			}
		}
		if err := s.deleteAll(ctx, names); err != nil {
			return fmt.Errorf("erase prefix %q: %w", prefix, err)
		}
	}
	return nil
}
