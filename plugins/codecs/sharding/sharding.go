// Package sharding is the v3 sharding_indexed codec: an array->bytes codec
// that stores a shard (the array's chunk) as many inner chunks, each
// encoded with its own codec chain, located by an index at the start or
// end of the shard. The shard format lives in core/shard.
//
// When the codec is the chain's only codec, reads fetch only the index and
// the inner chunks they need (codec.PartialDecoder), and writes to part of
// a shard keep the encoded bytes of the inner chunks they do not touch
// (codec.PartialEncoder).
package sharding

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/shard"
)

// Name is the codec's registered name.
const Name = "sharding_indexed"

// Registration registers the codec with default options.
var Registration = RegistrationWith(Options{})

// RegistrationWith registers the codec with the given runtime options.
func RegistrationWith(opts Options) codec.Registration {
	return codec.Registration{
		Manifest: extension.Manifest{
			Kind:         extension.Codec,
			Name:         Name,
			URIs:         []string{"https://zarr-specs.readthedocs.io/en/latest/v3/codecs/sharding-indexed/v1.0.html"},
			ConfigSchema: json.RawMessage(schema),
		},
		New: func(ctx context.Context, configuration json.RawMessage, r codec.Resolver) (codec.Codec, error) {
			return NewWith(ctx, configuration, r, opts)
		},
	}
}

// schema is the configuration's schema; the inner chains are lists of
// codecs as in v3 metadata.
const schema = `{"type":"object","required":["chunk_shape"],"properties":{
	"chunk_shape":{"type":"array","items":{"type":"integer","minimum":1},"description":"inner chunk shape"},
	"codecs":{"type":"array","items":` + codecListItem + `,"description":"codecs of the inner chunks"},
	"index_codecs":{"type":"array","items":` + codecListItem + `},
	"index_location":{"type":"string","enum":["start","end"],"default":"end"}}}`

// codecListItem is one entry of a codec list.
const codecListItem = `{"type":"object","required":["name"],"properties":{
	"name":{"type":"string"},
	"configuration":{"type":"object"}}}`

// Order is the order inner chunks are laid out in when a shard is written.
type Order uint8

const (
	COrder Order = iota // row-major: a row of inner chunks is one contiguous run
	Morton              // Z-curve, as zarr-python writes
)

// Options are runtime knobs. They change how shards are written and read,
// never what the metadata says.
type Options struct {
	Order Order
	// Coalescing merges nearby inner chunk reads (zero value: the default).
	Coalescing shard.Coalescing
	// Concurrency bounds the inner chunks coded in parallel per shard
	// (0 = GOMAXPROCS).
	Concurrency int
	// IndexCacheBytes bounds the cache of shard indexes (0 = 8 MiB,
	// negative = no cache).
	IndexCacheBytes int64
}

// Codec is the sharding_indexed codec. It is safe for concurrent use.
type Codec struct {
	cfg   *config
	inner []codec.Codec
	index []codec.Codec // nil: no index_codecs in the configuration
	opts  Options
	cache *shard.Cache

	// shards recycles the buffers whole shards are read into.
	shards sync.Pool

	mu    sync.Mutex
	plans map[string]*plan
	last  atomic.Pointer[lastPlan] // the plan of the last spec seen
}

// lastPlan remembers one plan with its spec, so the common case of one
// spec per codec costs no key building.
type lastPlan struct {
	in codec.Spec
	p  *plan
}

func sameSpec(a, b codec.Spec) bool {
	return a.DataType == b.DataType && slices.Equal(a.Shape, b.Shape) && bytes.Equal(a.FillValue, b.FillValue) &&
		(a.FillValue == nil) == (b.FillValue == nil)
}

// New builds the codec with default options.
func New(ctx context.Context, configuration json.RawMessage, r codec.Resolver) (codec.Codec, error) {
	return NewWith(ctx, configuration, r, Options{})
}

// NewWith builds the codec; the resolver builds the inner and index
// chains (which may themselves hold sharding_indexed).
func NewWith(ctx context.Context, configuration json.RawMessage, r codec.Resolver, opts Options) (*Codec, error) {
	cfg, err := parseConfig(configuration)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	c := &Codec{cfg: cfg, opts: opts, plans: map[string]*plan{}}
	if c.inner, err = resolve(ctx, cfg.Codecs, r, "codecs"); err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	if cfg.IndexCodecs != nil {
		if c.index, err = resolve(ctx, cfg.IndexCodecs, r, "index_codecs"); err != nil {
			return nil, fmt.Errorf("%s: %w", Name, err)
		}
		for _, ic := range c.index {
			if _, ok := ic.(codec.SizedCodec); !ok {
				return nil, fmt.Errorf("%s: index_codecs: %s has no fixed encoded size (the index may not be compressed)", Name, ic.Name())
			}
		}
	}
	if c.opts.Coalescing == (shard.Coalescing{}) {
		c.opts.Coalescing = shard.DefaultCoalescing
	}
	if c.opts.Concurrency <= 0 {
		c.opts.Concurrency = runtime.GOMAXPROCS(0)
	}
	switch {
	case c.opts.IndexCacheBytes == 0:
		c.cache = shard.NewCache(8 << 20)
	case c.opts.IndexCacheBytes > 0:
		c.cache = shard.NewCache(c.opts.IndexCacheBytes)
	}
	return c, nil
}

func (c *Codec) Name() string { return Name }

// Configuration returns the configuration as read (a missing index_codecs
// stays missing), with index_location spelled out.
func (c *Codec) Configuration() json.RawMessage { return c.cfg.marshal() }

// plan is everything derived from one shard spec.
type plan struct {
	cps    []int
	inner  *codec.Pipeline
	format *shard.Format
	grid   grid.Grid // the shard over its inner chunks
	order  []int     // write order of flat positions (nil = C order)
	// scratch recycles buffers inner chunks are decoded into (see
	// withInner); each holds one inner chunk's in-memory bytes.
	scratch sync.Pool
}

// maxPlans bounds the memo of plans; a codec normally sees one spec.
const maxPlans = 16

// plan returns the plan for shards of spec in, built once.
func (c *Codec) plan(ctx context.Context, in codec.Spec) (*plan, error) {
	if l := c.last.Load(); l != nil && sameSpec(l.in, in) {
		return l.p, nil
	}
	key := fmt.Sprintf("%s|%v|%x", in.DataType.Name, in.Shape, in.FillValue)
	c.mu.Lock()
	p, ok := c.plans[key]
	c.mu.Unlock()
	if ok {
		c.last.Store(&lastPlan{in: codec.Spec{DataType: in.DataType, Shape: slices.Clone(in.Shape), FillValue: bytes.Clone(in.FillValue)}, p: p})
		return p, nil
	}
	p, err := c.newPlan(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	c.mu.Lock()
	if len(c.plans) >= maxPlans {
		clear(c.plans)
	}
	c.plans[key] = p
	c.mu.Unlock()
	in.Shape, in.FillValue = slices.Clone(in.Shape), bytes.Clone(in.FillValue)
	c.last.Store(&lastPlan{in: in, p: p})
	return p, nil
}

func (c *Codec) newPlan(ctx context.Context, in codec.Spec) (*plan, error) {
	cps, err := c.cfg.checkShard(in.Shape)
	if err != nil {
		return nil, err
	}
	innerSpec := codec.Spec{DataType: in.DataType, Shape: c.cfg.ChunkShape, FillValue: in.FillValue, DecodedSize: -1}
	inner, err := codec.FromCodecs(ctx, c.inner, innerSpec, codec.DefaultMaxChunkBytes)
	if err != nil {
		return nil, fmt.Errorf("codecs: %w", err)
	}
	var ic shard.IndexCodec = shard.NewLegacyIndex(cps)
	if c.index != nil {
		if ic, err = shard.NewPipelineIndex(ctx, c.index, cps); err != nil {
			return nil, err
		}
	}
	g, err := grid.New(in.Shape, c.cfg.ChunkShape)
	if err != nil {
		return nil, err
	}
	p := &plan{cps: cps, inner: inner, grid: g, format: &shard.Format{CPS: cps, Index: ic, Location: c.cfg.IndexLocation}}
	if c.opts.Order == Morton {
		p.order = shard.MortonOrder(cps)
	}
	return p, nil
}

// reader reads inner chunks of shards of plan p.
func (c *Codec) reader(p *plan) *shard.Reader {
	return &shard.Reader{Format: p.format, Cache: c.cache, Coalescing: c.opts.Coalescing}
}

func chainNames(exts []chainEntry) string {
	names := make([]string, len(exts))
	for i, e := range exts {
		names[i] = e.Name
	}
	return strings.Join(names, ", ")
}
