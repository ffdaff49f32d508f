package plugins

import (
	"context"
	"encoding/json"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/launcher"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
)

// An array whose metadata names a storage transformer served by a plugin
// is written and read through it: chunks land where the transformer puts
// them, in the store the host owns.
func TestArrayThroughPluginTransformer(t *testing.T) {
	sum, err := launcher.Checksum(keyprefixBin)
	if err != nil {
		t.Fatal(err)
	}
	spec := launcher.Spec{Name: "example.org/test/prefix", Path: keyprefixBin, SHA256: sum}
	ms, err := launcher.Probe(context.Background(), spec, launcher.Options{})
	if _, ok := extension.Find(ms, extension.Transformer, "keyprefix"); err != nil || !ok {
		t.Fatalf("probe: %v %v", ms, err)
	}
	l, _ := newLauncher(t)
	if _, err := l.Add(spec); err != nil {
		t.Fatal(err)
	}
	opts := registry.Bundled().InProcess().WithPlugins(l).ArrayOptions()
	s := store.NewMemory()
	m := &meta.ArrayMeta{
		Format: meta.V3, Shape: []int{4}, ChunkShape: []int{2}, DataType: dtype.Named("uint8"), FillValue: []byte{0},
		ChunkKey: meta.ChunkKeyEncoding{Name: "default", Separator: "/"}, Attributes: json.RawMessage(`{}`),
		Codecs:              []meta.Extension{{Name: "bytes"}},
		StorageTransformers: []meta.Extension{{Name: "keyprefix", Configuration: json.RawMessage(`{"prefix":"moved/"}`), MustUnderstand: true}},
	}
	ctx := context.Background()
	a, err := hierarchy.CreateArray(ctx, s, "arr", m, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.WriteAll(ctx, filled(4, 7)); err != nil {
		t.Fatal(err)
	}
	keys, err := store.ListAll(ctx, s, "")
	if err != nil {
		t.Fatal(err)
	}
	moved := 0
	for _, k := range keys {
		if strings.HasPrefix(k, "moved/") {
			moved++
		}
	}
	if moved != 2 {
		t.Fatalf("keys %v: want the 2 chunks under moved/", keys)
	}
	b, err := hierarchy.OpenArray(ctx, s, "arr", opts)
	if err != nil {
		t.Fatal(err)
	}
	got, err := b.ReadAll(ctx)
	if err != nil || string(got.Data) != "\x07\x07\x07\x07" {
		t.Fatalf("read %q, %v", got.Data, err)
	}
}

// Transformers nobody closes (the array layer never does) release their
// broker servers and plugin instances once garbage collected; an explicit
// Close closes the store below, as in process.
func TestTransformersDoNotLeak(t *testing.T) {
	l, _ := newLauncher(t)
	p := addPlugin(t, l, "example.org/test/prefix", keyprefixBin, nil)
	ctx := context.Background()
	next := store.NewMemory()
	use := func() {
		s, err := p.Transformer(ctx, "keyprefix", json.RawMessage(`{"prefix":"p/"}`), next)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Set(ctx, "k", []byte("v"), store.Condition{}); err != nil {
			t.Fatal(err)
		}
	}
	use() // warm up: the plugin connection and its arena
	before := openFiles(t)
	for range 40 {
		use()
	}
	deadline := time.Now().Add(time.Minute)
	for openFiles(t) > before+4 {
		if time.Now().After(deadline) {
			t.Fatalf("%d files open, %d before 40 dropped transformers", openFiles(t), before)
		}
		runtime.GC()
		time.Sleep(20 * time.Millisecond)
	}
}

func openFiles(t *testing.T) int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc:", err)
	}
	return len(entries)
}
