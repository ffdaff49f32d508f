package pluginapi

import (
	"context"
	"errors"
)

// retried runs call, which must be safe to make twice (a codec call, a
// store read, an erase, a write of the same bytes, a conditional write
// with its condition), and runs it once more if it failed because the
// connection to the plugin is gone: its process crashed or was ended, and
// the next connect starts a new one (once for all the calls that died
// with it: they find the new process started). Both attempts run under
// the caller's context, so its deadline bounds the two together; a caller
// that has given up is not retried, and a second death is the caller's
// error, naming the plugin: a plugin that keeps crashing never holds a
// call in a loop.
func retried(ctx context.Context, call func() error) error {
	err := call()
	if retryable(ctx, err) {
		err = call()
	}
	return err
}

// retryable reports whether a call that failed with err may be made again:
// the plugin's connection broke and the caller still waits.
func retryable(ctx context.Context, err error) bool {
	return err != nil && errors.Is(err, ErrConnectionLost) && callerGaveUp(ctx) == nil
}

// unary makes one call on the plugin's live connection, with the plugin's
// name on its error, retried once after a crash: for idempotent calls.
func unary[T any](ctx context.Context, c *Client, call func(*Conn) (T, error)) (T, error) {
	var out T
	err := retried(ctx, func() error {
		conn, err := c.connect(ctx)
		if err != nil {
			return err
		}
		v, err := call(conn)
		if err != nil {
			return c.fail(ctx, conn, err)
		}
		out = v
		return nil
	})
	return out, err
}
