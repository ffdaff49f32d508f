package gateway

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/plugins/stores/fsstore"
)

// writtenArrays are arrays zarrgw wrote into dir.
type writtenArrays struct {
	dir    string
	arrays []string
}

func ext(name, config string) meta.Extension {
	return meta.Extension{Name: name, Configuration: json.RawMessage(config), MustUnderstand: true}
}

// writeArrays writes v3 arrays (compressed, sharded, transposed, strings) and a v2 one, partly filled, so that
// some chunks are missing and read as fill values.
func writeArrays(t *testing.T) writtenArrays {
	t.Helper()
	ctx := context.Background()
	w := writtenArrays{dir: t.TempDir()}
	s, err := fsstore.New(w.dir)
	if err != nil {
		t.Fatal(err)
	}
	le := `{"endian":"little"}`
	// index at the end: zarrita.js 0.7.5 reads every shard index from the
	// end, whatever index_location says
	shard := func(loc string) meta.Extension {
		return ext("sharding_indexed", `{"chunk_shape":[4,3],"codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd","configuration":{"level":1}}],
			"index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}],"index_location":"`+loc+`"}`)
	}
	arrays := []struct {
		path   string
		format meta.Format
		dt     string
		shape  []int
		chunks []int
		codecs []meta.Extension
	}{
		{"v3/zstd.f8", meta.V3, "float64", []int{23, 17}, []int{5, 6}, []meta.Extension{ext("bytes", le), ext("zstd", `{"level":3}`)}},
		{"v3/sharded.end.i2", meta.V3, "int16", []int{30, 20}, []int{8, 6}, []meta.Extension{shard("end")}},
		{"v3/transposed.u4", meta.V3, "uint32", []int{6, 7, 8}, []int{3, 4, 5}, []meta.Extension{ext("transpose", `{"order":[2,0,1]}`), ext("bytes", le), ext("gzip", `{"level":1}`)}},
		{"v3/strings", meta.V3, "string", []int{9}, []int{4}, []meta.Extension{ext("vlen-utf8", `{}`)}},
		{"v2/zlib.i4", meta.V2, "int32", []int{40}, []int{7}, []meta.Extension{ext("bytes", le), ext("numcodecs.zlib", `{"level":1}`)}},
	}
	for _, a := range arrays {
		dt := dtype.Named(a.dt)
		m := &meta.ArrayMeta{Format: a.format, Shape: a.shape, ChunkShape: a.chunks, DataType: dt, Codecs: a.codecs,
			ChunkKey: meta.ChunkKeyEncoding{Name: "default", Separator: "/"}, Attributes: json.RawMessage(`{"written_by":"zarrgw"}`)}
		if a.format == meta.V2 {
			m.ChunkKey = meta.ChunkKeyEncoding{Name: "v2", Separator: "."}
		}
		arr, err := hierarchy.CreateArray(ctx, s, a.path, m, array.Options{Codecs: registry.Codecs()})
		if err != nil {
			t.Fatalf("%s: %v", a.path, err)
		}
		// the first three quarters along the first axis; the rest stays fill
		counts := append([]int{}, a.shape...)
		counts[0] = a.shape[0] * 3 / 4
		data := ndarray.New(dt, counts)
		for i := range data.Data {
			data.Data[i] = byte(i*31 + 7)
		}
		for i := range data.Strings {
			data.Strings[i] = []string{"", "a", "zärr", "漢字", "🙂x"}[i%5]
		}
		if err := arr.Write(ctx, grid.Box(make([]int, len(counts)), counts), data); err != nil {
			t.Fatalf("%s: %v", a.path, err)
		}
		w.arrays = append(w.arrays, a.path)
	}
	return w
}
