package codec

import (
	"context"

	"github.com/zarrgw/zarrgw/core/meta"
)

// ForArray returns m with the codec chain its chunks are stored with. A v2
// array's chain is derived from its filters and compressor: each filter is
// placed by the kind of the codec r builds for it (KindOf), bundled or from
// a plugin, so a plugin's array->array filter lands before the bytes codec
// as numcodecs' own do. Filters r cannot build keep numcodecs' placement
// (the pipeline then reports them unavailable).
func ForArray(ctx context.Context, m *meta.ArrayMeta, r Resolver) (*meta.ArrayMeta, error) {
	if m.Format != meta.V2 {
		return m, nil
	}
	return m.WithV2Kinds(func(f meta.Extension) (Kind, bool) {
		c, err := r.Codec(ctx, f.Name, f.Configuration)
		if err != nil {
			return 0, false
		}
		k := KindOf(c)
		return k, k != 0
	})
}
