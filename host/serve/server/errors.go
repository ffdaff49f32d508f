package server

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

// RequestError is a failure the client caused or must see as such: the
// status and a short reason for the body.
type RequestError struct {
	Status int
	Msg    string
}

func (e *RequestError) Error() string { return e.Msg }

// BadRequest is a 400 with msg as its reason.
func BadRequest(msg string) error { return &RequestError{http.StatusBadRequest, msg} }

// StatusOf maps an error to the response status. Only a key that is truly
// absent is 404: Zarr readers turn 404 into fill values, so a backend that
// failed must answer 502, 503 or 504 instead.
func StatusOf(err error) int {
	var re *RequestError
	var be *BodyError
	var over *RateError
	switch {
	case errors.As(err, &re):
		return re.Status
	case errors.As(err, &over):
		return http.StatusTooManyRequests
	case errors.Is(err, ErrSlowBody):
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

// IsNotFound reports whether err is a missing key (store.ErrNotFound).
func IsNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }
