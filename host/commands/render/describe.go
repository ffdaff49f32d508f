package render

import (
	"strings"

	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// Description is what `zarrgw inspect` and the gateway's pages say of an
// array, each field as printed.
type Description struct {
	Format, Shape, DataType, Chunks, Codecs, Transformers string
	FillValue, ChunkKeys, DimensionNames                  string
}

// Describe describes an array's metadata.
func Describe(m *meta.ArrayMeta) Description {
	d := Description{
		Format:    m.Format.String(),
		Shape:     ints(m.Shape),
		DataType:  DataTypeName(m),
		Chunks:    ints(m.ChunkShape),
		Codecs:    codecList(m.Codecs),
		FillValue: fillValue(m),
		ChunkKeys: m.ChunkKey.Name + ` ("` + m.ChunkKey.Separator + `")`,
	}
	if len(m.StorageTransformers) > 0 {
		d.Transformers = codecList(m.StorageTransformers)
	}
	if m.DimensionNames != nil {
		names := make([]string, len(m.DimensionNames))
		for i, n := range m.DimensionNames {
			names[i] = "null"
			if n != nil {
				names[i] = *n
			}
		}
		d.DimensionNames = "[" + strings.Join(names, ", ") + "]"
	}
	return d
}

// fillValue prints the fill value as cat prints elements ("null" when
// the metadata has none).
func fillValue(m *meta.ArrayMeta) string {
	if m.FillValue == nil {
		return "null"
	}
	one := ndarray.Filled(m.DataType, []int{1}, m.FillValue)
	return string(appendValue(nil, one.At(0)))
}

// IsSharded reports whether an array's chunks are shards.
func IsSharded(m *meta.ArrayMeta) bool { return usesSharding(m) }
