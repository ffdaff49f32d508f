package identity_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"golang.org/x/time/rate"

	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/serve/identity"
)

func limitsOf(t *testing.T, anon *config.RateLimit, ps ...config.Principal) *identity.Limits {
	t.Helper()
	cfg := &config.Config{Principals: ps}
	cfg.Server.AnonymousRateLimit = anon
	return identity.NewLimits(cfg)
}

// A principal over its burst is refused with a wait; another principal
// and the anonymous are not affected.
func TestLimitsPerPrincipal(t *testing.T) {
	slow := &config.RateLimit{RequestsPerSecond: 0.001, Burst: 3}
	l := limitsOf(t, nil, config.Principal{Name: "a", RateLimit: slow}, config.Principal{Name: "b"})
	a := identity.Caller{Principals: []string{"a"}, Method: identity.Token}
	for i := range 3 {
		if d := l.Admit(a, "127.0.0.1:1"); !d.OK {
			t.Fatalf("request %d of the burst refused", i)
		}
	}
	d := l.Admit(a, "127.0.0.1:1")
	if d.OK || d.Limiter != "a" || d.Retry <= 0 {
		t.Fatalf("over the burst: %+v", d)
	}
	for range 100 {
		if !l.Admit(identity.Caller{Principals: []string{"b"}, Method: identity.Token}, "127.0.0.1:1").OK ||
			!l.Admit(identity.Caller{}, "127.0.0.1:1").OK {
			t.Fatal("a principal without a limit, or the anonymous without one, was refused")
		}
	}
}

// A caller acting as two principals needs room in both, and a refusal by
// one charges neither.
func TestLimitsAllPrincipalsCharged(t *testing.T) {
	l := limitsOf(t, nil,
		config.Principal{Name: "a", RateLimit: &config.RateLimit{RequestsPerSecond: 0.001, Burst: 1}},
		config.Principal{Name: "b", RateLimit: &config.RateLimit{RequestsPerSecond: 0.001, Burst: 2}})
	both := identity.Caller{Principals: []string{"a", "b"}, Method: identity.JWT}
	if !l.Admit(both, "").OK {
		t.Fatal("first refused")
	}
	if d := l.Admit(both, ""); d.OK || d.Limiter != "a" {
		t.Fatalf("second: %+v", d)
	}
	// b was charged once only: one request left for it alone
	if !l.Admit(identity.Caller{Principals: []string{"b"}}, "").OK {
		t.Fatal("b was charged for a refused request")
	}
}

// Anonymous callers are limited per client address, and per = "subject"
// gives each subject its own bucket.
func TestLimitsPerAddressAndSubject(t *testing.T) {
	one := &config.RateLimit{RequestsPerSecond: 0.001, Burst: 1}
	l := limitsOf(t, one, config.Principal{Name: "g", RateLimit: &config.RateLimit{RequestsPerSecond: 0.001, Burst: 1, PerSubject: true}})
	if !l.Admit(identity.Caller{}, "10.0.0.1:5").OK || l.Admit(identity.Caller{}, "10.0.0.1:6").OK {
		t.Fatal("an address's bucket: first must pass, second (another port, same address) be refused")
	}
	if !l.Admit(identity.Caller{}, "10.0.0.2:5").OK {
		t.Fatal("another address was refused")
	}
	for i := range 3 {
		c := identity.Caller{Principals: []string{"g"}, Method: identity.JWT, Subject: fmt.Sprint("user", i)}
		if !l.Admit(c, "").OK {
			t.Fatalf("subject %d refused", i)
		}
		if l.Admit(c, "").OK {
			t.Fatalf("subject %d not limited", i)
		}
	}
}

// Buckets of callers gone quiet are forgotten: the map stays bounded by
// the callers seen recently.
func TestLimitsBounded(t *testing.T) {
	l := limitsOf(t, &config.RateLimit{RequestsPerSecond: 1e6, Burst: 1})
	for i := range 10000 {
		l.Admit(identity.Caller{}, fmt.Sprintf("10.%d.%d.%d:1", i>>16, (i>>8)&255, i&255))
	}
	if n := l.Size(); n > 2048 {
		t.Fatalf("%d buckets kept for 10000 addresses refilled at once", n)
	}
}

// Anonymous IPv6 clients are limited per /64: every address of one /64
// shares one bucket (a client holding a /64 has 2^64 addresses to change
// between requests), another /64 has its own. IPv4 clients are limited
// per address, and an IPv4-mapped IPv6 address is its IPv4 address.
func TestLimitsAnonymousIPv6PerPrefix(t *testing.T) {
	one := &config.RateLimit{RequestsPerSecond: 0.001, Burst: 1}
	l := limitsOf(t, one)
	anon := identity.Caller{}
	if !l.Admit(anon, "[2001:db8:1:2::1]:443").OK {
		t.Fatal("the first request of a /64 was refused")
	}
	for i := range 1000 {
		addr := fmt.Sprintf("[2001:db8:1:2:%x:%x:%x:%x]:%d", i*7919&0xffff, i, i>>3, i*31&0xffff, 1024+i)
		if d := l.Admit(anon, addr); d.OK || d.Limiter != "anonymous" {
			t.Fatalf("%s, in the /64 whose bucket is spent: %+v, want refused", addr, d)
		}
	}
	if !l.Admit(anon, "[2001:db8:1:3::1]:443").OK {
		t.Fatal("another /64 was refused")
	}
	if !l.Admit(anon, "[fe80::1%eth0]:443").OK || l.Admit(anon, "[fe80::2%eth1]:443").OK {
		t.Fatal("link-local addresses: the first must pass, another of fe80::/64 (zones aside) be refused")
	}
	if !l.Admit(anon, "192.0.2.1:5").OK {
		t.Fatal("an IPv4 address was refused")
	}
	if d := l.Admit(anon, "[::ffff:192.0.2.1]:6"); d.OK {
		t.Fatal("the IPv4-mapped form of a spent IPv4 address had a bucket of its own")
	}
	if !l.Admit(anon, "[::ffff:192.0.2.2]:6").OK || l.Admit(anon, "192.0.2.2:7").OK {
		t.Fatal("an IPv4 address and its IPv4-mapped form: the first must pass, the second be refused")
	}
	if !l.Admit(anon, "192.0.2.3:5").OK {
		t.Fatal("the next IPv4 address (same /24, another client) was refused")
	}
	if n := l.Size(); n != 6 {
		t.Fatalf("%d buckets, want 6 (two /64s, link-local, three IPv4 addresses)", n)
	}
}

// Callers that keep their buckets from refilling, from more addresses
// than the map holds, do not grow it past MaxBuckets: the ones not seen
// before share one bucket, which a flood spends; callers already seen
// keep theirs.
func TestLimitsBucketsCapped(t *testing.T) {
	l := limitsOf(t, &config.RateLimit{RequestsPerSecond: 0.001, Burst: 1})
	first := "198.51.100.1:1"
	if !l.Admit(identity.Caller{}, first).OK {
		t.Fatal("the first client was refused")
	}
	refused := 0
	const n = identity.MaxBuckets + 5000
	for i := range n {
		addr := fmt.Sprintf("[2001:db8:%x:%x::1]:1", i>>16, i&0xffff)
		if !l.Admit(identity.Caller{}, addr).OK {
			refused++
		}
	}
	if size := l.Size(); size > identity.MaxBuckets+1 {
		t.Fatalf("%d buckets kept for %d clients that never refill, want at most %d", size, n+1, identity.MaxBuckets+1)
	}
	// the first newcomer past the bound spent the shared bucket
	if refused < n-identity.MaxBuckets {
		t.Fatalf("%d of %d clients refused, want at least the %d past the bound but one", refused, n, n-identity.MaxBuckets)
	}
	if refused > n-identity.MaxBuckets {
		t.Fatalf("%d of %d clients refused: some within the bound lost their own bucket", refused, n)
	}
	if l.Admit(identity.Caller{}, first).OK {
		t.Fatal("a client seen before the flood got a fresh bucket")
	}
}

func TestNoLimits(t *testing.T) {
	if l := limitsOf(t, nil, config.Principal{Name: "a"}); l != nil {
		t.Fatal("limits without any rate_limit")
	}
	var l *identity.Limits
	if !l.Admit(identity.Caller{}, "").OK {
		t.Fatal("nil limits refused")
	}
}

// A paced step waits for its bytes before they are sent; a step that
// would wait past MaxThrottleWait is refused at once and charges nothing,
// and a waiting step whose request ends gives its bytes back.
func TestThrottle(t *testing.T) {
	slow := rate.NewLimiter(0.1, 10) // 10 bytes now, then one every 10s
	lims := []*rate.Limiter{slow}
	if n := identity.Step(lims, 1<<20); n != 10 {
		t.Fatalf("step %d, want the burst (10)", n)
	}
	if err := identity.Throttle(context.Background(), lims, 10); err != nil {
		t.Fatalf("the burst: %v", err)
	}
	if err := identity.Throttle(context.Background(), lims, 10); !errors.Is(err, identity.ErrThrottled) {
		t.Fatalf("100s of waiting: %v, want ErrThrottled", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	mid := rate.NewLimiter(1, 5)
	identity.Throttle(context.Background(), []*rate.Limiter{mid}, 5)
	if err := identity.Throttle(ctx, []*rate.Limiter{mid}, 5); !errors.Is(err, context.Canceled) {
		t.Fatalf("an ended request's step: %v", err)
	}
	if tokens := mid.Tokens(); tokens < -0.5 {
		t.Fatalf("an ended request's step kept its bytes: %.1f tokens left", tokens)
	}
}
