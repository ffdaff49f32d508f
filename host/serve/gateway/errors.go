package gateway

import (
	"context"
	"errors"
	"net/http"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/launcher"
	"github.com/zarrgw/zarrgw/pluginapi"
)

// requestError is a failure the client caused or must see as such: the
// status and a short reason for the body.
type requestError struct {
	status int
	msg    string
}

func (e *requestError) Error() string { return e.msg }

func badRequest(msg string) error { return &requestError{http.StatusBadRequest, msg} }

// statusOf maps an error to the response status. Only a key that is truly
// absent is 404: Zarr readers turn 404 into fill values, so a backend that
// failed must answer 502, 503 or 504 instead.
func statusOf(err error) int {
	var re *requestError
	var be *bodyError
	var over *rateError
	switch {
	case errors.As(err, &re):
		return re.status
	case errors.As(err, &over):
		return http.StatusTooManyRequests
	case errors.Is(err, errSlowBody):
		return http.StatusRequestTimeout
	case errors.As(err, &be):
		return http.StatusBadRequest
	case errors.Is(err, store.ErrNotFound), errors.Is(err, hierarchy.ErrNoNode):
		return http.StatusNotFound
	case errors.Is(err, meta.ErrInvalid):
		// metadata asking for what no reader can give (sizes beyond
		// 64 bits, the limits): refused before any chunk is read
		return http.StatusUnprocessableEntity
	case errors.Is(err, store.ErrConflict):
		return http.StatusPreconditionFailed
	case errors.Is(err, store.ErrInvalidKey):
		return http.StatusBadRequest
	case errors.Is(err, store.ErrUnsupported):
		return http.StatusNotImplemented
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusGatewayTimeout
	case errors.Is(err, launcher.ErrUnavailable), errors.Is(err, pluginapi.ErrConnectionLost),
		errors.Is(err, launcher.ErrClosed), errors.Is(err, codec.ErrUnavailable):
		return http.StatusServiceUnavailable
	}
	return http.StatusBadGateway
}

func isNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }
