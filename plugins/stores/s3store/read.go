package s3store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/stores/internal/byterange"
	"github.com/zarrgw/zarrgw/plugins/stores/internal/remote"
)

// Get reads the value or the part r selects with one GET (ranges, open
// ranges and suffixes alike); the version is the whole object's ETag.
func (s *Store) Get(ctx context.Context, key string, r store.ByteRange) (store.Value, error) {
	return s.get(ctx, key, r, nil)
}

// GetBuffer implements store.BufferReader: one GET, whose body goes
// straight into buf when its length fits (a plugin's shared memory).
func (s *Store) GetBuffer(ctx context.Context, key string, buf []byte) (store.Value, error) {
	return s.get(ctx, key, store.ByteRange{}, buf)
}

// get is Get reading the body into buf when it fits (buf non-nil).
func (s *Store) get(ctx context.Context, key string, r store.ByteRange, buf []byte) (store.Value, error) {
	obj, err := s.space.Object("get", key)
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
	in := &awss3.GetObjectInput{Bucket: &s.bucket, Key: &obj}
	if req.Header != "" {
		in.Range = aws.String(req.Header)
	}
	var v store.Value
	err = s.do(ctx, func(ctx context.Context) error {
		out, err := s.client.GetObject(ctx, in)
		if err != nil {
			return err
		}
		defer out.Body.Close()
		var data []byte
		if buf != nil {
			data, err = remote.ReadBodyIn(out.Body, remote.Length(out.ContentLength), buf)
		} else {
			data, err = remote.ReadBody(out.Body, remote.Length(out.ContentLength))
		}
		if err != nil {
			return err
		}
		v = store.Value{Data: data, Version: aws.ToString(out.ETag), ModTime: aws.ToTime(out.LastModified)}
		return nil
	})
	if status(err) == 416 {
		// The range starts at or past the end: no bytes, but the value
		// exists (or not) and has a version.
		return remote.EmptyPart(ctx, s, key)
	}
	if err := s.readErr(ctx, "get", key, err); err != nil {
		return store.Value{}, err
	}
	return v, nil
}

// readErr is a read's error: ErrNotFound for a missing key (and only
// then: notFound tells a missing bucket from a missing key), anything else
// wrapped with the store and key.
func (s *Store) readErr(ctx context.Context, op, key string, err error) error {
	if missing, merr := s.notFound(ctx, err); missing {
		return fmt.Errorf("%s: %s %q: %w", s.space.Name, op, key, store.ErrNotFound)
	} else if merr != nil {
		err = merr
	}
	return s.wrap(op, key, err)
}

// GetInto reads the whole value of key into dst when its size is len(dst):
// one GET, whose body goes straight into dst.
func (s *Store) GetInto(ctx context.Context, key string, dst []byte) (bool, error) {
	obj, err := s.space.Object("get", key)
	if err != nil {
		return false, err
	}
	fits := false
	err = s.do(ctx, func(ctx context.Context) error {
		out, err := s.client.GetObject(ctx, &awss3.GetObjectInput{Bucket: &s.bucket, Key: &obj})
		if err != nil {
			return err
		}
		defer out.Body.Close()
		fits, err = remote.ReadInto(out.Body, remote.Length(out.ContentLength), dst)
		return err
	})
	err = s.readErr(ctx, "get", key, err)
	return fits && err == nil, err
}

// Stat returns the size and ETag of a value (HEAD).
func (s *Store) Stat(ctx context.Context, key string) (store.Info, error) {
	obj, err := s.space.Object("stat", key)
	if err != nil {
		return store.Info{}, err
	}
	var info store.Info
	err = s.do(ctx, func(ctx context.Context) error {
		out, err := s.client.HeadObject(ctx, &awss3.HeadObjectInput{Bucket: &s.bucket, Key: &obj})
		if err != nil {
			return err
		}
		info = store.Info{Size: aws.ToInt64(out.ContentLength), Version: aws.ToString(out.ETag), ModTime: aws.ToTime(out.LastModified)}
		return nil
	})
	if err := s.readErr(ctx, "stat", key, err); err != nil {
		return store.Info{}, err
	}
	return info, nil
}
