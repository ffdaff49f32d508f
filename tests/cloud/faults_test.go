package cloud

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/stores/azurestore"
	"github.com/zarrgw/zarrgw/plugins/stores/s3store"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// backend is a real server, and how to reach it through a fault injector
// at another address.
type backend struct {
	name string
	addr string // the server's host:port
	// open returns a store on the test's bucket or container through
	// the server at addr, with the given secret and attempts.
	open   func(t *testing.T, addr, secret string, attempts int) store.Store
	secret string
	// throttle and denied are the service's own answers for "slow down"
	// and "access denied".
	throttle, denied servers.Answer
}

func backends(t *testing.T) []backend {
	srv3 := servers.StartS3(t)
	srvAz := servers.StartAzure(t)
	return []backend{{
		name: "s3", addr: srv3.Addr, secret: srv3.SecretKey,
		open: func(t *testing.T, addr, secret string, attempts int) store.Store {
			cfg := s3Config(t, srv3)
			cfg.Endpoint, cfg.SecretAccessKey, cfg.MaxAttempts = "http://"+addr, secret, attempts
			return open(t, func(ctx context.Context) (store.Store, error) { return s3store.New(ctx, cfg) })
		},
		throttle: servers.Answer{Status: 503, Body: `<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>`},
		denied:   servers.Answer{Status: 403, Body: `<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`},
	}, {
		name: "azure", addr: srvAz.Addr, secret: srvAz.AccountKey,
		open: func(t *testing.T, addr, secret string, attempts int) store.Store {
			cfg := azurestore.Config{Container: srvAz.NewContainer(t), Account: srvAz.Account, AccountKey: secret,
				Endpoint: "http://" + addr + "/" + srvAz.Account, BlockSize: azureBlock, MaxAttempts: attempts}
			return open(t, func(ctx context.Context) (store.Store, error) { return azurestore.New(ctx, cfg) })
		},
		throttle: servers.Answer{Status: 503, Header: map[string]string{"x-ms-error-code": "ServerBusy"},
			Body: `<Error><Code>ServerBusy</Code><Message>The server is busy.</Message></Error>`},
		denied: servers.Answer{Status: 403, Header: map[string]string{"x-ms-error-code": "AuthorizationPermissionMismatch"},
			Body: `<Error><Code>AuthorizationPermissionMismatch</Code><Message>Not allowed.</Message></Error>`},
	}}
}

func open(t *testing.T, newStore func(context.Context) (store.Store, error)) store.Store {
	t.Helper()
	s, err := newStore(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func set(t *testing.T, s store.Store, key string, data []byte) {
	t.Helper()
	if _, err := s.Set(t.Context(), key, data, store.Condition{}); err != nil {
		t.Fatalf("Set(%q): %v", key, err)
	}
}

// wantFailure fails unless err is an error that is not ErrNotFound (a
// failed read must never become fill values) and names key.
func wantFailure(t *testing.T, err error, key string) {
	t.Helper()
	if err == nil {
		t.Fatalf("read of %q succeeded under the fault", key)
	}
	if errors.Is(err, store.ErrNotFound) {
		t.Fatalf("read of %q under the fault reported a missing key: %v", key, err)
	}
	if !strings.Contains(err.Error(), key) {
		t.Fatalf("error does not name the key %q: %v", key, err)
	}
}

func addToxic(t *testing.T, p *toxiproxy.Proxy, spec string) {
	t.Helper()
	if _, err := p.Toxics.AddToxicJson(strings.NewReader(spec)); err != nil {
		t.Fatalf("toxic %s: %v", spec, err)
	}
}

func TestFaults(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			t.Run("ServerGoneMidRead", func(t *testing.T) { testServerGone(t, b) })
			t.Run("LatencyPastDeadline", func(t *testing.T) { testLatency(t, b) })
			t.Run("ResetsRetried", func(t *testing.T) { testResets(t, b) })
			t.Run("ThrottlingRetried", func(t *testing.T) { testThrottling(t, b) })
			t.Run("Other4xxNotRetried", func(t *testing.T) { testOther4xx(t, b) })
			t.Run("WrongCredentials", func(t *testing.T) { testWrongCredentials(t, b) })
			t.Run("ForbiddenKey", func(t *testing.T) { testForbiddenKey(t, b) })
		})
	}
}

// The server goes away while a value is on its way: the read fails with
// an error naming the key, after its retries meet a closed port.
func testServerGone(t *testing.T, b backend) {
	proxy := servers.Toxiproxy(t, b.addr)
	s := b.open(t, proxy.Listen, b.secret, 3)
	value := bytes.Repeat([]byte("zarrgw"), 1<<20)
	set(t, s, "big/value", value)
	addToxic(t, proxy, `{"name":"slow","type":"bandwidth","stream":"downstream","attributes":{"rate":1024}}`)
	go func() {
		time.Sleep(300 * time.Millisecond)
		proxy.Stop()
	}()
	_, err := s.Get(t.Context(), "big/value", store.ByteRange{})
	wantFailure(t, err, "big/value")
	t.Logf("error: %v", err)
}

// Answers slower than the caller's deadline: the read ends at the
// deadline with the context's error, not when the answer comes 30s later.
func testLatency(t *testing.T, b backend) {
	proxy := servers.Toxiproxy(t, b.addr)
	s := b.open(t, proxy.Listen, b.secret, 5)
	set(t, s, "k", []byte("value"))
	addToxic(t, proxy, `{"name":"slow","type":"latency","stream":"downstream","attributes":{"latency":30000}}`)
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := s.Get(ctx, "k", store.ByteRange{})
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get past the deadline: %v, want the context's deadline error", err)
	}
	if took := time.Since(start); took > 15*time.Second {
		t.Fatalf("Get past a 300 ms deadline took %v: it waited for the answer", took)
	}
}

// Connections reset by the peer: a store that does not retry fails, one
// that does succeeds once the resets stop.
func testResets(t *testing.T, b backend) {
	proxy := servers.Toxiproxy(t, b.addr)
	s := b.open(t, proxy.Listen, b.secret, 10)
	set(t, s, "k", []byte("value"))
	addToxic(t, proxy, `{"name":"reset","type":"reset_peer","stream":"upstream","attributes":{"timeout":0}}`)
	once := b.open(t, proxy.Listen, b.secret, 1)
	_, err := once.Get(t.Context(), "k", store.ByteRange{})
	wantFailure(t, err, "k")
	go func() {
		time.Sleep(150 * time.Millisecond)
		_ = proxy.Toxics.RemoveToxic(context.Background(), "reset")
	}()
	v, err := s.Get(t.Context(), "k", store.ByteRange{})
	if err != nil || string(v.Data) != "value" {
		t.Fatalf("Get while connections were reset, then not: %q, %v", v.Data, err)
	}
}

// 503 throttling answers: retried until the service answers.
func testThrottling(t *testing.T, b backend) {
	front := servers.NewFront(t, b.addr)
	s := b.open(t, front.Addr, b.secret, 5)
	set(t, s, "k", []byte("value"))
	once := b.open(t, front.Addr, b.secret, 1)
	front.Next(1, b.throttle)
	if _, err := once.Get(t.Context(), "k", store.ByteRange{}); err == nil || errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a throttled Get without retries: %v, want a failure", err)
	}
	front.Next(3, b.throttle)
	before := front.Requests()
	v, err := s.Get(t.Context(), "k", store.ByteRange{})
	if err != nil || string(v.Data) != "value" {
		t.Fatalf("Get throttled three times: %q, %v", v.Data, err)
	}
	if n := front.Requests() - before; n != 4 {
		t.Fatalf("Get throttled three times made %d requests, want 4", n)
	}
}

// Other 4xx answers are final: one request, an error, not a missing key.
func testOther4xx(t *testing.T, b backend) {
	front := servers.NewFront(t, b.addr)
	s := b.open(t, front.Addr, b.secret, 5)
	set(t, s, "k", []byte("value"))
	front.Next(1, servers.Answer{Status: 400, Header: map[string]string{"x-ms-error-code": "InvalidInput"},
		Body: `<Error><Code>InvalidArgument</Code><Message>bad</Message></Error>`})
	before := front.Requests()
	_, err := s.Get(t.Context(), "k", store.ByteRange{})
	wantFailure(t, err, "k")
	if n := front.Requests() - before; n != 1 {
		t.Fatalf("a 400 answer was sent %d times, want once", n)
	}
}

// A wrong secret: the first use fails with an access error that names
// the store and does not contain the secret.
func testWrongCredentials(t *testing.T, b backend) {
	good := b.open(t, b.addr, b.secret, 1)
	set(t, good, "k", []byte("value"))
	wrong := "V3JvbmdTZWNyZXRXcm9uZ1NlY3JldFdyb25nU2VjcmV0MDE="
	s := b.open(t, b.addr, wrong, 3)
	for _, op := range []func() error{
		func() error { _, err := s.Get(t.Context(), "k", store.ByteRange{}); return err },
		func() error { _, err := s.Stat(t.Context(), "k"); return err },
		func() error { _, err := s.Set(t.Context(), "k", []byte("x"), store.Condition{}); return err },
	} {
		err := op()
		wantFailure(t, err, "k")
		if !errors.Is(err, store.ErrAccessDenied) {
			t.Fatalf("wrong credentials: %v, want an access error", err)
		}
		name := s.(interface{ String() string }).String()
		if !strings.Contains(err.Error(), name) {
			t.Fatalf("error does not name the store %s: %v", name, err)
		}
		if strings.Contains(err.Error(), wrong) || strings.Contains(err.Error(), b.secret) {
			t.Fatalf("error quotes a secret: %v", err)
		}
	}
}

// A 403 on one key is an access error, never a missing key; other keys
// read as usual.
func testForbiddenKey(t *testing.T, b backend) {
	front := servers.NewFront(t, b.addr)
	s := b.open(t, front.Addr, b.secret, 5)
	set(t, s, "open/k", []byte("value"))
	set(t, s, "secret/k", []byte("value"))
	front.OnPath("/secret/", b.denied)
	for _, op := range []func() error{
		func() error { _, err := s.Get(t.Context(), "secret/k", store.ByteRange{}); return err },
		func() error { _, err := s.Get(t.Context(), "secret/k", store.Last(2)); return err },
		func() error { _, err := s.Stat(t.Context(), "secret/k"); return err },
	} {
		err := op()
		wantFailure(t, err, "secret/k")
		if !errors.Is(err, store.ErrAccessDenied) {
			t.Fatalf("403 on a key: %v, want an access error", err)
		}
	}
	if v, err := s.Get(t.Context(), "open/k", store.ByteRange{}); err != nil || string(v.Data) != "value" {
		t.Fatalf("another key beside a forbidden one: %q, %v", v.Data, err)
	}
}
