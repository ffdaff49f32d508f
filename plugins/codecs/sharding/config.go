package sharding

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/zarrgw/zarrgw/core/checked"
	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/shard"
)

// config is the codec's configuration as written in metadata.
type config struct {
	ChunkShape    []int
	Codecs        []chainEntry
	IndexCodecs   []chainEntry // nil when the configuration has none
	IndexLocation shard.Location
	hasLocation   bool
}

// chainEntry is one codec entry of a chain: a bare name or an object.
type chainEntry struct {
	Name          string          `json:"name"`
	Configuration json.RawMessage `json:"configuration,omitempty"`
}

func (e *chainEntry) UnmarshalJSON(b []byte) error {
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '"' {
		return json.Unmarshal(t, &e.Name)
	}
	var raw struct {
		Name           string          `json:"name"`
		Configuration  json.RawMessage `json:"configuration"`
		MustUnderstand *bool           `json:"must_understand"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if raw.Name == "" {
		return errors.New("codec without a name")
	}
	e.Name, e.Configuration = raw.Name, raw.Configuration
	if string(bytes.TrimSpace(e.Configuration)) == "null" {
		e.Configuration = nil
	}
	return nil
}

// parseConfig reads and checks a configuration; shapes are checked
// against the shard shape when it is known (checkShard).
func parseConfig(configuration json.RawMessage) (*config, error) {
	var raw struct {
		ChunkShape    []int        `json:"chunk_shape"`
		Codecs        []chainEntry `json:"codecs"`
		IndexCodecs   []chainEntry `json:"index_codecs"`
		IndexLocation *string      `json:"index_location"`
	}
	if len(bytes.TrimSpace(configuration)) == 0 {
		return nil, errors.New("configuration is missing")
	}
	if err := json.Unmarshal(configuration, &raw); err != nil {
		return nil, fmt.Errorf("configuration: %w", err)
	}
	c := &config{ChunkShape: raw.ChunkShape, Codecs: raw.Codecs, IndexCodecs: raw.IndexCodecs}
	if len(c.ChunkShape) == 0 && raw.ChunkShape == nil {
		return nil, errors.New("configuration: chunk_shape is missing")
	}
	for _, n := range c.ChunkShape {
		if n <= 0 {
			return nil, fmt.Errorf("configuration: chunk_shape %v: extents must be positive", c.ChunkShape)
		}
	}
	if len(c.Codecs) == 0 {
		return nil, errors.New("configuration: codecs must hold at least the array->bytes codec")
	}
	if raw.IndexLocation != nil {
		c.hasLocation = true
		switch *raw.IndexLocation {
		case "end":
			c.IndexLocation = shard.End
		case "start":
			c.IndexLocation = shard.Start
		default:
			return nil, fmt.Errorf("configuration: index_location must be \"start\" or \"end\", not %q", *raw.IndexLocation)
		}
	}
	return c, nil
}

// checkShard verifies that the inner chunks tile the shard and returns the
// chunks per shard.
func (c *config) checkShard(shardShape []int) ([]int, error) {
	if len(shardShape) != len(c.ChunkShape) {
		return nil, fmt.Errorf("inner chunk shape %v and shard shape %v differ in rank", c.ChunkShape, shardShape)
	}
	cps := make([]int, len(shardShape))
	for d, n := range shardShape {
		if n%c.ChunkShape[d] != 0 {
			return nil, fmt.Errorf("inner chunk shape %v does not divide the shard shape %v", c.ChunkShape, shardShape)
		}
		cps[d] = n / c.ChunkShape[d]
	}
	// the index is 16 bytes per inner chunk, and read whole
	if n, ok := checked.Product(cps); !ok || n > math.MaxInt64/shard.EntrySize {
		return nil, fmt.Errorf("a shard of %v inner chunks %v has an index beyond a 64-bit size", shardShape, c.ChunkShape)
	}
	return cps, nil
}

// resolve builds the codecs of a chain.
func resolve(ctx context.Context, exts []chainEntry, r codec.Resolver, what string) ([]codec.Codec, error) {
	if r == nil {
		return nil, errors.New("no codec resolver for the inner codecs")
	}
	out := make([]codec.Codec, len(exts))
	for i, e := range exts {
		c, err := r.Codec(ctx, e.Name, e.Configuration)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out[i] = c
	}
	return out, nil
}

// marshal writes the configuration in the v3 form, keeping a missing
// index_codecs missing.
func (c *config) marshal() json.RawMessage {
	out := struct {
		ChunkShape    []int        `json:"chunk_shape"`
		Codecs        []chainEntry `json:"codecs"`
		IndexCodecs   []chainEntry `json:"index_codecs,omitempty"`
		IndexLocation string       `json:"index_location"`
	}{c.ChunkShape, c.Codecs, c.IndexCodecs, c.IndexLocation.String()}
	b, _ := json.Marshal(out) // plain values: cannot fail
	return b
}

// fromCodecs renders resolved codecs as configuration entries.
func fromCodecs(cs []codec.Codec) []chainEntry {
	out := make([]chainEntry, len(cs))
	for i, c := range cs {
		out[i] = chainEntry{Name: c.Name(), Configuration: c.Configuration()}
	}
	return out
}

// InnerChunkShape returns the inner chunk shape of a configuration.
func InnerChunkShape(configuration json.RawMessage) ([]int, error) {
	cfg, err := parseConfig(configuration)
	if err != nil {
		return nil, err
	}
	return cfg.ChunkShape, nil
}
