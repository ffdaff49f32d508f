package azurestore

import (
	"context"
	"errors"
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/stores/internal/byterange"
	"github.com/zarrgw/zarrgw/plugins/stores/internal/remote"
)

// suffixAttempts bounds how often a suffix read starts again because the
// blob changed between its size lookup and its read.
const suffixAttempts = 5

// Get reads the value or the part r selects; the version is the whole
// blob's ETag. Suffix ranges take a size lookup first (Azure has none).
func (s *Store) Get(ctx context.Context, key string, r store.ByteRange) (store.Value, error) {
	name, err := s.space.Object("get", key)
	if err != nil {
		return store.Value{}, err
	}
	req, err := byterange.For(r)
	if err != nil {
		return store.Value{}, fmt.Errorf("%s: get %q: %w", s.space.Name, key, err)
	}
	if req.Empty {
		return remote.EmptyPart(ctx, s, key)
	}
	if r.Kind == store.Suffix {
		return s.getSuffix(ctx, key, name, r.Length)
	}
	v, err := s.download(ctx, name, httpRange(r), nil)
	if status(err) == 416 {
		// The range starts at or past the end: no bytes, but the value
		// exists (or not) and has a version.
		return remote.EmptyPart(ctx, s, key)
	}
	return v, s.readErr("get", key, err)
}

// httpRange is r (not a suffix) as the SDK's offset and count, where a
// count of 0 means "to the end".
func httpRange(r store.ByteRange) blob.HTTPRange {
	switch r.Kind {
	case store.Bounded:
		return blob.HTTPRange{Offset: r.Offset, Count: r.Length}
	case store.FromOffset:
		return blob.HTTPRange{Offset: r.Offset}
	}
	return blob.HTTPRange{}
}

// getSuffix reads the last n bytes: the size from a Stat, then the range
// on condition that the blob still has the ETag the size came with.
func (s *Store) getSuffix(ctx context.Context, key, name string, n int64) (store.Value, error) {
	for range suffixAttempts {
		info, err := s.Stat(ctx, key)
		if err != nil {
			return store.Value{}, err
		}
		start := max(0, info.Size-n)
		if start == info.Size {
			return store.Value{Data: []byte{}, Version: info.Version, ModTime: info.ModTime}, nil
		}
		etag := azcore.ETag(info.Version)
		cond := &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: &etag}}
		v, err := s.download(ctx, name, blob.HTTPRange{Offset: start}, cond)
		st := status(err)
		if st == 412 || st == 416 || (st == 404 && !errors.Is(err, context.Canceled)) {
			continue // changed or gone since the Stat: look again
		}
		return v, s.readErr("get", key, err)
	}
	return store.Value{}, fmt.Errorf("%s: get %q: the value kept changing during %d suffix reads", s.space.Name, key, suffixAttempts)
}

// download reads a range of a blob, retrying the request and the body
// together.
func (s *Store) download(ctx context.Context, name string, rng blob.HTTPRange, cond *blob.AccessConditions) (store.Value, error) {
	bc := s.client.NewBlobClient(name)
	opts := &blob.DownloadStreamOptions{Range: rng, AccessConditions: cond}
	var v store.Value
	err := s.do(ctx, func(ctx context.Context) error {
		resp, err := bc.DownloadStream(ctx, opts)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		data, err := remote.ReadBody(resp.Body, remote.Length(resp.ContentLength))
		if err != nil {
			return err
		}
		v = store.Value{Data: data, Version: etagOf(resp.ETag)}
		if resp.LastModified != nil {
			v.ModTime = *resp.LastModified
		}
		return nil
	})
	return v, err
}

func etagOf(e *azcore.ETag) string {
	if e == nil {
		return ""
	}
	return string(*e)
}

// readErr maps a failed read: a missing blob is ErrNotFound, the rest
// is wrapped.
func (s *Store) readErr(op, key string, err error) error {
	if err != nil && notFound(err) {
		return fmt.Errorf("%s: %s %q: %w", s.space.Name, op, key, store.ErrNotFound)
	}
	return s.wrap(op, key, err)
}

// GetInto reads the whole value of key into dst when its size is len(dst):
// one GET, whose body goes straight into dst.
func (s *Store) GetInto(ctx context.Context, key string, dst []byte) (bool, error) {
	name, err := s.space.Object("get", key)
	if err != nil {
		return false, err
	}
	bc := s.client.NewBlobClient(name)
	fits := false
	err = s.do(ctx, func(ctx context.Context) error {
		resp, err := bc.DownloadStream(ctx, nil)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		fits, err = remote.ReadInto(resp.Body, remote.Length(resp.ContentLength), dst)
		return err
	})
	return fits && err == nil, s.readErr("get", key, err)
}

// Stat returns the size and ETag of a blob.
func (s *Store) Stat(ctx context.Context, key string) (store.Info, error) {
	name, err := s.space.Object("stat", key)
	if err != nil {
		return store.Info{}, err
	}
	bc := s.client.NewBlobClient(name)
	var info store.Info
	err = s.do(ctx, func(ctx context.Context) error {
		p, err := bc.GetProperties(ctx, nil)
		if err != nil {
			return err
		}
		info = store.Info{Version: etagOf(p.ETag)}
		if p.LastModified != nil {
			info.ModTime = *p.LastModified
		}
		if p.ContentLength != nil {
			info.Size = *p.ContentLength
		}
		return nil
	})
	return info, s.readErr("stat", key, err)
}
