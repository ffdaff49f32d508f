package azurestore

import (
	"context"
	"errors"
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/stores/internal/redact"
	"github.com/zarrgw/zarrgw/plugins/stores/internal/retry"
)

// answer returns the HTTP status and Azure error code of a service's
// answer; status 0 if none came.
func answer(err error) (int, string) {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.StatusCode, re.ErrorCode
	}
	return 0, ""
}

func status(err error) int {
	st, _ := answer(err)
	return st
}

// transient reports whether a failed request may succeed if sent again:
// throttling (503 ServerBusy), timeouts, server errors, broken connections.
func transient(err error) bool {
	if st := status(err); st != 0 {
		return retry.Status(st)
	}
	return retry.Network(err)
}

// serviceError is an answer of the service in one line: the SDK's own
// message spans a dozen lines and a response body.
type serviceError struct {
	status int
	code   string
	err    error
}

func (e *serviceError) Error() string {
	if e.code == "" {
		return fmt.Sprintf("status %d", e.status)
	}
	return fmt.Sprintf("status %d %s", e.status, e.code)
}

func (e *serviceError) Unwrap() error { return e.err }

// wrap names the store, the operation and the key, and turns the answers
// that have a meaning for the engine into its sentinels. Only a missing
// blob is ErrNotFound; a missing container, a refusal or anything else is
// not.
func (s *Store) wrap(op, key string, err error) error {
	if err == nil {
		return nil
	}
	what := fmt.Sprintf("%s: %s %q", s.space.Name, op, key)
	st, code := answer(err)
	if st == 0 {
		return fmt.Errorf("%s: %w", what, redact.Error(err))
	}
	compact := &serviceError{st, code, err}
	switch {
	case code == "ContainerNotFound":
		return fmt.Errorf("%s: the container does not exist: %w", what, compact)
	case st == 401 || st == 403:
		return fmt.Errorf("%s: %w (%w): check the credentials and the container's permissions", what, store.ErrAccessDenied, compact)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s: %w", what, err)
	}
	return fmt.Errorf("%s: %w", what, compact)
}

// notFound reports whether err says the blob does not exist, not its
// container: Azure names the error in the x-ms-error-code header, so a
// body-less 404 (HEAD) tells them apart too (TestMissingContainer).
func notFound(err error) bool {
	st, code := answer(err)
	return st == 404 && code != "ContainerNotFound"
}

// conflict reports whether a conditional write's failure means the
// condition did not hold: 412, 409 BlobAlreadyExists for If-None-Match,
// or a 404 for If-Match on a blob that is gone.
func conflict(err error, cond store.Condition) bool {
	st, code := answer(err)
	switch st {
	case 412:
		return true
	case 409:
		return cond.IfNoneMatch && code == "BlobAlreadyExists"
	case 404:
		return cond.IfMatch != "" && code != "ContainerNotFound"
	}
	return false
}
