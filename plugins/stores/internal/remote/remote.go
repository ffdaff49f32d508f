// Package remote holds what the stores that reach a service over the
// network (s3, azure, http) do alike: naming their keys below a prefix,
// reading bodies, decoding configurations, and saying why a conditional
// write failed.
package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/store"
)

// Space maps store keys to object names below a prefix of a bucket or
// container, checking each key first so that no key names an object
// outside the store. Name ("s3://bucket/prefix/") starts every error.
type Space struct {
	Name   string
	Prefix string // "" or ends in "/"
}

// NewSpace returns the space of scheme://root/prefix, prefix given as
// "a/b", "/a/b/" or "".
func NewSpace(scheme, root, prefix string) (Space, error) {
	prefix = strings.Trim(prefix, "/")
	if prefix != "" {
		if err := store.ValidateKey(prefix); err != nil {
			return Space{}, fmt.Errorf("%s://%s: prefix: %w", scheme, root, err)
		}
		prefix += "/"
	}
	return Space{Name: scheme + "://" + root + "/" + prefix, Prefix: prefix}, nil
}

// Object returns the object name of key, or an error naming op.
func (s Space) Object(op, key string) (string, error) {
	if err := store.ValidateKey(key); err != nil {
		return "", fmt.Errorf("%s: %s: %w", s.Name, op, err)
	}
	return s.Prefix + key, nil
}

// Dir returns the object name prefix of a store prefix.
func (s Space) Dir(op, prefix string) (string, error) {
	if err := store.ValidatePrefix(prefix); err != nil {
		return "", fmt.Errorf("%s: %s: %w", s.Name, op, err)
	}
	return s.Prefix + prefix, nil
}

// Key returns the store key of a listed object, and false for objects no
// store key names (directory markers ending in "/", names a store would
// refuse), which listings leave out.
func (s Space) Key(object string) (string, bool) {
	key, ok := strings.CutPrefix(object, s.Prefix)
	return key, ok && store.ValidateKey(key) == nil
}

// Child returns the store prefix of a listed common prefix, and false for
// prefixes no store prefix names.
func (s Space) Child(object string) (string, bool) {
	child, ok := strings.CutPrefix(object, s.Prefix)
	return child, ok && store.ValidatePrefix(child) == nil
}

// ReadBody reads a body of the announced length (negative: unknown) into
// a buffer of exactly that size, without growing and copying.
func ReadBody(body io.Reader, length int64) ([]byte, error) {
	if length < 0 {
		return io.ReadAll(body)
	}
	data := make([]byte, length)
	if _, err := io.ReadFull(body, data); err != nil {
		return nil, fmt.Errorf("read body: %w", err)
	}
	return data, nil
}

// ReadBodyIn reads a body of the announced length into buf when it fits,
// into a buffer of its own otherwise (or when the length is unknown).
func ReadBodyIn(body io.Reader, length int64, buf []byte) ([]byte, error) {
	if length < 0 || length > int64(len(buf)) {
		return ReadBody(body, length)
	}
	data := buf[:length]
	if _, err := io.ReadFull(body, data); err != nil {
		return nil, fmt.Errorf("read body: %w", err)
	}
	return data, nil
}

// EmptyPart answers a Get of a range with no bytes in it (HTTP cannot ask
// for one, and answers one past the end with 416): ErrNotFound, or no
// bytes with the value's version.
func EmptyPart(ctx context.Context, s store.Store, key string) (store.Value, error) {
	info, err := s.Stat(ctx, key)
	if err != nil {
		return store.Value{}, err
	}
	return store.Value{Data: []byte{}, Version: info.Version, ModTime: info.ModTime}, nil
}

// Conflict is the error of a conditional Set whose condition failed.
func Conflict(name, key string, cond store.Condition) error {
	why := fmt.Sprintf("version is not %s", cond.IfMatch)
	if cond.IfNoneMatch {
		why = "key exists"
	}
	return fmt.Errorf("%s: set %q: %w (%s)", name, key, store.ErrConflict, why)
}

// Decode decodes a JSON configuration into cfg, refusing unknown fields.
func Decode(storeName string, raw json.RawMessage, cfg any) error {
	if err := extension.DecodeConfig(raw, cfg); err != nil {
		return fmt.Errorf("%s: configuration: %w", storeName, err)
	}
	return nil
}

// Or returns v, or def when v is not positive (unset).
func Or[T int | int32 | int64](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// Open builds a store from a JSON configuration with the store's parser
// and constructor: the shape a registry calls.
func Open[C any, S store.Store](ctx context.Context, raw json.RawMessage,
	parse func(json.RawMessage) (C, error), newStore func(context.Context, C) (S, error)) (store.Store, error) {
	cfg, err := parse(raw)
	if err != nil {
		return nil, err
	}
	return newStore(ctx, cfg)
}

// Length is a length an SDK announces, -1 when it announced none.
func Length(n *int64) int64 {
	if n == nil {
		return -1
	}
	return *n
}

// ReadInto reads a body of the announced length into dst when the length
// is len(dst), and reports whether it did; otherwise it reads nothing.
func ReadInto(body io.Reader, length int64, dst []byte) (bool, error) {
	if length != int64(len(dst)) {
		return false, nil
	}
	if _, err := io.ReadFull(body, dst); err != nil {
		return false, fmt.Errorf("read body: %w", err)
	}
	return true, nil
}

// ParseLocation splits a LOCATION URL scheme://root/prefix (a bucket or
// container and a key prefix). Credentials and options come from the
// environment, never from the URL, whose user part or query would
// otherwise end up in logs and errors.
func ParseLocation(scheme, loc string) (root, prefix string, err error) {
	u, err := url.Parse(loc)
	if err != nil || u.Scheme != scheme || u.Host == "" {
		return "", "", fmt.Errorf("location %q: want %s://BUCKET/PREFIX", loc, scheme)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", "", fmt.Errorf("location %s://%s%s: credentials and options come from the environment, not the URL", scheme, u.Host, u.Path)
	}
	return u.Host, strings.Trim(u.Path, "/"), nil
}

// Transport is an HTTP transport for a store: Go's defaults, with a pool
// of idle connections per host large enough for parallel chunk reads
// (Go keeps 2, the AWS SDK 10; a reader with 256 Gets in flight would
// otherwise open and close connections all the time).
func Transport(idlePerHost int) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	Pool(t, idlePerHost)
	return t
}

// Pool sizes t's pool of idle connections as Transport does.
func Pool(t *http.Transport, idlePerHost int) {
	t.MaxIdleConns = 0 // no limit across hosts
	t.MaxIdleConnsPerHost = Or(idlePerHost, 256)
}

// URLConfig turns a store's ConfigFromURL into a registration's FromURL:
// the configuration a LOCATION URL names, as JSON. It holds no secrets:
// credentials come from the environment when the store opens.
func URLConfig[C any](fromURL func(loc string) (C, error)) func(*url.URL) (json.RawMessage, error) {
	return func(u *url.URL) (json.RawMessage, error) {
		c, err := fromURL(u.String())
		if err != nil {
			return nil, err
		}
		return json.Marshal(c)
	}
}
