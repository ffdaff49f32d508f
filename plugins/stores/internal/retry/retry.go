// Package retry runs the calls of the cloud stores again when they fail in
// a way that a later attempt may not: throttling, server errors and broken
// connections. Waits grow exponentially with full jitter, so that many
// clients throttled at once do not come back in step, and every wait ends
// when the caller's context does.
package retry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"syscall"
	"time"
)

// Policy says how often and how patiently to try. The zero value is
// DefaultPolicy.
type Policy struct {
	// Attempts is the number of tries in all, the first included.
	Attempts int
	// Base is the ceiling of the first wait; each further wait doubles it.
	Base time.Duration
	// Max caps the ceiling of any wait.
	Max time.Duration
}

// DefaultPolicy tries five times, waiting up to 100 ms, 200 ms, 400 ms and
// 800 ms in between: long enough to ride out a throttled second, short
// enough that a dead server is reported within about two seconds.
var DefaultPolicy = Policy{Attempts: 5, Base: 100 * time.Millisecond, Max: 5 * time.Second}

func (p Policy) withDefaults() Policy {
	if p.Attempts <= 0 {
		p.Attempts = DefaultPolicy.Attempts
	}
	if p.Base <= 0 {
		p.Base = DefaultPolicy.Base
	}
	if p.Max <= 0 {
		p.Max = DefaultPolicy.Max
	}
	return p
}

// Do calls op until it succeeds, fails in a way transient does not accept,
// runs out of attempts or ctx ends. The error of the last attempt is
// returned, with how many attempts were made when there was more than one.
// A context that ends during an attempt or a wait ends Do with the
// context's error (wrapped with the last attempt's, if any).
func (p Policy) Do(ctx context.Context, transient func(error) bool, op func(ctx context.Context) error) error {
	p = p.withDefaults()
	var err error
	for attempt := 1; ; attempt++ {
		err = op(ctx)
		if err == nil {
			return nil
		}
		if cerr := ctx.Err(); cerr != nil {
			return contextError(ctx, err)
		}
		if !transient(err) {
			return err
		}
		if attempt >= p.Attempts {
			return fmt.Errorf("%w (gave up after %d attempts)", err, attempt)
		}
		if !sleep(ctx, p.wait(attempt)) {
			return contextError(ctx, err)
		}
	}
}

// contextError reports that ctx ended, keeping the last attempt's error
// for the reader; errors.Is finds the context's error.
func contextError(ctx context.Context, last error) error {
	cause := context.Cause(ctx)
	if errors.Is(last, cause) {
		return last
	}
	return fmt.Errorf("%w (last attempt: %v)", cause, last)
}

// wait returns the pause after the given attempt: uniform in
// [0, min(Max, Base*2^(attempt-1))].
func (p Policy) wait(attempt int) time.Duration {
	ceiling := p.Max
	if shift := attempt - 1; shift < 30 {
		if c := p.Base << shift; c > 0 && c < ceiling {
			ceiling = c
		}
	}
	return rand.N(ceiling + 1)
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// Status reports whether an HTTP status is worth another attempt: request
// timeout, throttling and server errors other than "not implemented" and
// "version not supported", which no retry changes.
func Status(code int) bool {
	switch {
	case code == 408, code == 429:
		return true
	case code == 501, code == 505:
		return false
	}
	return code >= 500 && code <= 599
}

// Network reports whether err is a failure of the connection rather than
// an answer of the server: refused, reset or closed connections, timeouts
// of the network (not of the caller's context) and bodies cut short. The
// request may or may not have reached the server.
func Network(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	switch {
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.ECONNABORTED), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF), errors.Is(err, net.ErrClosed):
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	var op *net.OpError
	return errors.As(err, &op)
}
