package transfer

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/meta"
)

// canonicalCodecs names each codec of a chain as v3 metadata must: by its
// registered name ("numcodecs.zlib", not the numcodecs id "zlib") and
// with its configuration in the registered form (blosc's shuffle as a
// name), as the codec built from it reports them. blosc learns its type
// size from the data type when its configuration leaves it out.
func canonicalCodecs(ctx context.Context, r codec.Resolver, m *meta.ArrayMeta) ([]meta.Extension, error) {
	out := make([]meta.Extension, len(m.Codecs))
	for i, e := range m.Codecs {
		c, err := r.Codec(ctx, e.Name, e.Configuration)
		if err != nil {
			return nil, fmt.Errorf("codec %s: %w", e.Name, err)
		}
		cfg := c.Configuration()
		if c.Name() == "blosc" {
			cfg = withTypeSize(cfg, m.DataType.Size)
		}
		out[i] = meta.Extension{Name: c.Name(), Configuration: cfg, MustUnderstand: true}
	}
	return out, nil
}

// withTypeSize adds "typesize" to a blosc configuration that lacks it (v2
// writes none: numcodecs takes it from the array).
func withTypeSize(cfg json.RawMessage, size int) json.RawMessage {
	var m map[string]any
	if json.Unmarshal(cfg, &m) != nil || m["typesize"] != nil || size == 0 {
		return cfg
	}
	m["typesize"] = size
	b, err := json.Marshal(m)
	if err != nil {
		return cfg
	}
	return b
}
