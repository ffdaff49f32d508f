package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/pluginapi"
	"github.com/zarrgw/zarrgw/plugins/stores/fsstore"
)

func serveMemory() {
	pluginapi.ServeStore(store.Registration{
		Manifest: extension.Manifest{Kind: extension.Store, Name: "memory"},
		// The plugin keeps one instance per configuration, so tests get a
		// fresh store by naming a new one.
		New: func(context.Context, json.RawMessage) (store.Store, error) { return store.NewMemory(), nil },
	}, store.Registration{
		Manifest: extension.Manifest{Kind: extension.Store, Name: "counted"},
		New:      newCounted,
	}, store.Registration{
		Manifest: extension.Manifest{Kind: extension.Store, Name: "callcount"},
		New:      newCallCount,
	}, store.Registration{
		Manifest: extension.Manifest{Kind: extension.Store, Name: "crashy"},
		New: func(context.Context, json.RawMessage) (store.Store, error) {
			return crashy{store.NewMemory()}, nil
		},
	}, store.Registration{
		Manifest: extension.Manifest{Kind: extension.Store, Name: "crashafter"},
		New:      newCrashAfter,
	})
}

// crashAfter is a store of files in $ZARRGW_TEST_DIR/values (they outlive
// the process) whose process panics after the first write of each key
// under "crash/" has landed, before it answers: the write the host sees
// fail happened.
type crashAfter struct{ store.Store }

func newCrashAfter(context.Context, json.RawMessage) (store.Store, error) {
	s, err := fsstore.New(filepath.Join(os.Getenv("ZARRGW_TEST_DIR"), "values"))
	if err != nil {
		return nil, err
	}
	return crashAfter{s}, nil
}

func (c crashAfter) Set(ctx context.Context, key string, data []byte, cond store.Condition) (string, error) {
	version, err := c.Store.Set(ctx, key, data, cond)
	if err == nil {
		crashy{}.crashOnce(key)
	}
	return version, err
}

// crashy is a memory store whose process panics on the first Get, Set,
// Erase or ErasePrefix of each key (or prefix) under "crash/" (it leaves a
// file named for the key in $ZARRGW_TEST_DIR), so tests can see which
// calls are made again after a crash.
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

func (c crashy) Erase(ctx context.Context, key string) error {
	c.crashOnce(key)
	return c.Store.Erase(ctx, key)
}

func (c crashy) ErasePrefix(ctx context.Context, prefix string) error {
	c.crashOnce(prefix)
	return c.Store.ErasePrefix(ctx, prefix)
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

// calls counts the calls each "counted" store has seen, by operation
// (store.Hook's names), keyed by the store's configuration.
var calls sync.Map // configuration -> *opCounts

type opCounts struct {
	mu sync.Mutex
	n  map[string]int64
}

func countsOf(config json.RawMessage) *opCounts {
	c, _ := calls.LoadOrStore(string(config), &opCounts{n: map[string]int64{}})
	return c.(*opCounts)
}

// newCounted is a memory store whose calls are counted in the plugin, by
// a hook: what reaches the plugin's store is what the host asked for.
func newCounted(_ context.Context, config json.RawMessage) (store.Store, error) {
	counts := countsOf(config)
	return store.WithHook(store.NewMemory(), func(ctx context.Context, op, _ string, call func(context.Context) error) error {
		counts.mu.Lock()
		counts.n[op]++
		counts.mu.Unlock()
		return call(ctx)
	}), nil
}

// newCallCount reads the counts of the "counted" store of the same
// configuration: the value of key OP is how many OP calls it has seen.
func newCallCount(_ context.Context, config json.RawMessage) (store.Store, error) {
	return callCount{Store: store.NewMemory(), counts: countsOf(config)}, nil
}

type callCount struct {
	store.Store
	counts *opCounts
}

func (c callCount) Get(_ context.Context, op string, _ store.ByteRange) (store.Value, error) {
	c.counts.mu.Lock()
	defer c.counts.mu.Unlock()
	return store.Value{Data: strconv.AppendInt(nil, c.counts.n[op], 10)}, nil
}
