// Package logbatch writes a busy server's log lines in batches: one write
// to the output carries every line that arrived while the previous write
// was under way. A gateway answering tens of thousands of small GETs a
// second otherwise pays one write system call per access-log line, as
// much as reading the value it serves.
//
// A batch is never held for long: the writing goroutine, woken by a line,
// gathers for a millisecond (or until 16 KiB wait) before it writes, so a
// quiet server's line is out within a millisecond, and one serving ten
// thousand requests a second writes ten lines a call rather than one.
// Lines keep their order. What a process killed
// outright had not yet written is lost, at most the lines of one batch;
// Close writes everything first.
package logbatch

import (
	"io"
	"sync"
	"time"
)

// DefaultLimit bounds the bytes waiting to be written: past it, writers
// wait for the output (as they would without batching), so a log that
// cannot keep up slows the server instead of growing without bound.
const DefaultLimit = 256 << 10

// gather is how long the writing goroutine lets lines gather after the
// first arrives, unless gatherBytes of them are waiting already.
const (
	gather      = time.Millisecond
	gatherBytes = 16 << 10
)

// Writer batches the lines written to it; each Write is one whole line
// (or record), never split between batches. It is safe for concurrent use.
type Writer struct {
	out   io.Writer
	limit int

	mu      sync.Mutex
	changed sync.Cond // signalled when lines arrive, a batch is written, or on Close
	waiting []byte    // lines not yet handed to out
	spare   []byte    // the previous batch's buffer, reused
	closed  bool      // Close was called: no more waiting for room
	ended   bool      // the writing goroutine has returned: write directly
	full    int       // writers waiting for room (seen by the tests)
	done    chan struct{}
}

// New returns a Writer over out holding at most limit bytes waiting
// (DefaultLimit when limit < 1), and starts its writing goroutine; Close
// ends it.
func New(out io.Writer, limit int) *Writer {
	if limit < 1 {
		limit = DefaultLimit
	}
	w := &Writer{out: out, limit: limit, done: make(chan struct{})}
	w.changed.L = &w.mu
	go w.run()
	return w
}

// Write queues p as one line. It waits while the lines waiting would
// exceed the limit; after Close it writes p to the output directly.
// Errors of the output are not reported: a log line that cannot be
// written must not fail the request that logged it.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(w.waiting) > 0 && len(w.waiting)+len(p) > w.limit && !w.closed {
		w.full++
		w.changed.Wait()
		w.full--
	}
	if w.ended {
		w.out.Write(p)
		return len(p), nil
	}
	w.waiting = append(w.waiting, p...)
	if len(w.waiting) == len(p) {
		w.changed.Broadcast() // the writing goroutine may be asleep
	}
	return len(p), nil
}

// run writes the waiting lines, one batch a write, until Close has been
// called and nothing is left.
func (w *Writer) run() {
	defer close(w.done)
	w.mu.Lock()
	defer w.mu.Unlock()
	for {
		for len(w.waiting) == 0 && !w.closed {
			w.changed.Wait()
		}
		if len(w.waiting) == 0 {
			w.ended = true
			return
		}
		if len(w.waiting) < gatherBytes && !w.closed {
			w.mu.Unlock()
			time.Sleep(gather)
			w.mu.Lock()
		}
		batch := w.waiting
		w.waiting = w.spare[:0]
		w.mu.Unlock()
		w.out.Write(batch)
		w.mu.Lock()
		w.spare = batch[:0]
		w.changed.Broadcast() // room for writers waiting on the limit
	}
}

// Close writes every waiting line and stops the writing goroutine; later
// writes go to the output directly. It does not close the output.
func (w *Writer) Close() error {
	w.mu.Lock()
	w.closed = true
	w.changed.Broadcast()
	w.mu.Unlock()
	<-w.done
	return nil
}
