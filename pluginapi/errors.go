package pluginapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/store"
	pb "github.com/zarrgw/zarrgw/pluginapi/zarrgwv1"
)

// ErrInvalidConfig is wrapped by errors about a configuration that fails
// validation; errors.As with *ConfigError gives the offending fields.
var ErrInvalidConfig = errors.New("invalid configuration")

// ErrConnectionLost is wrapped by errors of calls that failed because the
// connection to the plugin broke, usually because its process exited. The
// next call restarts the plugin.
var ErrConnectionLost = errors.New("connection to plugin lost")

// FieldError is one problem with a configuration (extension.FieldError).
type FieldError = extension.FieldError

// ValidateConfig checks a configuration against a manifest's schema
// (extension.ValidateConfig, the one validator configuration files use too).
func ValidateConfig(schemaDoc, config json.RawMessage) ([]FieldError, error) {
	return extension.ValidateConfig(schemaDoc, config)
}

// ConfigError lists what is wrong with a configuration.
type ConfigError struct {
	Fields []FieldError
}

func (e *ConfigError) Error() string {
	parts := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		parts[i] = f.String()
	}
	return fmt.Sprintf("%v: %s", ErrInvalidConfig, strings.Join(parts, "; "))
}

func (e *ConfigError) Is(target error) bool { return target == ErrInvalidConfig }

// sentinels are the errors whose identity crosses the process boundary,
// with the status code used when an error wraps the first of them.
var sentinels = []struct {
	err  error
	kind pb.ErrorKind
	code codes.Code
}{
	{store.ErrNotFound, pb.ErrorKind_ERROR_KIND_NOT_FOUND, codes.NotFound},
	{store.ErrConflict, pb.ErrorKind_ERROR_KIND_CONFLICT, codes.FailedPrecondition},
	{store.ErrUnsupported, pb.ErrorKind_ERROR_KIND_UNSUPPORTED, codes.Unimplemented},
	{store.ErrInvalidKey, pb.ErrorKind_ERROR_KIND_INVALID_KEY, codes.InvalidArgument},
	{store.ErrAccessDenied, pb.ErrorKind_ERROR_KIND_ACCESS_DENIED, codes.PermissionDenied},
	{codec.ErrCorrupt, pb.ErrorKind_ERROR_KIND_CORRUPT, codes.DataLoss},
	{codec.ErrUnavailable, pb.ErrorKind_ERROR_KIND_CODEC_UNAVAILABLE, codes.NotFound},
	{ErrInvalidConfig, pb.ErrorKind_ERROR_KIND_INVALID_CONFIG, codes.InvalidArgument},
}

// errorToPB describes err for the other side: a status code, its message and
// the sentinels (and configuration fields) it wraps.
func errorToPB(err error) *pb.Error {
	// Protobuf strings must be UTF-8; a message quoting a bad key need not be.
	msg := strings.ToValidUTF8(err.Error(), "\uFFFD")
	e := &pb.Error{Code: uint32(codes.Unknown), Message: msg, Detail: &pb.ErrorDetail{}}
	for _, s := range sentinels {
		if errors.Is(err, s.err) {
			e.Detail.Kinds = append(e.Detail.Kinds, s.kind)
			if e.Code == uint32(codes.Unknown) {
				e.Code = uint32(s.code)
			}
		}
	}
	var ce *ConfigError
	if errors.As(err, &ce) {
		for _, f := range ce.Fields {
			e.Detail.Fields = append(e.Detail.Fields, &pb.FieldError{
				Path: strings.ToValidUTF8(f.Path, "\uFFFD"), Message: strings.ToValidUTF8(f.Message, "\uFFFD")})
		}
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		e.Code = uint32(codes.DeadlineExceeded)
	case errors.Is(err, context.Canceled):
		e.Code = uint32(codes.Canceled)
	}
	return e
}

// toStatus turns an extension's error into the gRPC status a handler returns.
func toStatus(err error) error {
	if err == nil {
		return nil
	}
	e := errorToPB(err)
	st := status.New(codes.Code(e.Code), e.Message)
	if withDetail, derr := st.WithDetails(e.Detail); derr == nil {
		st = withDetail
	}
	return st.Err()
}

// remoteError is an error that happened in another process: its message,
// and the sentinels it wrapped there so errors.Is still matches here.
type remoteError struct {
	msg    string
	kinds  []error
	config *ConfigError
}

func (e *remoteError) Error() string { return e.msg }

func (e *remoteError) Is(target error) bool {
	for _, k := range e.kinds {
		if k == target {
			return true
		}
	}
	return false
}

// Unwrap exposes the configuration fields to errors.As.
func (e *remoteError) Unwrap() error {
	if e.config == nil {
		return nil
	}
	return e.config
}

func errorFromPB(e *pb.Error) error {
	r := &remoteError{msg: e.GetMessage()}
	for _, k := range e.GetDetail().GetKinds() {
		for _, s := range sentinels {
			if s.kind == k {
				r.kinds = append(r.kinds, s.err)
			}
		}
	}
	if fields := e.GetDetail().GetFields(); len(fields) > 0 {
		r.config = &ConfigError{}
		for _, f := range fields {
			r.config.Fields = append(r.config.Fields, FieldError{Path: f.Path, Message: f.Message})
		}
	}
	return r
}

// deadlineSlack is how early a plugin may end a call at the caller's
// deadline. gRPC hands the deadline to the plugin, whose own timer can end
// the call (RST_STREAM CANCEL) before the caller's context timer has run on
// a busy host.
const deadlineSlack = 50 * time.Millisecond

// callerGaveUp returns the caller's context error when its context is done
// or its deadline has (all but) passed, else nil.
func callerGaveUp(ctx context.Context) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if d, ok := ctx.Deadline(); ok && time.Until(d) <= deadlineSlack {
		return context.DeadlineExceeded
	}
	return nil
}

// fromStatus turns the error of a call to plugin into an error naming the
// plugin that matches the sentinels the plugin's error wrapped, or the
// caller's context error. (A lost connection is told apart before, by
// Conn.lostBy.)
func fromStatus(ctx context.Context, plugin string, err error) error {
	if err == nil {
		return nil
	}
	st, ok := status.FromError(err)
	if !ok {
		return fmt.Errorf("plugin %s: %w", plugin, err)
	}
	switch st.Code() {
	case codes.Canceled, codes.DeadlineExceeded:
		if err := callerGaveUp(ctx); err != nil {
			return fmt.Errorf("plugin %s: %w", plugin, err)
		}
	}
	e := &pb.Error{Code: uint32(st.Code()), Message: st.Message()}
	for _, d := range st.Details() {
		if detail, ok := d.(*pb.ErrorDetail); ok {
			e.Detail = detail
		}
	}
	return fmt.Errorf("plugin %s: %w", plugin, errorFromPB(e))
}
