package retry

import (
	"context"
	"errors"
	"net"
	"syscall"
	"testing"
	"time"
)

// A conflict after an attempt that may have been applied is an unknown
// outcome; after attempts that surely changed nothing, it stays a
// conflict.
func TestDoConditional(t *testing.T) {
	errConflict := errors.New("412")
	errThrottled := errors.New("503")
	errServer := errors.New("500")
	statuses := map[error]int{errConflict: 412, errThrottled: 503, errServer: 500}
	answer := func(err error) int { return statuses[err] }
	dial := &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}
	cut := &net.OpError{Op: "read", Err: syscall.ECONNRESET}
	cases := []struct {
		name     string
		attempts []error
		want     error
	}{
		{"a cut answer, then refused", []error{cut, errConflict}, ErrOutcomeUnknown},
		{"a 500, then refused", []error{errServer, errConflict}, ErrOutcomeUnknown},
		{"never connected, then refused", []error{dial, errConflict}, errConflict},
		{"throttled, then refused", []error{errThrottled, errConflict}, errConflict},
		{"refused at once", []error{errConflict}, errConflict},
		{"a cut answer, then applied", []error{cut, nil}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			i := 0
			p := Policy{Attempts: 5, Base: time.Microsecond}
			transient := func(err error) bool { return err != errConflict }
			isConflict := func(err error) bool { return err == errConflict }
			err := p.DoConditional(context.Background(), transient, isConflict, answer, func(context.Context) error {
				err := c.attempts[i]
				i++
				return err
			})
			if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
				t.Fatalf("%v, want %v", err, c.want)
			}
		})
	}
}
