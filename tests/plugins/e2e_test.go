package plugins

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/host/runtime/launcher"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/plugins/stores/fsstore"
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
	opts := registry.Bundled().InProcess().WithPlugins(l).ArrayOptions()
	ctx := context.Background()
	dir := t.TempDir()
	s, err := fsstore.New(dir)
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
	data := float32Data(m.Shape)
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
	wantShaved(t, got, data, 3)
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

// The same without any Go code of ours in between: the zarrgw binary and
// the plugin binary come from two separate go builds (TestMain); an HCL
// file pins the plugin by path and checksum and gives a dataset whose
// codec blocks name it; zarrgw validates the file (starting the plugin to
// check keepbits against its schema), creates an array, writes a .npy
// into it and prints it back.
func TestExternalCodecThroughHCL(t *testing.T) {
	dir := t.TempDir()
	sum, err := launcher.Checksum(bitshaveBin)
	if err != nil {
		t.Fatal(err)
	}
	cfg := writeBitshaveConfig(t, dir, sum, 3)
	run := func(stdin []byte, args ...string) (string, error) {
		cmd := exec.Command(zarrgwBin, args...)
		cmd.Dir = dir
		cmd.Stdin = bytes.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	mustRun := func(stdin []byte, args ...string) string {
		t.Helper()
		out, err := run(stdin, args...)
		if err != nil {
			t.Fatalf("zarrgw %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	mustRun(nil, "validate", "-c", cfg)
	mustRun(nil, "create", "-c", cfg, "lab", "--path", "runs/shaved", "--shape", "6,5", "--chunks", "4,4", "--dtype", "float32")
	doc, err := os.ReadFile(filepath.Join(dir, "data", "lab.zarr", "runs", "shaved", "zarr.json"))
	if err != nil || !strings.Contains(string(doc), `"bitshave"`) || !strings.Contains(string(doc), `"keepbits": 3`) {
		t.Fatalf("metadata does not name the codec: %s %v", doc, err)
	}
	in := make([]float32, 30)
	for i := range in {
		in[i] = 1 + float32(i)/7
	}
	mustRun(npyFloat32(in, 6, 5), "write", "-c", cfg, "lab", "--path", "runs/shaved")
	chunk, err := os.ReadFile(filepath.Join(dir, "data", "lab.zarr", "runs", "shaved", "c", "0", "0"))
	if err != nil || !bytes.HasPrefix(chunk, []byte{0x28, 0xb5, 0x2f, 0xfd}) {
		t.Fatalf("chunk c/0/0 is not a zstd frame: % x %v", chunk[:min(4, len(chunk))], err)
	}
	var got struct {
		Shape []int     `json:"shape"`
		Data  []float64 `json:"data"`
	}
	out := mustRun(nil, "cat", "-c", cfg, "lab", "--path", "runs/shaved")
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got.Data) != len(in) {
		t.Fatalf("cat printed %q (%v)", out, err)
	}
	for i, v := range in {
		want := math.Float32frombits(math.Float32bits(v) &^ (1<<(23-3) - 1))
		if float32(got.Data[i]) != want {
			t.Fatalf("element %d: %v, want %v (shaved from %v)", i, got.Data[i], want, v)
		}
	}

	// A checksum that does not match stops the plugin before it runs, and
	// the command fails naming it; a keepbits its schema refuses is an HCL
	// diagnostic on its line.
	bad := writeBitshaveConfig(t, dir, strings.Repeat("0", 64), 3)
	if out, err := run(nil, "cat", "-c", bad, "lab", "--path", "runs/shaved"); err == nil || !strings.Contains(out, "example.org/acme/bitshave") {
		t.Fatalf("mismatched checksum: %v\n%s", err, out)
	}
	bad = writeBitshaveConfig(t, dir, sum, 99)
	if out, err := run(nil, "validate", "-c", bad); err == nil || !strings.Contains(out, "line 13") || !strings.Contains(out, "keepbits") {
		t.Fatalf("keepbits = 99 accepted or not pointed at: %v\n%s", err, out)
	}
}

// writeBitshaveConfig writes a configuration naming the example codec
// binary with checksum sum, and returns its file name.
func writeBitshaveConfig(t *testing.T, dir, sum string, keepbits int) string {
	t.Helper()
	src := fmt.Sprintf(`plugin "example.org/acme/bitshave" {
  path   = %q
  sha256 = %q
}
store "fs" "local" {
  root        = "./data"
  create_root = true
}
dataset "lab" {
  store  = store.fs.local
  prefix = "lab.zarr"
  codec "bitshave" {
    keepbits = %d
  }
  codec "bytes" {
    endian = "little"
  }
  codec "zstd" {
    level = 3
  }
}
`, bitshaveBin, sum, keepbits)
	name := fmt.Sprintf("zarrgw-%d-%s.hcl", keepbits, sum[:8])
	if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// npyFloat32 is a .npy document of little-endian float32 in C order,
// written here by hand from the format's description.
func npyFloat32(v []float32, rows, cols int) []byte {
	dict := fmt.Sprintf("{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }", rows, cols)
	dict += strings.Repeat(" ", 63-(10+len(dict))%64) + "\n"
	out := append([]byte("\x93NUMPY\x01\x00"), byte(len(dict)), byte(len(dict)>>8))
	out = append(out, dict...)
	for _, f := range v {
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(f))
	}
	return out
}

// float32Data is an array of distinct float32 values with mantissa bits to
// shave.
func float32Data(shape []int) *ndarray.Array {
	data := ndarray.New(dtype.Named("float32"), shape)
	for i := range data.Len() {
		binary.LittleEndian.PutUint32(data.Data[4*i:], math.Float32bits(1+float32(i)/7))
	}
	return data
}

// wantShaved fails unless got is data with float32 mantissas shaved to
// keepbits bits.
func wantShaved(t *testing.T, got, data *ndarray.Array, keepbits int) {
	t.Helper()
	for i := range data.Len() {
		in := binary.LittleEndian.Uint32(data.Data[4*i:])
		want := in &^ (1<<(23-keepbits) - 1)
		if g := binary.LittleEndian.Uint32(got.Data[4*i:]); g != want {
			t.Fatalf("element %d: %08x, want %08x (shaved from %08x)", i, g, want, in)
		}
	}
}
