package s3store

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"golang.org/x/sync/errgroup"
)

// Erase removes a key; S3 answers a delete of a missing key with success.
func (s *Store) Erase(ctx context.Context, key string) error {
	obj, err := s.space.Object("erase", key)
	if err != nil {
		return err
	}
	err = s.do(ctx, func(ctx context.Context) error {
		_, err := s.client.DeleteObject(ctx, &awss3.DeleteObjectInput{Bucket: &s.bucket, Key: &obj})
		return err
	})
	return s.wrap("erase", key, err)
}

// EraseMany removes keys with DeleteObjects, 1000 keys a call, several
// calls at once. Missing keys are not errors.
func (s *Store) EraseMany(ctx context.Context, keys []string) error {
	objs := make([]string, len(keys))
	for i, key := range keys {
		obj, err := s.space.Object("erase", key)
		if err != nil {
			return err
		}
		objs[i] = obj
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(s.workers)
	for start := 0; start < len(objs); start += maxDeleteBatch {
		batch := objs[start:min(start+maxDeleteBatch, len(objs))]
		g.Go(func() error { return s.deleteBatch(gctx, batch) })
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
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(s.workers)
	err = s.pages(ctx, p, "", func(page *awss3.ListObjectsV2Output) error {
		batch := make([]string, 0, len(page.Contents))
		for _, o := range page.Contents {
			batch = append(batch, aws.ToString(o.Key))
		}
		for start := 0; start < len(batch); start += maxDeleteBatch {
			part := batch[start:min(start+maxDeleteBatch, len(batch))]
			g.Go(func() error { return s.deleteBatch(gctx, part) })
		}
		return gctx.Err()
	})
	if werr := g.Wait(); werr != nil {
		return werr
	}
	return s.wrap("erase prefix", prefix, err)
}

// deleteBatch deletes up to 1000 objects in one call and reports every
// object the service could not delete.
func (s *Store) deleteBatch(ctx context.Context, objs []string) error {
	ids := make([]types.ObjectIdentifier, len(objs))
	for i := range objs {
		ids[i] = types.ObjectIdentifier{Key: &objs[i]}
	}
	in := &awss3.DeleteObjectsInput{Bucket: &s.bucket, Delete: &types.Delete{Objects: ids, Quiet: aws.Bool(true)}}
	var failed []types.Error
	err := s.do(ctx, func(ctx context.Context) error {
		out, err := s.client.DeleteObjects(ctx, in)
		if err == nil {
			failed = out.Errors
		}
		return err
	})
	if err != nil {
		return s.wrap("erase", fmt.Sprintf("%d keys from %s", len(objs), objs[0]), err)
	}
	errs := make([]error, 0, len(failed))
	for _, e := range failed {
		if aws.ToString(e.Code) == "NoSuchKey" {
			continue
		}
		errs = append(errs, fmt.Errorf("%s: erase %q: %s: %s", s.space.Name, aws.ToString(e.Key), aws.ToString(e.Code), aws.ToString(e.Message)))
	}
	return errors.Join(errs...)
}
