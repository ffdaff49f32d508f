package cache

import (
	"context"
	"time"

	"github.com/zarrgw/zarrgw/core/store"
)

// Coalescing: concurrent reads of one key and range that the cache cannot
// answer share one call to the next store. The call runs in a goroutine
// of its own, with a context that carries the first reader's values but
// not its cancellation: a reader whose context ends stops waiting and
// leaves the others' call running; the call is cancelled only when no one
// waits for it any more. A failed call fails every reader waiting for it
// with its error, and nothing of it is kept.
//
// Writes and erases through the cache start a new generation of the key:
// calls begun before a write neither fill the cache when they end nor
// take new readers, so a read that starts after a write returned never
// gets bytes read before it.

type callKind uint8

const (
	callGet  callKind = iota // Get of a range
	callStat                 // Stat (also revalidations)
	callInto                 // GetInto: a whole value of a known size
)

type callKey struct {
	kind callKind
	r    store.ByteRange
}

// result is what a call returns. val.Data belongs to the cache (it may
// be kept): readers get copies.
type result struct {
	val  store.Value
	info store.Info
	ok   bool // GetInto: the value had the size asked for
	err  error
}

type call struct {
	done    chan struct{}
	waiters int
	cancel  context.CancelFunc
	res     result
}

// keyCalls are the calls in flight for one key, in its current
// generation; the key's entry lives while any call of any generation
// does.
type keyCalls struct {
	gen   uint64
	refs  int
	calls map[callKey]*call
}

// flight is what a call knows of itself: the generation it started in
// and when, which is when the answer it brings is at least as new as.
type flight struct {
	kc    *keyCalls
	gen   uint64
	start time.Time
}

// current reports whether no write or erase of the key has happened since
// f began (c.mu held): only then may its answer be kept.
func (f flight) current() bool { return f.kc.gen == f.gen }

// do runs fetch as the one call for (key, ck), or waits for the one in
// flight; led reports whether this reader made the call.
func (c *Cache) do(ctx context.Context, key string, ck callKey, fetch func(context.Context, flight) result) (res result, led bool) {
	if err := ctx.Err(); err != nil {
		return result{err: err}, false
	}
	c.mu.Lock()
	kc := c.pending[key]
	if kc == nil {
		kc = &keyCalls{calls: map[callKey]*call{}}
		c.pending[key] = kc
	}
	cl := kc.calls[ck]
	if cl == nil || c.defect == defectNoCoalescing {
		led = true
		cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		cl = &call{done: make(chan struct{}), cancel: cancel}
		kc.calls[ck] = cl
		kc.refs++
		f := flight{kc: kc, gen: kc.gen, start: c.now()}
		go c.run(cctx, key, ck, cl, f, fetch)
	} else {
		c.count.coalesced.Add(1)
	}
	cl.waiters++
	c.mu.Unlock()
	select {
	case <-cl.done:
		return cl.res, led
	case <-ctx.Done():
		c.mu.Lock()
		cl.waiters--
		if cl.waiters == 0 {
			cl.cancel()
			if kc.calls[ck] == cl {
				delete(kc.calls, ck) // no one joins a cancelled call
			}
		}
		c.mu.Unlock()
		return result{err: ctx.Err()}, led
	}
}

// run performs one call and hands its result to its waiters.
func (c *Cache) run(ctx context.Context, key string, ck callKey, cl *call, f flight, fetch func(context.Context, flight) result) {
	res := fetch(ctx, f)
	c.mu.Lock()
	cl.res = res
	if f.kc.calls[ck] == cl {
		delete(f.kc.calls, ck)
	}
	if f.kc.refs--; f.kc.refs == 0 && c.pending[key] == f.kc {
		delete(c.pending, key)
	}
	c.mu.Unlock()
	cl.cancel()
	close(cl.done)
}

// newGeneration makes the calls in flight for key (c.mu held) unable to
// fill the cache or take new readers.
func (c *Cache) newGeneration(key string) {
	if kc := c.pending[key]; kc != nil {
		kc.gen++
		kc.calls = map[callKey]*call{}
	}
}
