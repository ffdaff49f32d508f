package cache_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/transformers/cache"
	"github.com/zarrgw/zarrgw/plugins/transformers/shardtransformer"
)

func TestConfig(t *testing.T) {
	opts, d, err := cache.ParseConfig(json.RawMessage(`{}`))
	if err != nil || d != nil || opts.MemoryBytes != cache.DefaultMemory ||
		opts.RevalidateAfter != cache.DefaultRevalidateAfter || opts.NegativeTTL != cache.DefaultNegativeTTL {
		t.Fatalf("defaults: %+v, %+v, %v", opts, d, err)
	}
	opts, d, err = cache.ParseConfig(json.RawMessage(`{"memory":"512MiB","revalidate_after":"1m30s","negative_ttl":0.5,
		"disk":{"path":"/var/cache/zarrgw","size":"50GiB"}}`))
	if err != nil || opts.MemoryBytes != 512<<20 || opts.RevalidateAfter != 90*time.Second || opts.NegativeTTL != 500*time.Millisecond ||
		d == nil || d.Path != "/var/cache/zarrgw" || d.Bytes != 50<<30 {
		t.Fatalf("full: %+v, %+v, %v", opts, d, err)
	}
	if opts, _, err := cache.ParseConfig(json.RawMessage(`{"memory":1048576,"revalidate_after":"0"}`)); err != nil ||
		opts.MemoryBytes != 1<<20 || opts.RevalidateAfter != 0 {
		t.Fatalf("numbers: %+v, %v", opts, err)
	}
}

// The disk tier's entries: max_entries, or one per 16 KiB of its size,
// at most 262144.
func TestConfigDiskEntries(t *testing.T) {
	cases := []struct {
		disk string
		want int64
	}{
		{`{"path":"/c","size":"50GiB","max_entries":1000000}`, 1000000},
		{`{"path":"/c","size":"4MiB"}`, 256},
		{`{"path":"/c","size":"1GiB"}`, 65536},
		{`{"path":"/c","size":"50GiB"}`, 262144},
		{`{"path":"/c","size":100}`, 1},
	}
	for _, c := range cases {
		_, d, err := cache.ParseConfig(json.RawMessage(`{"disk":` + c.disk + `}`))
		if err != nil || d == nil || d.Entries != c.want {
			t.Errorf("disk %s: %+v, %v; want %d entries", c.disk, d, err, c.want)
		}
	}
}

// Configuration errors say which attribute is wrong, and why.
func TestConfigErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ config, want string }{
		{`{"memory":"12XB"}`, `memory: "12XB" is not a size`},
		{`{"memory":0}`, "memory: 0 bytes is not a positive whole number"},
		{`{"memory":"0MiB"}`, "memory: 0 bytes is not a positive whole number"},
		{`{"memory":-5}`, "memory: -5 bytes is not a positive whole number"},
		{`{"memory":"1KiB"}`, "memory: 1024 bytes is too small"},
		{`{"memory":true}`, "memory: true is neither a number of bytes nor a size"},
		{`{"revalidate_after":"soon"}`, `revalidate_after: "soon" is not a duration`},
		{`{"negative_ttl":"-1s"}`, "negative_ttl: -1s is negative"},
		{`{"memroy":"1GiB"}`, `unknown field "memroy"`},
		{`{"disk":{"size":"1GiB"}}`, "disk.path: a directory is required"},
		{`{"disk":{"path":"cache","size":"1GiB"}}`, `disk.path: "cache" must be an absolute path`},
		{`{"disk":{"path":"/tmp/x"}}`, "disk.size: the disk tier's size is required"},
		{`{"disk":{"path":"/tmp/x","size":"big"}}`, `disk.size: "big" is not a size`},
		{`{"disk":{"path":"/tmp/x","size":"1GiB","max_entries":0}}`, "disk.max_entries: 0 is not a whole number from 1 to 2147483647"},
		{`{"disk":{"path":"/tmp/x","size":"1GiB","max_entries":1.5}}`, "disk.max_entries: 1.5 is not a whole number"},
		{`{"disk":{"path":"/tmp/x","size":"1GiB","max_entries":"many"}}`, `disk.max_entries: "many" is not a number`},
		{`{"disk":{"path":"` + file + `/under","size":"1MiB"}}`, `disk.path "` + file + `/under"`},
	}
	for _, c := range cases {
		_, err := cache.Registration.New(context.Background(), json.RawMessage(c.config), store.NewMemory())
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "cache: ") {
			t.Errorf("%s: %v, want an error with %q", c.config, err, c.want)
		}
	}
	// a directory this process cannot write (root may write anywhere)
	if os.Geteuid() != 0 {
		ro := filepath.Join(t.TempDir(), "ro")
		if err := os.Mkdir(ro, 0o500); err != nil {
			t.Fatal(err)
		}
		_, err := cache.Registration.New(context.Background(), json.RawMessage(`{"disk":{"path":"`+ro+`","size":"1MiB"}}`), store.NewMemory())
		if err == nil || !strings.Contains(err.Error(), "not writable") || !strings.Contains(err.Error(), "disk.path") {
			t.Errorf("read-only disk.path: %v", err)
		}
	}
	// two caches on one disk directory
	dir := filepath.Join(t.TempDir(), "shared")
	cfg := json.RawMessage(`{"disk":{"path":"` + dir + `","size":"1MiB"}}`)
	first, err := cache.Registration.New(context.Background(), cfg, store.NewMemory())
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	if _, err := cache.Registration.New(context.Background(), cfg, store.NewMemory()); err == nil ||
		!strings.Contains(err.Error(), "disk.path") || !strings.Contains(err.Error(), "in use") {
		t.Errorf("second cache on one disk directory: %v", err)
	}
}

// Every configuration the schema accepts as written in HCL (sizes as
// strings or numbers, durations as strings or seconds) is one the
// transformer takes, and the schema refuses unknown attributes.
func TestSchema(t *testing.T) {
	schema := cache.Registration.Manifest.ConfigSchema
	for _, cfg := range []string{`{}`, `{"memory":"512MiB","revalidate_after":"30s","negative_ttl":2}`,
		`{"memory":1048576,"disk":{"path":"/var/cache/zarrgw","size":"50GiB"}}`} {
		if errs, err := extension.ValidateConfig(schema, json.RawMessage(cfg)); err != nil || len(errs) > 0 {
			t.Errorf("%s: %v %v", cfg, errs, err)
		}
		if _, _, err := cache.ParseConfig(json.RawMessage(cfg)); err != nil {
			t.Errorf("%s: %v", cfg, err)
		}
	}
	for _, cfg := range []string{`{"memroy":"1GiB"}`, `{"disk":{"path":"/x"}}`, `{"disk":{"path":"/x","size":"1GiB","extra":1}}`} {
		if errs, err := extension.ValidateConfig(schema, json.RawMessage(cfg)); err != nil || len(errs) == 0 {
			t.Errorf("%s accepted by the schema", cfg)
		}
	}
}

// A cache over the sharding transformer is refused (a write of one chunk
// changes the version of every chunk of its shard); array metadata cannot
// name the cache.
func TestPlacement(t *testing.T) {
	layout := shardtransformer.Layout{AnyDepth: true, Encoding: meta.ChunkKeyEncoding{Name: "default", Separator: "/"}}
	for _, next := range []func() store.Store{
		func() store.Store {
			s, _ := shardtransformer.New(store.NewMemory(), layout, []int{2})
			return s
		},
		func() store.Store { // without the optional operations of the memory store
			s, _ := shardtransformer.New(store.WithOptional(store.NewMemory(), store.Optional{}), layout, []int{2})
			return s
		},
	} {
		_, err := cache.Registration.New(context.Background(), json.RawMessage(`{}`), next())
		if err == nil || !strings.Contains(err.Error(), "over the sharding transformer") {
			t.Errorf("cache over the sharding transformer: %v", err)
		}
	}
	if _, err := cache.Registration.ForArray(json.RawMessage(`{}`), &meta.ArrayMeta{}, "a"); err == nil {
		t.Error("array metadata naming the cache accepted")
	}
}

// OnOpen reports every cache built under its context, for metrics.
func TestOnOpen(t *testing.T) {
	var got []*cache.Cache
	ctx := cache.OnOpen(context.Background(), func(c *cache.Cache) { got = append(got, c) })
	var inner int
	ctx = cache.OnOpen(ctx, func(*cache.Cache) { inner++ })
	s, err := cache.Registration.New(ctx, json.RawMessage(`{"memory":"1MiB"}`), store.NewMemory())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if len(got) != 1 || inner != 1 {
		t.Fatalf("OnOpen called %d and %d times, want once each", len(got), inner)
	}
	if _, err := s.Set(ctx, "k", []byte("v"), store.Condition{}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := s.Get(ctx, "k", store.ByteRange{}); err != nil {
			t.Fatal(err)
		}
	}
	if st := got[0].Stats(); st.Hits != 1 || st.Misses != 1 || st.Memory.MaxBytes != 1<<20 || st.Memory.Entries != 1 || st.Disk != nil {
		t.Fatalf("stats of the reported cache: %+v", st)
	}
}
