package retry

import (
	"context"
	"errors"
	"net"
)

// ErrOutcomeUnknown is a conditional write whose outcome cannot be told:
// an attempt was sent and its answer lost, and the retry found the
// condition no longer holding, which that attempt may itself have caused.
// Answering a conflict would tell the caller its write failed when it may
// have taken effect; answering success could hide another writer's.
var ErrOutcomeUnknown = errors.New("the outcome of the conditional write is unknown: an attempt's answer was lost, and the retry found the condition no longer holding (the lost attempt may have been applied); read the value again")

// Answer classifies a failed request: status is the HTTP status of the
// server's answer, 0 when none came.
type Answer func(err error) (status int)

// Unapplied reports whether a failed request surely changed nothing: an
// answer of the 4xx kind or a throttling 503, or a connection that was
// never made. Other failures (a connection cut after the request was
// sent, a timeout, any other 5xx) leave it unknown.
func Unapplied(status int, err error) bool {
	if status != 0 {
		return status < 500 || status == 503
	}
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// DoConditional is Do for a write under a condition (If-Match,
// If-None-Match): when an attempt refused by the condition (conflict)
// follows an attempt that may have been applied, the result is
// ErrOutcomeUnknown, never the conflict.
func (p Policy) DoConditional(ctx context.Context, transient, conflict func(error) bool, answer Answer, op func(ctx context.Context) error) error {
	mayHaveApplied := false
	final := func(err error) bool { return !errors.Is(err, ErrOutcomeUnknown) && transient(err) }
	return p.Do(ctx, final, func(ctx context.Context) error {
		err := op(ctx)
		switch {
		case err == nil:
		case conflict(err) && mayHaveApplied:
			return ErrOutcomeUnknown
		case !Unapplied(answer(err), err):
			mayHaveApplied = true
		}
		return err
	})
}
