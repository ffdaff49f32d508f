// Package keyprefix is an example of a storage transformer maintained
// outside zarrgw and run as a plugin: it keeps every key of the stack
// above it under a prefix of the store below ("v1/" turns zarr.json into
// v1/zarr.json), so that several versions of a hierarchy can share a
// store. In a plugin, the store below is the host's, reached through the
// host; the transformer never opens it itself.
package keyprefix

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"os"
	"strings"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/core/transformer"
)

// Name is the transformer's name in HCL transformer blocks.
const Name = "keyprefix"

// Registration is what the plugin serves.
var Registration = transformer.Registration{
	Manifest: extension.Manifest{
		Kind:    extension.Transformer,
		Name:    Name,
		Version: "1.0.0",
		ConfigSchema: json.RawMessage(`{"type": "object", "required": ["prefix"], "additionalProperties": false,
			"properties": {"prefix": {"type": "string", "description": "the prefix, ending in /, keys are kept under"}}}`),
	},
	New: New,
}

// New builds the transformer over next from {"prefix": "v1/"}.
func New(_ context.Context, configuration json.RawMessage, next store.Store) (store.Store, error) {
	var cfg struct {
		Prefix string `json:"prefix"`
	}
	if err := extension.DecodeConfig(configuration, &cfg); err != nil {
		return nil, fmt.Errorf("%s: configuration: %w", Name, err)
	}
	if !strings.HasSuffix(cfg.Prefix, "/") || store.ValidatePrefix(cfg.Prefix) != nil {
		return nil, fmt.Errorf("%s: prefix %q must be a key prefix ending in /", Name, cfg.Prefix)
	}
	// The optional operations of next (a copy-free read, sorted listings
	// with sizes, files) stay available, and only those: without them a
	// listing with sizes through the transformer costs a Stat per key.
	return &Prefixed{next: next, prefix: cfg.Prefix}, nil
}

// Prefixed is the store above: next with every key under prefix.
type Prefixed struct {
	next   store.Store
	prefix string
}

func (s *Prefixed) Capabilities() store.Capabilities { return s.next.Capabilities() }

func (s *Prefixed) Get(ctx context.Context, key string, r store.ByteRange) (store.Value, error) {
	if err := store.ValidateKey(key); err != nil {
		return store.Value{}, err
	}
	return s.next.Get(ctx, s.prefix+key, r)
}

func (s *Prefixed) Stat(ctx context.Context, key string) (store.Info, error) {
	if err := store.ValidateKey(key); err != nil {
		return store.Info{}, err
	}
	return s.next.Stat(ctx, s.prefix+key)
}

func (s *Prefixed) Set(ctx context.Context, key string, data []byte, cond store.Condition) (string, error) {
	if err := store.ValidateKey(key); err != nil {
		return "", err
	}
	return s.next.Set(ctx, s.prefix+key, data, cond)
}

func (s *Prefixed) Erase(ctx context.Context, key string) error {
	if err := store.ValidateKey(key); err != nil {
		return err
	}
	return s.next.Erase(ctx, s.prefix+key)
}

func (s *Prefixed) EraseMany(ctx context.Context, keys []string) error {
	full := make([]string, len(keys))
	for i, key := range keys {
		if err := store.ValidateKey(key); err != nil {
			return err
		}
		full[i] = s.prefix + key
	}
	return s.next.EraseMany(ctx, full)
}

func (s *Prefixed) ErasePrefix(ctx context.Context, prefix string) error {
	if err := store.ValidatePrefix(prefix); err != nil {
		return err
	}
	return s.next.ErasePrefix(ctx, s.prefix+prefix)
}

func (s *Prefixed) List(ctx context.Context, prefix string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		if err := store.ValidatePrefix(prefix); err != nil {
			yield("", err)
			return
		}
		for k, err := range s.next.List(ctx, s.prefix+prefix) {
			if !yield(strings.TrimPrefix(k, s.prefix), err) {
				return
			}
		}
	}
}

func (s *Prefixed) ListDir(ctx context.Context, prefix string) (store.Dir, error) {
	if err := store.ValidatePrefix(prefix); err != nil {
		return store.Dir{}, err
	}
	d, err := s.next.ListDir(ctx, s.prefix+prefix)
	for i := range d.Keys {
		d.Keys[i] = strings.TrimPrefix(d.Keys[i], s.prefix)
	}
	for i := range d.Prefixes {
		d.Prefixes[i] = strings.TrimPrefix(d.Prefixes[i], s.prefix)
	}
	return d, err
}

// Close closes the store below, which the transformer owns.
func (s *Prefixed) Close() error { return s.next.Close() }

// GetInto keeps the copy-free read of the store below.
func (s *Prefixed) GetInto(ctx context.Context, key string, dst []byte) (bool, error) {
	if err := store.ValidateKey(key); err != nil {
		return false, err
	}
	return store.GetInto(ctx, s.next, s.prefix+key, dst)
}

// OpenFile keeps the files of the store below: the bytes are its own.
func (s *Prefixed) OpenFile(ctx context.Context, key string, buf []byte) (*os.File, store.Info, error) {
	if err := store.ValidateKey(key); err != nil {
		return nil, store.Info{}, err
	}
	return store.OpenFile(ctx, s.next, s.prefix+key, buf)
}

// SetFrom keeps the streamed writes of the store below.
func (s *Prefixed) SetFrom(ctx context.Context, key string, r io.Reader, cond store.Condition) (string, error) {
	if err := store.ValidateKey(key); err != nil {
		return "", err
	}
	return store.SetFrom(ctx, s.next, s.prefix+key, r, cond)
}

// ListSorted keeps the sorted listing of the store below: every key has
// the prefix in front, so their order is the order below, and the prefix
// alone (startAfter "") sorts before them all.
func (s *Prefixed) ListSorted(ctx context.Context, prefix, startAfter string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		if err := store.ValidatePrefix(prefix); err != nil {
			yield("", err)
			return
		}
		for k, err := range store.ListSorted(ctx, s.next, s.prefix+prefix, s.prefix+startAfter) {
			if !yield(strings.TrimPrefix(k, s.prefix), err) || err != nil {
				return
			}
		}
	}
}

// ListInfo keeps the listing with sizes and versions of the store below.
func (s *Prefixed) ListInfo(ctx context.Context, prefix, startAfter string) iter.Seq2[store.Entry, error] {
	return func(yield func(store.Entry, error) bool) {
		if err := store.ValidatePrefix(prefix); err != nil {
			yield(store.Entry{}, err)
			return
		}
		for e, err := range store.ListInfo(ctx, s.next, s.prefix+prefix, s.prefix+startAfter) {
			e.Key = strings.TrimPrefix(e.Key, s.prefix)
			if !yield(e, err) || err != nil {
				return
			}
		}
	}
}
