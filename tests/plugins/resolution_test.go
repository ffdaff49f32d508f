package plugins

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/launcher"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
)

// At run time names resolve in the configuration's order too: a plugin
// serving a bundled codec's name is used for it, and only for it.
func TestPluginWinsOverBundled(t *testing.T) {
	l, _ := newLauncher(t)
	p := addPlugin(t, l, "example.org/fast/zstd", zarrgwBin, nil, "plugin", "serve", "zstd")
	codecs := registry.Bundled().InProcess().WithPlugins(l).Codecs()
	ctx := context.Background()
	z, err := codecs.Codec(ctx, "zstd", json.RawMessage(`{"level":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if pkg := reflect.TypeOf(z).Elem().PkgPath(); !strings.HasSuffix(pkg, "/pluginapi") {
		t.Errorf("zstd is a %T from %s, not the plugin's", z, pkg)
	}
	if st := p.Status(); st.State != launcher.Running {
		t.Errorf("the plugin serving zstd: %+v", st)
	}
	g, err := codecs.Codec(ctx, "gzip", nil)
	if err != nil {
		t.Fatal(err)
	}
	if pkg := reflect.TypeOf(g).Elem().PkgPath(); strings.HasSuffix(pkg, "/pluginapi") {
		t.Errorf("gzip, which no plugin serves, came from a plugin (%T)", g)
	}
}

// A plugin's array->array codec used as a v2 filter goes where numcodecs'
// own filters go, before the bytes codec: its kind comes from the codec
// the plugin builds, not from a table of numcodecs ids. The array round
// trips through a .zarray that names it in filters.
func TestPluginFilterInV2Array(t *testing.T) {
	l, _ := newLauncher(t)
	addPlugin(t, l, "example.org/acme/bitshave", bitshaveBin, nil)
	opts := registry.Bundled().InProcess().WithPlugins(l).ArrayOptions()
	ctx := context.Background()
	s := store.NewMemory()
	m := &meta.ArrayMeta{
		Format: meta.V2, Shape: []int{6}, ChunkShape: []int{4}, DataType: dtype.Named("float32"),
		FillValue: make([]byte, 4), ChunkKey: meta.ChunkKeyEncoding{Name: "v2", Separator: "."},
		Attributes: json.RawMessage(`{}`),
		Codecs: []meta.Extension{
			{Name: "bitshave", Configuration: json.RawMessage(`{"keepbits":3}`)},
			{Name: "bytes", Configuration: json.RawMessage(`{"endian":"little"}`)},
			{Name: "zstd", Configuration: json.RawMessage(`{"level":1}`)},
		},
	}
	a, err := hierarchy.CreateArray(ctx, s, "v2", m, opts)
	if err != nil {
		t.Fatal(err)
	}
	data := float32Data(m.Shape)
	if err := a.WriteAll(ctx, data); err != nil {
		t.Fatal(err)
	}
	doc, err := s.Get(ctx, "v2/.zarray", store.ByteRange{})
	if err != nil {
		t.Fatal(err)
	}
	var zarray struct{ Filters []map[string]any }
	if err := json.Unmarshal(doc.Data, &zarray); err != nil || len(zarray.Filters) != 1 || zarray.Filters[0]["id"] != "bitshave" {
		t.Fatalf(".zarray does not name the filter: %s %v", doc.Data, err)
	}
	b, err := hierarchy.OpenArray(ctx, s, "v2", opts)
	if err != nil {
		t.Fatal(err)
	}
	if c := b.Meta().Codecs; len(c) != 3 || c[0].Name != "bitshave" || c[1].Name != "bytes" {
		t.Fatalf("chain read back: %+v", c)
	}
	got, err := b.ReadAll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantShaved(t, got, data, 3)
}
