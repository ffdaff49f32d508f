package render

import (
	"fmt"
	"strconv"
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
		Chunks:    chunksText(m),
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

// shownRuns bounds the runs of edges printed per dimension of a
// rectilinear grid: a grid may list a million.
const shownRuns = 8

// chunksText prints the chunk grid: a regular grid's chunk shape, or
// "rectilinear " and the edges as --chunks takes them (10*5+5+5,15+15).
func chunksText(m *meta.ArrayMeta) string {
	if !m.Rectilinear() {
		return ints(m.ChunkShape)
	}
	dims := make([]string, len(m.ChunkEdges))
	for d, e := range m.ChunkEdges {
		if e.Uniform > 0 {
			dims[d] = strconv.Itoa(e.Uniform)
			continue
		}
		runs := make([]string, 0, min(len(e.Runs), shownRuns+1))
		for i, r := range e.Runs {
			if i == shownRuns {
				n, _ := e.Count(m.Shape[d])
				runs = append(runs, fmt.Sprintf("... (%d edges)", n))
				break
			}
			if r.Count == 1 {
				runs = append(runs, strconv.Itoa(r.Length))
			} else {
				runs = append(runs, fmt.Sprintf("%d*%d", r.Length, r.Count))
			}
		}
		dims[d] = strings.Join(runs, "+")
	}
	return "rectilinear " + strings.Join(dims, ",")
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
