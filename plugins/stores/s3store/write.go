package s3store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"golang.org/x/sync/errgroup"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/stores/internal/remote"
)

// abortTimeout bounds the abort of a failed multipart upload, which runs
// even when the caller's context has ended (else the parts stay billed).
const abortTimeout = 30 * time.Second

// Set writes data (in parts above the part size) under cond and returns
// the new ETag. A failed condition is store.ErrConflict and changes
// nothing.
func (s *Store) Set(ctx context.Context, key string, data []byte, cond store.Condition) (string, error) {
	obj, err := s.space.Object("set", key)
	if err != nil {
		return "", err
	}
	if s.dropConditions {
		cond = store.Condition{}
	}
	var etag string
	if int64(len(data)) > s.partSize {
		etag, err = s.multipart(ctx, obj, data, cond)
	} else {
		etag, err = s.put(ctx, obj, data, cond)
	}
	if err != nil && conflict(err, cond) {
		return "", remote.Conflict(s.space.Name, key, cond)
	}
	return etag, s.wrap("set", key, err)
}

// preconditions returns the If-Match and If-None-Match headers of cond.
func preconditions(cond store.Condition) (ifMatch, ifNoneMatch *string) {
	if cond.IfMatch != "" {
		ifMatch = aws.String(cond.IfMatch)
	}
	if cond.IfNoneMatch {
		ifNoneMatch = aws.String("*")
	}
	return ifMatch, ifNoneMatch
}

func (s *Store) put(ctx context.Context, obj string, data []byte, cond store.Condition) (string, error) {
	in := &awss3.PutObjectInput{Bucket: &s.bucket, Key: &obj, ContentLength: aws.Int64(int64(len(data)))}
	in.IfMatch, in.IfNoneMatch = preconditions(cond)
	var etag string
	err := s.doConditional(ctx, cond, func(ctx context.Context) error {
		in.Body = bytes.NewReader(data) // afresh for each attempt
		out, err := s.client.PutObject(ctx, in)
		if err != nil {
			return err
		}
		etag = aws.ToString(out.ETag)
		return nil
	})
	return etag, err
}

// doConditional is do for a write under cond (see retry.DoConditional:
// a conflict after an attempt that may have been applied is an unknown
// outcome, never a conflict).
func (s *Store) doConditional(ctx context.Context, cond store.Condition, op func(context.Context) error) error {
	if cond.IfMatch == "" && !cond.IfNoneMatch {
		return s.do(ctx, op)
	}
	isConflict := func(err error) bool { return conflict(err, cond) }
	return s.policy.DoConditional(ctx, transient, isConflict, status, op)
}

// multipart uploads data in parts, at most s.workers at a time, each read
// from data itself, and completes the upload under cond. Any failure
// aborts the upload.
func (s *Store) multipart(ctx context.Context, obj string, data []byte, cond store.Condition) (string, error) {
	var id string
	err := s.do(ctx, func(ctx context.Context) error {
		out, err := s.client.CreateMultipartUpload(ctx, &awss3.CreateMultipartUploadInput{Bucket: &s.bucket, Key: &obj})
		if err == nil {
			id = aws.ToString(out.UploadId)
		}
		return err
	})
	if err != nil {
		return "", fmt.Errorf("start multipart upload: %w", err)
	}
	parts, err := s.uploadParts(ctx, obj, id, data)
	var etag string
	if err == nil {
		etag, err = s.complete(ctx, obj, id, parts, cond)
	}
	if err != nil {
		return "", errors.Join(err, s.abort(ctx, obj, id))
	}
	return etag, nil
}

// partSizeFor grows the part size for values that would need more than
// S3's 10,000 parts.
func (s *Store) partSizeFor(n int64) int64 {
	size := s.partSize
	if need := (n + maxParts - 1) / maxParts; need > size {
		size = need
	}
	return size
}

func (s *Store) uploadParts(ctx context.Context, obj, id string, data []byte) ([]types.CompletedPart, error) {
	size := s.partSizeFor(int64(len(data)))
	parts := make([]types.CompletedPart, (int64(len(data))+size-1)/size)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(s.workers)
	for i := range parts {
		start := int64(i) * size
		part := data[start:min(start+size, int64(len(data)))]
		n := int32(i + 1)
		g.Go(func() error {
			in := &awss3.UploadPartInput{Bucket: &s.bucket, Key: &obj, UploadId: &id,
				PartNumber: &n, ContentLength: aws.Int64(int64(len(part)))}
			return s.do(gctx, func(ctx context.Context) error {
				in.Body = bytes.NewReader(part)
				out, err := s.client.UploadPart(ctx, in)
				if err != nil {
					return fmt.Errorf("upload part %d: %w", n, err)
				}
				parts[n-1] = types.CompletedPart{ETag: out.ETag, PartNumber: &n}
				return nil
			})
		})
	}
	return parts, g.Wait()
}

func (s *Store) complete(ctx context.Context, obj, id string, parts []types.CompletedPart, cond store.Condition) (string, error) {
	in := &awss3.CompleteMultipartUploadInput{Bucket: &s.bucket, Key: &obj, UploadId: &id,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: parts}}
	in.IfMatch, in.IfNoneMatch = preconditions(cond)
	var etag string
	err := s.doConditional(ctx, cond, func(ctx context.Context) error {
		out, err := s.client.CompleteMultipartUpload(ctx, in)
		if err == nil {
			etag = aws.ToString(out.ETag)
		}
		return err
	})
	return etag, err
}

// abort discards a failed upload's parts, on a context of its own: the
// caller's may be what ended the upload.
func (s *Store) abort(ctx context.Context, obj, id string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), abortTimeout)
	defer cancel()
	_, err := s.client.AbortMultipartUpload(ctx, &awss3.AbortMultipartUploadInput{Bucket: &s.bucket, Key: &obj, UploadId: &id})
	if err != nil {
		return fmt.Errorf("abort multipart upload: %w", err)
	}
	return nil
}
