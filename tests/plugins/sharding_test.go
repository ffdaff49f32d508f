package plugins

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/commands/render"
	"github.com/zarrgw/zarrgw/host/runtime/launcher"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/plugins/codecs/sharding"
	"github.com/zarrgw/zarrgw/tests/support/fixtures"
)

// countingStore counts the reads of chunk data and the bytes they return.
type countingStore struct {
	store.Store
	gets, bytes atomic.Int64
}

func (c *countingStore) Get(ctx context.Context, key string, r store.ByteRange) (store.Value, error) {
	v, err := c.Store.Get(ctx, key, r)
	if !strings.HasSuffix(key, "zarr.json") {
		c.gets.Add(1)
		c.bytes.Add(int64(len(v.Data)))
	}
	return v, err
}

// sharding_indexed in a plugin decodes regions from the byte ranges it
// asks the host for, as it does in process: one inner chunk of a large
// shard costs two reads (index, chunk) and no more bytes than they hold;
// a shard not stored reads as the fill value; every element comes back.
func TestShardingPartialReadsOutOfProcess(t *testing.T) {
	l, _ := newLauncher(t)
	parts, err := registry.Bundled().OutOfProcess(l, zarrgwBin)
	if err != nil {
		t.Fatal(err)
	}
	codecs := parts.Codecs()
	const (
		indexBytes = 64*16 + 4 // 64 entries and a crc32c
		chunkBytes = 8 * 8 * 4 // one inner chunk of int32
	)
	cfg := `{"chunk_shape":[8,8],"codecs":[{"name":"bytes","configuration":{"endian":"little"}}],
		"index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}],"index_location":"end"}`
	c, err := codecs.Codec(context.Background(), "sharding_indexed", json.RawMessage(cfg))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.(codec.PartialDecoder); !ok {
		t.Fatalf("sharding_indexed from its plugin is a %T, not a partial decoder", c)
	}
	m := &meta.ArrayMeta{
		Format: meta.V3, Shape: []int{128, 64}, ChunkShape: []int{64, 64}, DataType: dtype.Named("int32"),
		FillValue: []byte{7, 0, 0, 0}, ChunkKey: meta.ChunkKeyEncoding{Name: "default", Separator: "/"},
		Attributes: json.RawMessage(`{}`),
		Codecs:     []meta.Extension{{Name: "sharding_indexed", Configuration: json.RawMessage(cfg), MustUnderstand: true}},
	}
	opts := array.Options{Codecs: codecs}
	ctx := context.Background()
	mem := store.NewMemory()
	a, err := hierarchy.CreateArray(ctx, mem, "big", m, opts)
	if err != nil {
		t.Fatal(err)
	}
	top := grid.Box([]int{0, 0}, []int{64, 64}) // the second shard stays unwritten
	data := ndarray.New(m.DataType, []int{64, 64})
	for i := range data.Len() {
		binary.LittleEndian.PutUint32(data.Data[4*i:], uint32(i+1))
	}
	if err := a.Write(ctx, top, data); err != nil {
		t.Fatal(err)
	}

	counted := &countingStore{Store: mem}
	// without the optional operations of mem: every read is a counted Get
	b, err := hierarchy.OpenArray(ctx, store.WithOptional(counted, store.Optional{}), "big", opts)
	if err != nil {
		t.Fatal(err)
	}
	got, err := b.Read(ctx, grid.Box([]int{8, 16}, []int{8, 8}))
	if err != nil {
		t.Fatal(err)
	}
	if n, size := counted.gets.Load(), counted.bytes.Load(); n != 2 || size > indexBytes+chunkBytes {
		t.Errorf("one inner chunk: %d reads of %d bytes, want 2 of at most %d", n, size, indexBytes+chunkBytes)
	}
	for r := range 8 {
		for col := range 8 {
			want := uint32((8+r)*64 + 16 + col + 1)
			if v := binary.LittleEndian.Uint32(got.Data[4*(r*8+col):]); v != want {
				t.Fatalf("element [%d %d] = %d, want %d", 8+r, 16+col, v, want)
			}
		}
	}
	all, err := b.ReadAll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 128 * 64 {
		want := uint32(i + 1)
		if i >= 64*64 {
			want = 7 // the fill value of the shard never written
		}
		if v := binary.LittleEndian.Uint32(all.Data[4*i:]); v != want {
			t.Fatalf("element %d = %d, want %d", i, v, want)
		}
	}
}

// inspect describes shard layouts through codec.LayoutDescriber, so a
// sharding codec in a plugin shows its layout and fill as in process: the
// fixture holds one empty inner chunk of 16 (MANIFEST.md).
func TestShardLayoutOutOfProcess(t *testing.T) {
	dir := fixtures.Dir(t)
	l, _ := newLauncher(t)
	parts, err := registry.Bundled().OutOfProcess(l, zarrgwBin)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := fsOpener(parts)(filepath.Join(dir, "zarrita-js/v3/data.zarr"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a, err := hierarchy.OpenArray(ctx, s, "2d.chunked.compressed.sharded.filled.i2", parts.ArrayOptions())
	if err != nil {
		t.Fatal(err)
	}
	if ab, _ := a.Pipeline().ArrayBytes(); reflect.TypeOf(ab) == reflect.TypeOf(&sharding.Codec{}) {
		t.Fatal("the sharding codec runs in process")
	}
	var out bytes.Buffer
	n, err := hierarchy.Open(ctx, s, "2d.chunked.compressed.sharded.filled.i2")
	if err != nil {
		t.Fatal(err)
	}
	if err := render.Tree(ctx, &out, s, n, parts.ArrayOptions()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"shard [2 2], inner [1 1]", "index end", "filled 15/16 inner chunks"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("inspect output lacks %q:\n%s", want, out.String())
		}
	}
	if st, _ := l.Plugin(registry.BundledPrefix + "sharding_indexed"); st.Status().State != launcher.Running {
		t.Errorf("sharding_indexed plugin %+v: the layout did not come from it", st.Status())
	}
}
