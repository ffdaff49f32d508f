// Package azure is the store over an Azure Blob Storage container (or the
// Azurite emulator): key "a/b" is block blob <prefix>a/b.
//
// Its guarantees:
//
//   - A missing key is store.ErrNotFound and nothing else is: a missing
//     container, a refused request (403, store.ErrAccessDenied) or a
//     failed connection are errors naming the store and the key.
//   - Versions are ETags, new with every write. Set with a condition sends
//     If-Match or If-None-Match: * and the service decides atomically; a
//     failed precondition is store.ErrConflict and changes nothing.
//   - Values larger than the block size are staged as blocks, in parallel,
//     each sent from the caller's buffer, and committed as one block list
//     under the condition. A commit can find its blocks gone when another
//     writer committed first (uncommitted blocks do not survive a commit):
//     that is a conflict for a conditional write whose condition no longer
//     holds, and a reason to upload again otherwise.
//   - Azure has no suffix ranges: a suffix read asks for the size first and
//     reads the range on condition that the blob is still the one sized
//     (If-Match), so Capabilities reports SuffixRanges false while Get
//     serves them correctly.
//   - Throttling, server errors and broken connections are retried with
//     exponential backoff and full jitter; other 4xx answers are not.
//     Every call ends when its context does. As with S3, a conditional
//     write retried after a connection broke may meet its own first
//     attempt and report ErrConflict.
//   - Credentials (connection string, account key or SAS) come from the
//     configuration or the environment (AZURE_STORAGE_CONNECTION_STRING, or
//     AZURE_STORAGE_ACCOUNT with AZURE_STORAGE_KEY or
//     AZURE_STORAGE_SAS_TOKEN); they appear in no error or log.
package azurestore

import (
	"context"
	"fmt"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/stores/internal/remote"
	"github.com/zarrgw/zarrgw/plugins/stores/internal/retry"
)

// Name is the store's registered name.
const Name = "azure"

// DefaultBlockSize is the staging threshold and block size by default.
const DefaultBlockSize = 8 << 20

// maxBlocks is the most blocks one blob may have.
const maxBlocks = 50000

// Store is an Azure Blob container, or the part of it below a prefix.
type Store struct {
	store.NoOptional // it reads into buffers only
	client           *container.Client
	conns            *http.Transport
	space            remote.Space // az://container/prefix/
	blockSize        int64
	workers          int
	pageSize         int32
	policy           retry.Policy
	// dropConditions is a test hook: Set sends no preconditions, to show
	// that the tests catch their absence. False in production.
	dropConditions bool
}

var _ store.Store = (*Store)(nil)

// New opens the store cfg describes, with credentials from cfg or, where
// cfg has none, from the environment. It makes no request: wrong
// credentials or a missing container show at first use.
func New(ctx context.Context, cfg Config) (*Store, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	space, err := remote.NewSpace("az", cfg.Container, cfg.Prefix)
	if err != nil {
		return nil, err
	}
	s := &Store{
		conns:     remote.Transport(cfg.MaxIdleConns),
		space:     space,
		blockSize: remote.Or(cfg.BlockSize, DefaultBlockSize),
		workers:   remote.Or(cfg.Concurrency, 8),
		pageSize:  int32(remote.Or(cfg.ListPageSize, 5000)),
		policy:    retry.Policy{Attempts: cfg.MaxAttempts},
	}
	if s.client, err = cfg.withEnvironment().client(clientOptions(s.conns)); err != nil {
		return nil, fmt.Errorf("%s: %w", s.space.Name, err)
	}
	return s, nil
}

// clientOptions turn the SDK's own retries off (the store retries whole
// operations, body included) and give it the store's connection pool.
func clientOptions(conns *http.Transport) *container.ClientOptions {
	return &container.ClientOptions{ClientOptions: azcore.ClientOptions{
		Retry:     policy.RetryOptions{MaxRetries: -1},
		Transport: &http.Client{Transport: conns},
	}}
}

// Capabilities reports every capability but native suffix ranges, which
// Azure lacks (Get serves them through a size lookup).
func (s *Store) Capabilities() store.Capabilities {
	return store.Capabilities{Read: true, Write: true, Erase: true, List: true,
		Ranges: true, SuffixRanges: false, ConditionalWrite: true,
		Optional: store.Optional{Into: true}}
}

// String names the store as az://container/prefix/.
func (s *Store) String() string { return s.space.Name }

// Close releases idle connections.
func (s *Store) Close() error {
	s.conns.CloseIdleConnections()
	return nil
}

// do runs op under the store's retry policy.
func (s *Store) do(ctx context.Context, op func(context.Context) error) error {
	return s.policy.Do(ctx, transient, op)
}
