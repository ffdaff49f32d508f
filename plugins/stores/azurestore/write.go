package azurestore

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"golang.org/x/sync/errgroup"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/stores/internal/remote"
)

// stagedAttempts bounds how often a staged upload starts again after
// another writer's commit discarded its uncommitted blocks.
const stagedAttempts = 3

// Set writes data (staged in blocks above the block size) under cond and
// returns the new ETag. A failed condition is store.ErrConflict and
// changes nothing.
func (s *Store) Set(ctx context.Context, key string, data []byte, cond store.Condition) (string, error) {
	name, err := s.space.Object("set", key)
	if err != nil {
		return "", err
	}
	if s.dropConditions {
		cond = store.Condition{}
	}
	bc := s.client.NewBlockBlobClient(name)
	access := accessConditions(cond)
	var etag string
	if int64(len(data)) > s.blockSize {
		etag, err = s.staged(ctx, key, bc, data, cond, access)
	} else {
		etag, err = s.upload(ctx, bc, data, cond, access)
	}
	if err != nil && conflict(err, cond) {
		return "", remote.Conflict(s.space.Name, key, cond)
	}
	return etag, s.wrap("set", key, err)
}

func accessConditions(cond store.Condition) *blob.AccessConditions {
	m := &blob.ModifiedAccessConditions{}
	if cond.IfMatch != "" {
		etag := azcore.ETag(cond.IfMatch)
		m.IfMatch = &etag
	}
	if cond.IfNoneMatch {
		m.IfNoneMatch = to.Ptr(azcore.ETagAny)
	}
	return &blob.AccessConditions{ModifiedAccessConditions: m}
}

func (s *Store) upload(ctx context.Context, bc *blockblob.Client, data []byte, cond store.Condition, access *blob.AccessConditions) (string, error) {
	var etag string
	err := s.doConditional(ctx, cond, func(ctx context.Context) error {
		resp, err := bc.Upload(ctx, streaming.NopCloser(bytes.NewReader(data)), &blockblob.UploadOptions{AccessConditions: access})
		if err == nil {
			etag = etagOf(resp.ETag)
		}
		return err
	})
	return etag, err
}

// staged stages data in blocks and commits them under the condition. When
// the commit finds its blocks gone (InvalidBlockList: another writer's
// commit discarded them), the condition decides: no longer holding, it is
// a conflict; still holding (or none), the upload starts again.
func (s *Store) staged(ctx context.Context, key string, bc *blockblob.Client, data []byte, cond store.Condition, access *blob.AccessConditions) (string, error) {
	var err error
	for range stagedAttempts {
		var ids []string
		if ids, err = s.stageBlocks(ctx, bc, data); err != nil {
			return "", err
		}
		var etag string
		err = s.doConditional(ctx, cond, func(ctx context.Context) error {
			resp, err := bc.CommitBlockList(ctx, ids, &blockblob.CommitBlockListOptions{AccessConditions: access})
			if err == nil {
				etag = etagOf(resp.ETag)
			}
			return err
		})
		if _, code := answer(err); code != "InvalidBlockList" {
			return etag, err
		}
		if held, herr := s.holds(ctx, key, cond); herr != nil || !held {
			return "", err // a conflict if the condition failed, else the lookup's trouble
		}
	}
	return "", fmt.Errorf("blocks discarded by concurrent writers %d times: %w", stagedAttempts, err)
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

// holds reports whether cond holds for key now.
func (s *Store) holds(ctx context.Context, key string, cond store.Condition) (bool, error) {
	if cond == (store.Condition{}) {
		return true, nil
	}
	info, err := s.Stat(ctx, key)
	switch {
	case err == nil:
		return !cond.IfNoneMatch && (cond.IfMatch == "" || cond.IfMatch == info.Version), nil
	case notFoundErr(err):
		return cond.IfMatch == "", nil
	}
	return false, err
}

// stageBlocks uploads data as uncommitted blocks, at most s.workers at a
// time, each read from data itself, and returns their IDs in order. The
// IDs carry a random tag, so that concurrent uploads to one blob never
// stage under the same ID.
func (s *Store) stageBlocks(ctx context.Context, bc *blockblob.Client, data []byte) ([]string, error) {
	size := s.blockSize
	if need := (int64(len(data)) + maxBlocks - 1) / maxBlocks; need > size {
		size = need
	}
	tag := make([]byte, 8)
	if _, err := rand.Read(tag); err != nil {
		return nil, err
	}
	ids := make([]string, (int64(len(data))+size-1)/size)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(s.workers)
	for i := range ids {
		ids[i] = base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "%s-%06d", hex.EncodeToString(tag), i))
		start := int64(i) * size
		block := data[start:min(start+size, int64(len(data)))]
		g.Go(func() error {
			return s.do(gctx, func(ctx context.Context) error {
				_, err := bc.StageBlock(ctx, ids[i], streaming.NopCloser(bytes.NewReader(block)), nil)
				if err != nil {
					return fmt.Errorf("stage block %d: %w", i, err)
				}
				return nil
			})
		})
	}
	return ids, g.Wait()
}
