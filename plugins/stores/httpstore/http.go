// Package http is a read-only store over any HTTP(S) base URL: another
// zarrgw, a static file server, a public bucket. Key "a/b" is the URL
// <base>/a/b (each segment escaped).
//
// Get asks for byte ranges with a Range header (suffixes included) and,
// when the server ignores it and answers 200 with the whole value, slices
// the range out itself; a 206 whose Content-Range is not what was asked
// for is an error. Stat is a HEAD. 404 is store.ErrNotFound; 401 and 403
// are store.ErrAccessDenied; every other status is an error naming the
// URL (without its query, which may hold a signature) and the status.
// Throttling, server errors and broken connections are retried with
// backoff and jitter. An optional bearer token goes in the Authorization
// header and nowhere else.
package httpstore

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net"
	nethttp "net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/stores/internal/redact"
	"github.com/zarrgw/zarrgw/plugins/stores/internal/remote"
	"github.com/zarrgw/zarrgw/plugins/stores/internal/retry"
)

// Name is the store's registered name.
const Name = "http"

// Config is the store's configuration; its JSON form is what Schema
// describes.
type Config struct {
	// URL is the base URL; keys are resolved below it.
	URL string `json:"url"`
	// BearerToken, if set, is sent as "Authorization: Bearer <token>".
	BearerToken string `json:"bearer_token,omitempty"`
	// MaxAttempts is how often a failing request is tried in all.
	MaxAttempts int `json:"max_attempts,omitempty"`
	// MaxIdleConns is how many idle connections to the server are kept.
	MaxIdleConns int `json:"max_idle_conns,omitempty"`
}

// Schema is the JSON Schema of Config; the token is a secret (writeOnly).
const Schema = `{"type":"object","required":["url"],"properties":{
	"url":{"type":"string","description":"base URL (http or https) the keys are below"},
	"bearer_token":{"type":"string","writeOnly":true,"description":"sent as Authorization: Bearer"},
	"max_attempts":{"type":"integer","minimum":1,"default":5,"description":"tries of a request that fails transiently"},
	"max_idle_conns":{"type":"integer","minimum":1,"default":256}}}`

// ParseConfig decodes a JSON configuration, refusing unknown fields.
func ParseConfig(raw json.RawMessage) (Config, error) {
	var c Config
	err := remote.Decode(Name, raw, &c)
	return c, err
}

// ConfigFromURL returns the configuration of a LOCATION http(s)://...;
// no environment variable applies.
func ConfigFromURL(loc string) (Config, error) { return Config{URL: loc}, nil }

// Store reads keys below a base URL.
type Store struct {
	store.NoOptional          // it reads into buffers only
	base             *url.URL // path ends in "/"
	name             string   // the base URL without query, for errors
	token            string
	client           *nethttp.Client
	policy           retry.Policy
}

var _ store.Store = (*Store)(nil)

// New opens the store cfg describes. It makes no request. When ctx
// carries a store.AddressCheck, every connection the store makes (to its
// server, or where that server redirects) is to an address the check
// allows, vetted after the host name is resolved.
func New(ctx context.Context, cfg Config) (*Store, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		shown := cfg.URL
		if err == nil {
			shown = redact.URL(u)
		}
		return nil, fmt.Errorf("http: %q is not an http(s) URL", shown)
	}
	if u.User != nil {
		return nil, fmt.Errorf("http: %s: give credentials as bearer_token, not in the URL", redact.URL(u))
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
		if u.RawPath != "" {
			u.RawPath += "/"
		}
	}
	transport := remote.Transport(cfg.MaxIdleConns)
	if check, ok := store.AddressCheckFrom(ctx); ok {
		transport.DialContext = checkedDialer(check).DialContext
	}
	return &Store{base: u, name: redact.URL(u), token: cfg.BearerToken,
		client: &nethttp.Client{Transport: transport},
		policy: retry.Policy{Attempts: cfg.MaxAttempts}}, nil
}

// checkedDialer dials as Go's default transport does, refusing addresses
// check refuses: at the moment of connecting, so that a host name whose
// answers change (DNS rebinding) is held to the same rule.
func checkedDialer(check store.AddressCheck) *net.Dialer {
	return &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second,
		Control: func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("%w: %s is not an IP address and port", store.ErrAddressRefused, address)
			}
			return check(ap.Addr())
		}}
}

// Capabilities: reading, with ranges and suffixes; nothing else.
func (s *Store) Capabilities() store.Capabilities {
	return store.Capabilities{Read: true, Ranges: true, SuffixRanges: true, Optional: store.Optional{Into: true}}
}

// String names the store by its base URL.
func (s *Store) String() string { return s.name }

// Close releases idle connections.
func (s *Store) Close() error {
	s.client.CloseIdleConnections()
	return nil
}

// url returns the URL of key, each segment escaped, the base's query kept.
func (s *Store) url(key string) *url.URL {
	u := *s.base
	segs := strings.Split(key, "/")
	for i, seg := range segs {
		segs[i] = url.PathEscape(seg)
	}
	u.Path = s.base.Path + key
	u.RawPath = s.base.EscapedPath() + strings.Join(segs, "/")
	return &u
}

func (s *Store) unsupported(op, what string) error {
	return fmt.Errorf("%s: %s %q: read-only store: %w", s.name, op, what, store.ErrUnsupported)
}

// Set is not supported: the store is read-only.
func (s *Store) Set(_ context.Context, key string, _ []byte, _ store.Condition) (string, error) {
	return "", s.unsupported("set", key)
}

// Erase is not supported: the store is read-only.
func (s *Store) Erase(_ context.Context, key string) error { return s.unsupported("erase", key) }

// EraseMany is not supported: the store is read-only.
func (s *Store) EraseMany(_ context.Context, keys []string) error {
	return s.unsupported("erase", fmt.Sprintf("%d keys", len(keys)))
}

// ErasePrefix is not supported: the store is read-only.
func (s *Store) ErasePrefix(_ context.Context, prefix string) error {
	return s.unsupported("erase prefix", prefix)
}

// List is not supported: HTTP has no listing.
func (s *Store) List(_ context.Context, prefix string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		yield("", fmt.Errorf("%s: list %q: HTTP cannot list: %w", s.name, prefix, store.ErrUnsupported))
	}
}

// ListDir is not supported: HTTP has no listing.
func (s *Store) ListDir(_ context.Context, prefix string) (store.Dir, error) {
	return store.Dir{}, fmt.Errorf("%s: list %q: HTTP cannot list: %w", s.name, prefix, store.ErrUnsupported)
}
