package identity

import (
	"context"
	"errors"
	"math"
	"net"
	"net/netip"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/zarrgw/zarrgw/host/runtime/config"
)

// Limits holds the token buckets of the principals' rate limits and of
// anonymous clients. Anonymous traffic is limited per client (the
// connection's address, not a header a client could forge: an IPv4
// address, or the /64 of an IPv6 one; see clientKey), so one scraper
// cannot starve other anonymous readers; behind a load balancer that is
// the balancer's address, one bucket for all of them.
//
// The buckets kept are bounded: full ones (of callers gone quiet) are
// swept, and past maxBuckets the callers not yet seen share one bucket
// per limit until a sweep makes room.
type Limits struct {
	byPrincipal map[string]*config.RateLimit
	anonymous   *config.RateLimit

	mu      sync.Mutex
	buckets map[string]*buckets
	made    int // buckets made since the last sweep
}

// buckets are the request and byte buckets of one key.
type buckets struct {
	requests *rate.Limiter
	bytes    *rate.Limiter // nil without a byte rate
}

// sweepEvery is how many callers not seen before come between sweeps of
// the full buckets, which keeps the map as large as the callers seen
// recently.
const sweepEvery = 1024

// maxBuckets bounds the buckets kept (about 200 bytes each): callers
// that keep their buckets from refilling, from more addresses than this,
// cannot grow the map further. Newcomers then share one bucket, so a
// flood from many addresses is limited as one client.
const maxBuckets = 1 << 16

// NewLimits returns the limits of cfg, or nil when it sets none.
func NewLimits(cfg *config.Config) *Limits {
	l := &Limits{byPrincipal: map[string]*config.RateLimit{}, anonymous: cfg.Server.AnonymousRateLimit, buckets: map[string]*buckets{}}
	for _, p := range cfg.Principals {
		if p.RateLimit != nil {
			l.byPrincipal[p.Name] = p.RateLimit
		}
	}
	if len(l.byPrincipal) == 0 && l.anonymous == nil {
		return nil
	}
	return l
}

// Decision is what Admit decided: Retry is how long to wait when the
// request is refused, Limiter names whose limit refused it (a principal,
// or "anonymous"), Bytes are the byte buckets the request's bodies go
// through (none without byte rates).
type Decision struct {
	OK      bool
	Retry   time.Duration
	Limiter string
	Bytes   []*rate.Limiter
}

// Admit takes one request from every bucket the caller falls under: each
// of its principals' limits (all must have room, or none is charged), or
// its client address's when anonymous. A caller authenticated but acting
// as no principal counts as anonymous here.
func (l *Limits) Admit(c Caller, remoteAddr string) Decision {
	if l == nil {
		return Decision{OK: true}
	}
	now := time.Now()
	type hold struct {
		name string
		b    *buckets
	}
	var holds []hold
	l.mu.Lock()
	for _, p := range c.Principals {
		if lim := l.byPrincipal[p]; lim != nil {
			key := p
			if lim.PerSubject {
				key += "\x00" + c.Subject
			}
			holds = append(holds, hold{p, l.bucketsLocked("p\x00"+key, "p\x00"+p+"\x00*", lim)})
		}
	}
	if len(c.Principals) == 0 && l.anonymous != nil {
		holds = append(holds, hold{"anonymous", l.bucketsLocked("a\x00"+clientKey(remoteAddr), "a\x00*", l.anonymous)})
	}
	l.mu.Unlock()
	d := Decision{OK: true}
	var taken []*rate.Reservation
	for _, h := range holds {
		r := h.b.requests.ReserveN(now, 1)
		if wait := r.DelayFrom(now); !r.OK() || wait > 0 {
			r.CancelAt(now)
			if wait > d.Retry || d.OK {
				d.Retry, d.Limiter = wait, h.name
			}
			d.OK = false
			continue
		}
		taken = append(taken, r)
		if h.b.bytes != nil {
			d.Bytes = append(d.Bytes, h.b.bytes)
		}
	}
	if !d.OK {
		for _, r := range taken {
			r.CancelAt(now) // refused by another bucket: charge none
		}
		d.Bytes = nil
	}
	return d
}

// bucketsLocked returns the buckets of key, made on first use; when
// maxBuckets are kept, those of shared, the bucket of every caller not
// seen before (one per limit, so the map exceeds maxBuckets by as many
// as the configuration has limits at most).
func (l *Limits) bucketsLocked(key, shared string, lim *config.RateLimit) *buckets {
	if b, ok := l.buckets[key]; ok {
		return b
	}
	if l.made++; l.made >= sweepEvery {
		l.sweepLocked()
	}
	if len(l.buckets) >= maxBuckets {
		key = shared
		if b, ok := l.buckets[key]; ok {
			return b
		}
	}
	b := &buckets{requests: rate.NewLimiter(rate.Limit(lim.RequestsPerSecond), lim.Burst)}
	if lim.BytesPerSecond > 0 {
		b.bytes = rate.NewLimiter(rate.Limit(lim.BytesPerSecond), int(min(lim.BytesPerSecond, math.MaxInt32)))
	}
	l.buckets[key] = b
	return b
}

// sweepLocked forgets buckets that are full again: a new one would be the
// same.
func (l *Limits) sweepLocked() {
	now := time.Now()
	for k, b := range l.buckets {
		full := b.requests.TokensAt(now) >= float64(b.requests.Burst())
		if full && (b.bytes == nil || b.bytes.TokensAt(now) >= float64(b.bytes.Burst())) {
			delete(l.buckets, k)
		}
	}
	l.made = 0
}

// Size is the number of buckets kept (for tests and metrics).
func (l *Limits) Size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}

// clientKey names the bucket of an anonymous client by its connection's
// address: an IPv4 address as it is (an IPv4-mapped IPv6 address as the
// IPv4 one), an IPv6 address by its /64. A /64 is what one host, or one
// customer's network, is given: a client holding one can change its
// address on every request among 2^64, and would otherwise get a fresh
// bucket each time.
func clientKey(remoteAddr string) string {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return host // not an IP address (a Unix socket's): as given
	}
	addr = addr.WithZone("").Unmap()
	if addr.Is4() {
		return addr.String()
	}
	prefix, _ := addr.Prefix(64) // cannot fail: an IPv6 address has 128 bits
	return prefix.String()
}

// MaxThrottleWait bounds how long one step of a paced response waits for
// its bytes: beyond it the principal's concurrent requests have taken
// more than that much of its rate already, and the response ends instead
// of holding its buffer in a queue that only grows.
const MaxThrottleWait = 30 * time.Second

// ErrThrottled is a response step that would wait past MaxThrottleWait.
var ErrThrottled = errors.New("over the byte rate of the caller's rate_limit")

// Step is the most a paced writer sends before waiting again: one
// second of the slowest limiter, and at least one byte.
func Step(lims []*rate.Limiter, n int) int {
	for _, lim := range lims {
		n = min(n, max(1, lim.Burst()))
	}
	return n
}

// Throttle waits until every limiter has room for n bytes (n at most
// Step's), before they are sent; a wait longer than MaxThrottleWait is
// ErrThrottled, and charges nothing.
func Throttle(ctx context.Context, lims []*rate.Limiter, n int) error {
	now := time.Now()
	var wait time.Duration
	taken := make([]*rate.Reservation, 0, len(lims))
	for _, lim := range lims {
		r := lim.ReserveN(now, n)
		taken = append(taken, r)
		if !r.OK() || r.DelayFrom(now) > MaxThrottleWait {
			for _, t := range taken {
				t.CancelAt(now)
			}
			return ErrThrottled
		}
		wait = max(wait, r.DelayFrom(now))
	}
	if wait == 0 {
		return nil
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		for _, t := range taken {
			t.Cancel()
		}
		return ctx.Err()
	}
}
