package cache

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/zarrgw/zarrgw/core/size"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/core/transformer"
	"github.com/zarrgw/zarrgw/plugins/transformers/shardtransformer"
)

// Registration registers the transformer. It is declared in a dataset's
// configuration, innermost (directly over the store, below any sharding
// transformer):
//
//	transformer "cache" {
//	  memory           = "512MiB"
//	  revalidate_after = "30s"
//	  negative_ttl     = "2s"
//	  disk {                     // or disk = { path = ..., size = ... }
//	    path        = "/var/cache/zarrgw"
//	    size        = "50GiB"   // on disk: blocks, as du counts them
//	    max_entries = 1000000   // default: one per 16 KiB of size, at most 262144
//	  }
//	}
var Registration = transformer.Registration{
	Manifest: extension.Manifest{
		Kind:    extension.Transformer,
		Name:    Name,
		URIs:    []string{URI},
		Version: "1.0.0",
		ConfigSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"properties":{
	"memory":{"type":["string","integer"],"description":"bytes the memory tier holds, a number or a size such as \"512MiB\" (default 256MiB)"},
	"revalidate_after":{"type":["string","number"],"description":"how long a version the store confirmed is trusted before a read revalidates it with a Stat, such as \"30s\" (default 30s; 0 revalidates every read)"},
	"negative_ttl":{"type":["string","number"],"description":"how long a missing key is remembered, such as \"2s\" (default 2s, never longer than revalidate_after; 0 remembers none)"},
	"disk":{"type":"object","required":["path","size"],"additionalProperties":false,"description":"a disk tier, kept across restarts","properties":{
		"path":{"type":"string","description":"absolute path of a directory only this cache uses"},
		"size":{"type":["string","integer"],"description":"bytes the disk tier takes on disk (the blocks of its files and directories, as du counts them), a number or a size such as \"50GiB\""},
		"max_entries":{"type":"integer","minimum":1,"maximum":2147483647,"description":"entries (files) the disk tier holds (default: one per 16 KiB of size, at most 262144)"}}}}}`),
	},
	New:      newFromConfig,
	ForArray: forArray,
	Check:    checkConfig,
}

// config is the transformer's configuration, as JSON.
type config struct {
	Memory          json.RawMessage `json:"memory"`
	RevalidateAfter json.RawMessage `json:"revalidate_after"`
	NegativeTTL     json.RawMessage `json:"negative_ttl"`
	Disk            *struct {
		Path       string          `json:"path"`
		Size       json.RawMessage `json:"size"`
		MaxEntries json.RawMessage `json:"max_entries"`
	} `json:"disk"`
}

// DiskConfig is where the disk tier is and how large: bytes on disk and
// entries.
type DiskConfig struct {
	Path    string
	Bytes   int64
	Entries int64
}

// ParseConfig reads a configuration into options (without a disk tier)
// and the disk tier's place, nil for none. Every error names the
// attribute at fault.
func ParseConfig(configuration json.RawMessage) (Options, *DiskConfig, error) {
	var c config
	if err := extension.DecodeConfig(configuration, &c); err != nil {
		return Options{}, nil, fmt.Errorf("%s: configuration: %w", Name, err)
	}
	opts := Options{MemoryBytes: DefaultMemory, RevalidateAfter: DefaultRevalidateAfter, NegativeTTL: DefaultNegativeTTL}
	var err error
	if present(c.Memory) {
		if opts.MemoryBytes, err = parseSize(c.Memory); err != nil {
			return Options{}, nil, fmt.Errorf("%s: memory: %w", Name, err)
		}
		if opts.MemoryBytes < MinMemory {
			return Options{}, nil, fmt.Errorf("%s: memory: %d bytes is too small: the memory tier needs at least %d (4KiB)", Name, opts.MemoryBytes, MinMemory)
		}
	}
	if present(c.RevalidateAfter) {
		if opts.RevalidateAfter, err = parseDuration(c.RevalidateAfter); err != nil {
			return Options{}, nil, fmt.Errorf("%s: revalidate_after: %w", Name, err)
		}
	}
	if present(c.NegativeTTL) {
		if opts.NegativeTTL, err = parseDuration(c.NegativeTTL); err != nil {
			return Options{}, nil, fmt.Errorf("%s: negative_ttl: %w", Name, err)
		}
	}
	if c.Disk == nil {
		return opts, nil, nil
	}
	d := &DiskConfig{Path: c.Disk.Path}
	switch {
	case d.Path == "":
		return Options{}, nil, fmt.Errorf("%s: disk.path: a directory is required", Name)
	case !filepath.IsAbs(d.Path):
		return Options{}, nil, fmt.Errorf("%s: disk.path: %q must be an absolute path (a relative one would depend on the directory each command runs in)", Name, d.Path)
	case !present(c.Disk.Size):
		return Options{}, nil, fmt.Errorf("%s: disk.size: the disk tier's size is required, such as \"50GiB\"", Name)
	}
	if d.Bytes, err = parseSize(c.Disk.Size); err != nil {
		return Options{}, nil, fmt.Errorf("%s: disk.size: %w", Name, err)
	}
	d.Entries = DefaultDiskEntries(d.Bytes)
	if present(c.Disk.MaxEntries) {
		if d.Entries, err = parseCount(c.Disk.MaxEntries); err != nil {
			return Options{}, nil, fmt.Errorf("%s: disk.max_entries: %w", Name, err)
		}
	}
	return opts, d, nil
}

// parseCount reads a whole number from 1 to math.MaxInt32.
func parseCount(raw json.RawMessage) (int64, error) {
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, fmt.Errorf("%s is not a number", raw)
	}
	i, err := n.Int64()
	if err != nil || i < 1 || i > math.MaxInt32 {
		return 0, fmt.Errorf("%s is not a whole number from 1 to %d", n, math.MaxInt32)
	}
	return i, nil
}

func present(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && !bytes.Equal(raw, []byte("null"))
}

// checkConfig is the registration's Check: the configuration and the
// cache's place in the stack, judged as newFromConfig judges them,
// without opening the disk tier.
func checkConfig(_ context.Context, configuration json.RawMessage, next store.Store) error {
	if _, _, err := ParseConfig(configuration); err != nil {
		return err
	}
	return checkPlacement(next)
}

// newFromConfig is the registration's factory.
func newFromConfig(ctx context.Context, configuration json.RawMessage, next store.Store) (store.Store, error) {
	if err := checkConfig(ctx, configuration, next); err != nil {
		return nil, err
	}
	opts, d, err := ParseConfig(configuration)
	if err != nil {
		return nil, err
	}
	if d != nil {
		if opts.Disk, err = OpenDisk(d.Path, d.Bytes, d.Entries); err != nil {
			return nil, fmt.Errorf("%s: disk.path %q: %w", Name, d.Path, err)
		}
	}
	c, err := New(next, opts)
	if err != nil {
		if opts.Disk != nil {
			err = errors.Join(err, opts.Disk.Close())
		}
		return nil, err
	}
	announce(ctx, c)
	return c.Store(), nil
}

// forArray refuses the cache in array metadata: it belongs to a dataset,
// opened once, and each opening of an array would get a cache of its own
// that no other reader shares (and a disk tier that the next opening
// could not lock).
func forArray(json.RawMessage, *meta.ArrayMeta, string) (json.RawMessage, error) {
	return nil, fmt.Errorf("%s: a dataset's storage transformer, declared in its configuration "+
		"(transformer \"cache\" { ... }); array metadata cannot name it", Name)
}

// checkPlacement refuses a cache over the sharding transformer (declared
// before it in a dataset). There the cache would keep chunks whose
// version is their shard's: a write of one chunk rewrites the shard and
// changes the version of every other chunk in it, which the cache cannot
// know, and it would keep serving them under the old one. Below the
// sharding transformer it keeps the shards' byte ranges, and a write
// reaches it as a write of the shard. (A sharding transformer in a plugin
// is not recognized: nothing of it shows but a store.)
func checkPlacement(next store.Store) error {
	if _, ok := unwrapShown(next).(*shardtransformer.Store); ok {
		return fmt.Errorf("%s: placed over the sharding transformer: a write of one chunk changes the version of every chunk of its shard, "+
			"which a cache above cannot see; declare the cache after the sharding transformer in the dataset "+
			"(below it, directly over the store), where it caches the shards' byte ranges", Name)
	}
	return nil
}

// unwrapShown returns the store that store.WithOptional wrapped to claim
// fewer optional operations: a struct whose first field is the embedded
// store.
func unwrapShown(s store.Store) store.Store {
	for {
		v := reflect.ValueOf(s)
		if v.Kind() != reflect.Struct || v.NumField() == 0 || !v.Type().Field(0).Anonymous ||
			v.Type().Field(0).Name != "Store" || !v.Field(0).CanInterface() {
			return s
		}
		inner, ok := v.Field(0).Interface().(store.Store)
		if !ok || inner == nil {
			return s
		}
		s = inner
	}
}

// parseSize reads a positive number of bytes: a JSON number, or a string
// such as "1048576", "512MiB" or "1.5GB", read by core/size as every
// size of the configuration is.
func parseSize(raw json.RawMessage) (int64, error) {
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		f, err := n.Float64()
		if err != nil {
			return 0, fmt.Errorf("%s is not a size", n)
		}
		return size.Whole(f)
	}
	var text string
	if err := json.Unmarshal(raw, &text); err != nil {
		return 0, fmt.Errorf("%s is neither a number of bytes nor a size such as \"512MiB\"", raw)
	}
	return size.Parse(text)
}

// parseDuration reads a duration: a string as Go writes them ("30s",
// "1m30s", "0") or a number of seconds. Negative ones are refused.
func parseDuration(raw json.RawMessage) (time.Duration, error) {
	var d time.Duration
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		f, err := n.Float64()
		if err != nil || f > math.MaxInt64/float64(time.Second) {
			return 0, fmt.Errorf("%s is not a number of seconds", n)
		}
		d = time.Duration(f * float64(time.Second))
	} else {
		var text string
		if err := json.Unmarshal(raw, &text); err != nil {
			return 0, fmt.Errorf("%s is not a duration such as \"30s\"", raw)
		}
		if d, err = time.ParseDuration(strings.TrimSpace(text)); err != nil {
			return 0, fmt.Errorf("%q is not a duration such as \"30s\" or \"5m\"", text)
		}
	}
	if d < 0 {
		return 0, fmt.Errorf("%s is negative", d)
	}
	return d, nil
}
