package main

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strings"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/core/transformer"
	"github.com/zarrgw/zarrgw/pluginapi"
)

func serveMemory() {
	pluginapi.ServeStore(store.Registration{
		Manifest: extension.Manifest{Kind: extension.Store, Name: "memory"},
		// The plugin keeps one instance per configuration, so tests get a
		// fresh store by naming a new one.
		New: func(context.Context, json.RawMessage) (store.Store, error) { return store.NewMemory(), nil },
	}, store.Registration{
		Manifest: extension.Manifest{Kind: extension.Store, Name: "crashy"},
		New: func(context.Context, json.RawMessage) (store.Store, error) {
			return crashy{store.NewMemory()}, nil
		},
	})
}

// crashy is a memory store whose process panics on the first Get or Set
// of each key under "crash/" (it leaves a file named for the key in
// $ZARRGW_TEST_DIR), so tests can see which calls are made again after a
// crash.
type crashy struct{ store.Store }

func (c crashy) crashOnce(key string) {
	if !strings.HasPrefix(key, "crash/") {
		return
	}
	marker := filepath.Join(os.Getenv("ZARRGW_TEST_DIR"), strings.ReplaceAll(key, "/", "_"))
	if _, err := os.Stat(marker); err == nil {
		return
	}
	if err := os.WriteFile(marker, nil, 0o644); err == nil {
		panic("crashy: first call on " + key)
	}
}

func (c crashy) Get(ctx context.Context, key string, r store.ByteRange) (store.Value, error) {
	c.crashOnce(key)
	return c.Store.Get(ctx, key, r)
}

func (c crashy) Set(ctx context.Context, key string, data []byte, cond store.Condition) (string, error) {
	c.crashOnce(key)
	return c.Store.Set(ctx, key, data, cond)
}

// serveEnv serves the "testenv" store type: a read-only store whose keys
// are the plugin's environment variables and whose values are theirs, so a
// test can see what environment a plugin got.
func serveEnv() {
	pluginapi.ServeStore(store.Registration{
		Manifest: extension.Manifest{Kind: extension.Store, Name: "testenv"},
		New: func(ctx context.Context, _ json.RawMessage) (store.Store, error) {
			s := store.NewMemory()
			for _, kv := range os.Environ() {
				name, value, _ := strings.Cut(kv, "=")
				if _, err := s.Set(ctx, name, []byte(value), store.Condition{}); err != nil {
					return nil, fmt.Errorf("testenv: %s: %w", name, err)
				}
			}
			return store.ReadOnly(s), nil
		},
	})
}

func serveTransformer() {
	pluginapi.ServeTransformer(transformer.Registration{
		Manifest: extension.Manifest{Kind: extension.Transformer, Name: "test.prefix"},
		New: func(_ context.Context, config json.RawMessage, next store.Store) (store.Store, error) {
			var c struct{ Prefix string }
			if err := json.Unmarshal(config, &c); err != nil || !strings.HasSuffix(c.Prefix, "/") {
				return nil, fmt.Errorf("test.prefix: configuration needs a prefix ending in /")
			}
			return &prefixed{next: next, p: c.Prefix}, nil
		},
	})
}

// prefixed keeps every key under a prefix of the next store.
type prefixed struct {
	next store.Store
	p    string
}

func (s *prefixed) Capabilities() store.Capabilities { return s.next.Capabilities() }

func (s *prefixed) Get(ctx context.Context, key string, r store.ByteRange) (store.Value, error) {
	if err := store.ValidateKey(key); err != nil {
		return store.Value{}, err
	}
	return s.next.Get(ctx, s.p+key, r)
}

func (s *prefixed) Stat(ctx context.Context, key string) (store.Info, error) {
	if err := store.ValidateKey(key); err != nil {
		return store.Info{}, err
	}
	return s.next.Stat(ctx, s.p+key)
}

func (s *prefixed) Set(ctx context.Context, key string, data []byte, c store.Condition) (string, error) {
	if err := store.ValidateKey(key); err != nil {
		return "", err
	}
	return s.next.Set(ctx, s.p+key, data, c)
}

func (s *prefixed) Erase(ctx context.Context, key string) error {
	if err := store.ValidateKey(key); err != nil {
		return err
	}
	return s.next.Erase(ctx, s.p+key)
}

func (s *prefixed) ErasePrefix(ctx context.Context, prefix string) error {
	if err := store.ValidatePrefix(prefix); err != nil {
		return err
	}
	return s.next.ErasePrefix(ctx, s.p+prefix)
}

func (s *prefixed) List(ctx context.Context, prefix string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		if err := store.ValidatePrefix(prefix); err != nil {
			yield("", err)
			return
		}
		for k, err := range s.next.List(ctx, s.p+prefix) {
			if !yield(strings.TrimPrefix(k, s.p), err) {
				return
			}
		}
	}
}

func (s *prefixed) ListDir(ctx context.Context, prefix string) (store.Dir, error) {
	if err := store.ValidatePrefix(prefix); err != nil {
		return store.Dir{}, err
	}
	d, err := s.next.ListDir(ctx, s.p+prefix)
	for i := range d.Keys {
		d.Keys[i] = strings.TrimPrefix(d.Keys[i], s.p)
	}
	for i := range d.Prefixes {
		d.Prefixes[i] = strings.TrimPrefix(d.Prefixes[i], s.p)
	}
	return d, err
}

func (s *prefixed) Close() error { return s.next.Close() }
