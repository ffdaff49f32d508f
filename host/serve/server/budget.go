package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"strconv"

	"golang.org/x/sync/semaphore"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/host/runtime/config"
)

// retryAfter is what a refused client is told to wait, in seconds: long
// enough for a few pictures to be drawn, short enough for a browser.
const retryAfter = 3

// Budget bounds the array reads (pictures, slices) in progress at once
// and the memory they hold together, as estimated from the metadata and
// the query before anything is read. Without it, a few concurrent
// requests for large pictures hold gigabytes.
type Budget struct {
	slots  *semaphore.Weighted // nil: no bound on the count
	memory *semaphore.Weighted // nil: no bound on the bytes
	cfg    config.Safeguards
	// waiting, when set, is called as a request starts waiting for room
	// (tests see that it waits).
	waiting func()
	// words, when set, words the refusals of a budget of something other
	// than expensive requests (request bodies).
	words refusalWords
}

// refusalWords say why a budget refused: it stayed full (busy, a 503),
// or the request alone is larger than all of it (tooLarge, a 413).
type refusalWords interface {
	busy(err error) string
	tooLarge(n int64) error
}

// NewBudget is the budget of expensive requests the safeguards set.
func NewBudget(s config.Safeguards) *Budget {
	b := &Budget{cfg: s}
	if s.ExpensiveRequests > 0 {
		b.slots = semaphore.NewWeighted(int64(s.ExpensiveRequests))
	}
	if s.ExpensiveMemory > 0 {
		b.memory = semaphore.NewWeighted(s.ExpensiveMemory)
	}
	return b
}

// Limit is the most one request may hold (0: no limit).
func (b *Budget) Limit() int64 { return b.cfg.ExpensiveMemory }

// StreamBudget is the memory budget of one streamed write: the default,
// unless that is more than a quarter of the whole budget.
func (b *Budget) StreamBudget() int64 {
	if b.memory == nil {
		return array.DefaultMemoryBudget
	}
	return min(array.DefaultMemoryBudget, b.cfg.ExpensiveMemory/4)
}

// ReadStreamBudget is the memory budget of one streamed read (a slice, a
// picture): the engine's default for reads, which keeps the chunks that
// slabs cut open as streams and decodes each once, unless that is more
// than a third of the whole budget (160 MiB of the default 512 MiB: three
// whole-array reads at once).
func (b *Budget) ReadStreamBudget() int64 {
	if b.memory == nil {
		return array.DefaultReadMemoryBudget
	}
	return min(array.DefaultReadMemoryBudget, b.cfg.ExpensiveMemory/3)
}

// Reservation is a slot and bytes taken from a budget.
type Reservation struct {
	b     *Budget
	slot  bool
	bytes int64
}

// reserve takes a slot and n bytes, waiting at most expensive_wait for
// them (on the semaphores, in order of arrival). A request larger than
// the whole budget is refused at once (413), one that finds no room in
// time is refused with 503.
func (b *Budget) reserve(ctx context.Context, n int64) (*Reservation, error) {
	if b.memory != nil && n > b.cfg.ExpensiveMemory {
		return nil, b.TooExpensive(n)
	}
	wctx, cancel := context.WithTimeout(ctx, b.cfg.ExpensiveWait)
	defer cancel()
	r := &Reservation{b: b}
	if b.slots != nil {
		if err := b.acquire(wctx, b.slots, 1); err != nil {
			return nil, b.refusal(ctx, err)
		}
		r.slot = true
	}
	if b.memory != nil {
		if err := b.acquire(wctx, b.memory, n); err != nil {
			r.Release()
			return nil, b.refusal(ctx, err)
		}
		r.bytes = n
	}
	return r, nil
}

// acquire takes n at once when there is room (Acquire fails on an expired
// context even then, as with expensive_wait = 0s), else waits on s.
func (b *Budget) acquire(ctx context.Context, s *semaphore.Weighted, n int64) error {
	if s.TryAcquire(n) {
		return nil
	}
	if b.waiting != nil {
		b.waiting()
	}
	return s.Acquire(ctx, n)
}

// Shrink gives back the slot and all but keep bytes: what a request holds
// while it only writes out a finished response, so that a slow reader
// does not keep others waiting for what it no longer uses. Bytes given
// back must be free for the next request, not garbage still counted in
// the process's memory: after a large request, the garbage is collected
// and returned to the system first. (Measured: with a collection alone,
// the next picture's buffers did not fit in the fragmented free space and
// two pictures in a row kept both resident.)
func (r *Reservation) Shrink(keep int64) {
	if keep < r.bytes {
		if r.bytes-keep >= r.b.collectAbove() {
			debug.FreeOSMemory()
		}
		r.b.memory.Release(r.bytes - keep)
		r.bytes = keep
	}
	if r.slot {
		r.b.slots.Release(1)
		r.slot = false
	}
}

// collectAbove is the release after which garbage is collected: an
// eighth of the budget, where a collection costs little beside the
// request that made the garbage.
func (b *Budget) collectAbove() int64 { return max(b.cfg.ExpensiveMemory/8, 1) }

// Release gives everything back; it may be called more than once.
func (r *Reservation) Release() {
	r.Shrink(0)
}

// busyError is a refusal for want of room: 503 with Retry-After.
type busyError struct{ msg string }

func (e *busyError) Error() string { return e.msg }

// refusal explains why no room was found: the client went away, or the
// budget stayed full for expensive_wait.
func (b *Budget) refusal(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("waiting for room among expensive requests: %w", ctx.Err())
	}
	if b.words != nil {
		return &busyError{b.words.busy(err)}
	}
	return &busyError{fmt.Sprintf("too many expensive requests (pictures, array slices) at once: "+
		"the server's budget (expensive_requests = %d, expensive_memory = %s) stayed full for %s; try again in %d seconds (%v)",
		b.cfg.ExpensiveRequests, SizeText(b.cfg.ExpensiveMemory), b.cfg.ExpensiveWait, retryAfter, err)}
}

// TooExpensive is the refusal of a request that would hold n bytes,
// more than the whole budget (413).
func (b *Budget) TooExpensive(n int64) error {
	if b.words != nil {
		return b.words.tooLarge(n)
	}
	return &RequestError{http.StatusRequestEntityTooLarge, fmt.Sprintf(
		"this request would hold about %s, more than the whole memory budget of expensive requests (expensive_memory = %s): ask for a smaller selection",
		SizeText(n), SizeText(b.cfg.ExpensiveMemory))}
}

// answerBusy turns a refusal for want of room into a 503 that tells the
// client when to come back; other errors stay as they are.
func answerBusy(w http.ResponseWriter, err error) error {
	var busy *busyError
	if errors.As(err, &busy) {
		w.Header().Set("Retry-After", strconv.Itoa(retryAfter))
		return &RequestError{http.StatusServiceUnavailable, busy.msg}
	}
	return err
}

// SizeText writes a byte count for people, as the configuration would.
func SizeText(n int64) string {
	for _, u := range []struct {
		unit  string
		bytes int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}} {
		if n >= u.bytes && n%u.bytes == 0 {
			return strconv.FormatInt(n/u.bytes, 10) + u.unit
		}
		if n >= u.bytes {
			return strconv.FormatFloat(float64(n)/float64(u.bytes), 'f', 1, 64) + u.unit
		}
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
