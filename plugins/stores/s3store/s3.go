// Package s3 is the store over an S3 bucket (AWS or any S3-compatible
// service): key "a/b" is object <prefix>a/b of the bucket.
//
// Its guarantees:
//
//   - A missing key is store.ErrNotFound and nothing else is: a missing
//     bucket, a refused request (403, store.ErrAccessDenied) or a failed
//     connection are errors naming the store and the key, so a failed read
//     never becomes fill values.
//   - Versions are ETags. Set with a condition sends If-Match or
//     If-None-Match: * and the server decides atomically; a failed
//     precondition is store.ErrConflict and changes nothing. ETags digest
//     the content, so a value rewritten with the same bytes gets its old
//     version back; a conditional write accepting it is still safe for
//     read-modify-write, since the bytes the update was computed from are
//     the bytes stored.
//   - Values larger than the part size go up as a multipart upload, parts
//     in parallel, each sent from the caller's buffer (no second copy); a
//     failed upload is aborted. Conditions apply to the completion.
//   - Throttling (503 SlowDown), server errors and broken connections are
//     retried with exponential backoff and full jitter; other 4xx answers
//     are not. Every call ends when its context does. A conditional write
//     whose connection broke after the service had applied it is sent
//     again and then meets its own write: it reports ErrConflict, and a
//     read-modify-write reads and applies its update again, which is
//     right for updates that set values (chunks, shards) and not for
//     ones that add to them.
//   - Credentials come from the configuration or from the SDK's default
//     chain (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN,
//     AWS_PROFILE and shared files, ...); they appear in no error or log.
package s3store

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/stores/internal/remote"
	"github.com/zarrgw/zarrgw/plugins/stores/internal/retry"
)

// Name is the store's registered name.
const Name = "s3"

// Part sizes: S3 refuses parts below 5 MiB (but the last) and uploads of
// more than 10,000 parts.
const (
	MinPartSize     = 5 << 20
	DefaultPartSize = 8 << 20
	maxParts        = 10000
	// maxDeleteBatch is the most keys one DeleteObjects call takes.
	maxDeleteBatch = 1000
)

// Store is an S3 bucket, or the part of it below a prefix.
type Store struct {
	store.NoOptional // no files
	client           *awss3.Client
	conns            atomic.Pointer[http.Transport] // once the SDK has built it
	bucket           string
	space            remote.Space // s3://bucket/prefix/
	partSize         int64
	workers          int
	pageSize         int32
	policy           retry.Policy
	// bucketSeen is set once the bucket is known to exist, so that a 404
	// without a body (HEAD) can be told to mean a missing key.
	bucketSeen atomic.Bool
	// dropConditions is a test hook: Set sends no preconditions, to show
	// that the tests catch their absence. False in production.
	dropConditions bool
}

var _ store.Store = (*Store)(nil)

// New opens the store cfg describes. It makes no request: wrong
// credentials or a missing bucket show at first use, as errors naming the
// store.
func New(ctx context.Context, cfg Config) (*Store, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	space, err := remote.NewSpace("s3", cfg.Bucket, cfg.Prefix)
	if err != nil {
		return nil, err
	}
	s := &Store{
		bucket:   cfg.Bucket,
		space:    space,
		partSize: remote.Or(cfg.PartSize, DefaultPartSize),
		workers:  remote.Or(cfg.Concurrency, 8),
		pageSize: int32(remote.Or(cfg.ListPageSize, 1000)), // S3 lists at most 1000 a page
		policy:   retry.Policy{Attempts: cfg.MaxAttempts},
	}
	awsCfg, err := config.LoadDefaultConfig(ctx, cfg.loadOptions(&s.conns)...)
	if err != nil {
		return nil, fmt.Errorf("%s: configuration: %w", s.space.Name, err)
	}
	s.client = awss3.NewFromConfig(awsCfg, func(o *awss3.Options) {
		if cfg.Endpoint != "" {
			o.BaseEndpoint = aws.String(cfg.Endpoint)
		}
		// S3-compatible services rarely resolve bucket host names.
		o.UsePathStyle = o.BaseEndpoint != nil
		if cfg.UsePathStyle != nil {
			o.UsePathStyle = *cfg.UsePathStyle
		}
		if o.Region == "" {
			o.Region = "us-east-1"
		}
	})
	return s, nil
}

// loadOptions are the SDK settings: its own retries off (the store
// retries whole operations, body included), checksums only where the API
// requires them (many S3-compatible services reject the rest), and a
// connection pool sized for parallel reads. The SDK's own HTTP client is
// kept, since it applies settings of the environment (AWS_CA_BUNDLE) to
// the transport; conns receives the transport it builds.
func (c Config) loadOptions(conns *atomic.Pointer[http.Transport]) []func(*config.LoadOptions) error {
	opts := []func(*config.LoadOptions) error{
		config.WithRetryer(func() aws.Retryer { return aws.NopRetryer{} }),
		config.WithRequestChecksumCalculation(aws.RequestChecksumCalculationWhenRequired),
		config.WithResponseChecksumValidation(aws.ResponseChecksumValidationWhenRequired),
		config.WithHTTPClient(awshttp.NewBuildableClient().WithTransportOptions(func(tr *http.Transport) {
			remote.Pool(tr, c.MaxIdleConns)
			conns.Store(tr)
		})),
	}
	if c.Region != "" {
		opts = append(opts, config.WithRegion(c.Region))
	}
	if c.Profile != "" {
		opts = append(opts, config.WithSharedConfigProfile(c.Profile))
	}
	if c.AccessKeyID != "" {
		opts = append(opts, config.WithCredentialsProvider(
			credentials.NewStaticCredentialsProvider(c.AccessKeyID, c.SecretAccessKey, c.SessionToken)))
	}
	return opts
}

// Capabilities reports every capability; versions are S3's ETags, the
// MD5 of the bytes for values written in one part.
func (s *Store) Capabilities() store.Capabilities {
	return store.Capabilities{Read: true, Write: true, Erase: true, List: true,
		Ranges: true, SuffixRanges: true, ConditionalWrite: true, MD5Versions: true,
		Optional: store.Optional{Into: true, Sorted: true, Info: true}}
}

// String names the store as s3://bucket/prefix/.
func (s *Store) String() string { return s.space.Name }

// Close releases idle connections.
func (s *Store) Close() error {
	if tr := s.conns.Load(); tr != nil {
		tr.CloseIdleConnections()
	}
	return nil
}

// do runs op under the store's retry policy.
func (s *Store) do(ctx context.Context, op func(context.Context) error) error {
	return s.policy.Do(ctx, transient, op)
}
