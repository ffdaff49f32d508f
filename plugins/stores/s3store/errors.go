package s3store

import (
	"context"
	"errors"
	"fmt"

	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/stores/internal/redact"
	"github.com/zarrgw/zarrgw/plugins/stores/internal/retry"
)

// status returns the HTTP status of a service's answer, 0 if none came.
func status(err error) int {
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

// code returns the S3 error code ("NoSuchKey", "SlowDown"), "" if none.
func code(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

// throttles are the codes S3 and its imitators use for "slow down".
var throttles = map[string]bool{
	"SlowDown": true, "Throttling": true, "ThrottlingException": true,
	"RequestLimitExceeded": true, "TooManyRequests": true, "RequestTimeout": true,
	"InternalError": true, "ServiceUnavailable": true,
}

// transient reports whether a failed request may succeed if sent again.
func transient(err error) bool {
	if st := status(err); st != 0 {
		return retry.Status(st) || throttles[code(err)]
	}
	return retry.Network(err)
}

// wrap names the store, the operation and the key, and turns the answers
// that have a meaning for the engine into its sentinels. Only a missing
// key is ErrNotFound; a missing bucket, a refusal or anything else is not.
func (s *Store) wrap(op, key string, err error) error {
	if err == nil {
		return nil
	}
	what := fmt.Sprintf("%s: %s %q", s.space.Name, op, key)
	switch st := status(err); {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s: %w", what, err)
	case code(err) == "NoSuchBucket":
		return fmt.Errorf("%s: bucket %q does not exist: %w", what, s.bucket, err)
	case st == 401 || st == 403:
		return fmt.Errorf("%s: %w (%d %s): check the credentials and the bucket's permissions: %w",
			what, store.ErrAccessDenied, st, code(err), err)
	}
	return fmt.Errorf("%s: %w", what, redact.Error(err))
}

// notFound reports whether err says the object does not exist. A body-less
// 404 (HEAD) could also mean a missing bucket, so the bucket is checked
// once before such an answer is trusted.
func (s *Store) notFound(ctx context.Context, err error) (bool, error) {
	if status(err) != 404 {
		return false, nil
	}
	switch code(err) {
	case "NoSuchKey":
		s.bucketSeen.Store(true)
		return true, nil
	case "NoSuchBucket":
		return false, nil
	}
	if s.bucketSeen.Load() {
		return true, nil
	}
	herr := s.do(ctx, func(ctx context.Context) error {
		_, err := s.client.HeadBucket(ctx, &awss3.HeadBucketInput{Bucket: &s.bucket})
		return err
	})
	switch {
	case herr == nil:
		s.bucketSeen.Store(true)
		return true, nil
	case status(herr) == 404:
		return false, fmt.Errorf("bucket %q does not exist: %w", s.bucket, herr)
	}
	return false, herr
}

// conflict reports whether a conditional write's failure means the
// condition did not hold: 412, 409 (a concurrent conditional write won),
// or 404 for If-Match on a key that is gone.
func conflict(err error, cond store.Condition) bool {
	switch status(err) {
	case 412:
		return true
	case 409:
		return code(err) == "ConditionalRequestConflict" || code(err) == "OperationAborted"
	case 404:
		return cond.IfMatch != "" && code(err) != "NoSuchBucket" && code(err) != "NoSuchUpload"
	}
	return false
}
