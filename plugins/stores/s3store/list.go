package s3store

import (
	"context"
	"iter"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/zarrgw/zarrgw/core/store"
)

// pages calls fn with each page of the listing of objects below p (with
// the delimiter, when not "", grouping deeper keys into common prefixes).
func (s *Store) pages(ctx context.Context, p, delimiter string, fn func(*awss3.ListObjectsV2Output) error) error {
	return s.pagesAfter(ctx, p, delimiter, "", fn)
}

// pagesAfter is pages starting after the object name after ("" for the
// first), in S3's byte order.
func (s *Store) pagesAfter(ctx context.Context, p, delimiter, after string, fn func(*awss3.ListObjectsV2Output) error) error {
	in := &awss3.ListObjectsV2Input{Bucket: &s.bucket, Prefix: aws.String(p), MaxKeys: aws.Int32(s.pageSize)}
	if delimiter != "" {
		in.Delimiter = aws.String(delimiter)
	}
	if after != "" {
		in.StartAfter = aws.String(after)
	}
	for {
		var page *awss3.ListObjectsV2Output
		err := s.do(ctx, func(ctx context.Context) error {
			out, err := s.client.ListObjectsV2(ctx, in)
			page = out
			return err
		})
		if err != nil {
			return err
		}
		s.bucketSeen.Store(true)
		if err := fn(page); err != nil {
			return err
		}
		if !aws.ToBool(page.IsTruncated) || aws.ToString(page.NextContinuationToken) == "" {
			return nil
		}
		in.ContinuationToken = page.NextContinuationToken
	}
}

// List yields every key below prefix, a page at a time.
func (s *Store) List(ctx context.Context, prefix string) iter.Seq2[string, error] {
	return s.ListSorted(ctx, prefix, "")
}

// ListSorted yields the keys below prefix after startAfter, in byte order
// (S3's own), starting where S3 starts: after startAfter, not at the
// first key.
func (s *Store) ListSorted(ctx context.Context, prefix, startAfter string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		for e, err := range s.ListInfo(ctx, prefix, startAfter) {
			if !yield(e.Key, err) || err != nil {
				return
			}
		}
	}
}

// errStop ends a listing the caller broke out of.
var errStop = stopError{}

type stopError struct{}

func (stopError) Error() string { return "listing stopped" }

// ListDir lists the keys and child prefixes directly under prefix with the
// "/" delimiter, following every page.
func (s *Store) ListDir(ctx context.Context, prefix string) (store.Dir, error) {
	p, err := s.space.Dir("list", prefix)
	if err != nil {
		return store.Dir{}, err
	}
	var d store.Dir
	err = s.pages(ctx, p, "/", func(page *awss3.ListObjectsV2Output) error {
		for _, o := range page.Contents {
			if key, ok := s.space.Key(aws.ToString(o.Key)); ok {
				d.Keys = append(d.Keys, key)
			}
		}
		for _, cp := range page.CommonPrefixes {
			if child, ok := s.space.Child(aws.ToString(cp.Prefix)); ok {
				d.Prefixes = append(d.Prefixes, child)
			}
		}
		return nil
	})
	if err != nil {
		return store.Dir{}, s.wrap("list", prefix, err)
	}
	slices.Sort(d.Keys)
	slices.Sort(d.Prefixes)
	return d, nil
}

// ListInfo yields the keys below prefix after startAfter with their sizes,
// ETags and times, from the listing itself (no HEAD per key).
func (s *Store) ListInfo(ctx context.Context, prefix, startAfter string) iter.Seq2[store.Entry, error] {
	return func(yield func(store.Entry, error) bool) {
		p, err := s.space.Dir("list", prefix)
		if err != nil {
			yield(store.Entry{}, err)
			return
		}
		after := ""
		if startAfter != "" {
			after = strings.TrimSuffix(p, prefix) + startAfter
		}
		stopped := false
		err = s.pagesAfter(ctx, p, "", after, func(page *awss3.ListObjectsV2Output) error {
			for _, o := range page.Contents {
				key, ok := s.space.Key(aws.ToString(o.Key))
				info := store.Info{Size: aws.ToInt64(o.Size), Version: aws.ToString(o.ETag), ModTime: aws.ToTime(o.LastModified)}
				if ok && !yield(store.Entry{Key: key, Info: info}, nil) {
					stopped = true
					return errStop
				}
			}
			return nil
		})
		if err != nil && !stopped {
			yield(store.Entry{}, s.wrap("list", prefix, err))
		}
	}
}
