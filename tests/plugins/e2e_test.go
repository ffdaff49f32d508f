package plugins

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/host/launcher"
	"github.com/zarrgw/zarrgw/host/registry"
	"github.com/zarrgw/zarrgw/plugins/stores/fs"
)

// The example codec, built on its own, is launched by path and checksum,
// and an array whose metadata names it is written and read through the
// engine, with no rebuild of zarrgw (which does not link it).
func TestExternalCodecEndToEnd(t *testing.T) {
	assertNotLinked(t)
	l, _ := newLauncher(t)
	sum, err := launcher.Checksum(bitshaveBin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Add(launcher.Spec{Name: "example.org/acme/bitshave", Path: bitshaveBin, SHA256: sum}); err != nil {
		t.Fatal(err)
	}
	opts := array.Options{Codecs: l.Codecs(registry.Codecs())}
	ctx := context.Background()
	dir := t.TempDir()
	s, err := fs.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m := &meta.ArrayMeta{
		Format: meta.V3, Shape: []int{6, 5}, ChunkShape: []int{4, 4}, DataType: dtype.Named("float32"),
		FillValue: make([]byte, 4), ChunkKey: meta.ChunkKeyEncoding{Name: "default", Separator: "/"},
		Attributes: json.RawMessage(`{}`),
		Codecs: []meta.Extension{
			{Name: "bitshave", Configuration: json.RawMessage(`{"keepbits":3}`), MustUnderstand: true},
			{Name: "bytes", Configuration: json.RawMessage(`{"endian":"little"}`), MustUnderstand: true},
			{Name: "zstd", Configuration: json.RawMessage(`{"level":3,"checksum":false}`), MustUnderstand: true},
		},
	}
	a, err := hierarchy.CreateArray(ctx, s, "shaved", m, opts)
	if err != nil {
		t.Fatal(err)
	}
	data := ndarray.New(m.DataType, m.Shape)
	for i := range data.Len() {
		binary.LittleEndian.PutUint32(data.Data[4*i:], math.Float32bits(1+float32(i)/7))
	}
	if err := a.WriteAll(ctx, data); err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(dir, "shaved", "zarr.json"))
	if err != nil || !strings.Contains(string(doc), `"bitshave"`) {
		t.Fatalf("metadata does not name the codec: %s %v", doc, err)
	}
	b, err := hierarchy.OpenArray(ctx, s, "shaved", opts)
	if err != nil {
		t.Fatal(err)
	}
	got, err := b.ReadAll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range data.Len() {
		in := binary.LittleEndian.Uint32(data.Data[4*i:])
		want := in &^ (1<<(23-3) - 1)
		if g := binary.LittleEndian.Uint32(got.Data[4*i:]); g != want {
			t.Fatalf("element %d: %08x, want %08x (shaved from %08x)", i, g, want, in)
		}
	}
	if st := l.Plugins()[0].Status(); st.State != launcher.Running || st.PID == 0 {
		t.Fatalf("plugin status %+v", st)
	}
}

// assertNotLinked makes sure the host binary does not contain the example
// codec: it must come from the plugin process.
func assertNotLinked(t *testing.T) {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "./cmd/zarrgw")
	cmd.Dir = repoRoot()
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "bitshave") {
		t.Fatal("zarrgw links the bitshave codec")
	}
}
