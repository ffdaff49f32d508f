package main

import (
	"context"
	"encoding/json"
	"fmt"
	bin "github.com/zarrgw/zarrgw/tests/support/binary"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/launcher"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
)

// demoRegistration is a store package reduced to what one exports: a
// memory store holding one small array, named by its configuration or by
// a demo://NAME LOCATION.
var demoRegistration = store.Registration{
	Manifest: extension.Manifest{
		Kind: extension.Store, Name: "demo",
		ConfigSchema: json.RawMessage(`{"type":"object","required":["name"],"properties":{"name":{"type":"string"}}}`),
	},
	New:     newDemo,
	Schemes: []string{"demo"},
	FromURL: func(u *url.URL) (json.RawMessage, error) { return json.Marshal(map[string]string{"name": u.Host}) },
}

func newDemo(ctx context.Context, config json.RawMessage) (store.Store, error) {
	var c struct{ Name string }
	if err := extension.DecodeConfig(config, &c); err != nil || c.Name == "" {
		return nil, fmt.Errorf("demo: configuration %s: needs a name (%v)", config, err)
	}
	s := store.NewMemory()
	m := &meta.ArrayMeta{
		Format: meta.V3, Shape: []int{4}, ChunkShape: []int{2}, DataType: dtype.Named("int16"),
		FillValue: []byte{0, 0}, ChunkKey: meta.ChunkKeyEncoding{Name: "default", Separator: "/"},
		Attributes: json.RawMessage(`{}`), Codecs: []meta.Extension{{Name: "bytes", Configuration: json.RawMessage(`{"endian":"little"}`)}},
	}
	if _, err := hierarchy.CreateArray(ctx, s, c.Name, m, registry.Bundled().InProcess().ArrayOptions()); err != nil {
		return nil, err
	}
	return s, nil
}

// withDemo is the bundled set plus the demo store: the one line a new
// store adds to plugins/builtin.
func withDemo() registry.Set {
	set := registry.Bundled()
	set.Stores = append(set.Stores, demoRegistration)
	return set
}

// serveAsCLI makes this test binary the zarrgw command with the demo
// store when it runs as one (asked by the environment, or re-executed as
// "zarrgw plugin serve NAME" by a launcher, which passes no environment).
func serveAsCLI() bool {
	if os.Getenv("ZARRGW_TEST_CLI") != "1" && (len(os.Args) < 2 || os.Args[1] != "plugin") {
		return false
	}
	if err := newRoot(withDemo()).ExecuteContext(context.Background()); err != nil {
		fmt.Fprintf(os.Stderr, "zarrgw: %v\n", err)
		os.Exit(1)
	}
	os.Exit(0)
	return true
}

// runDemo runs this test binary as zarrgw with the demo store.
func runDemo(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "ZARRGW_TEST_CLI=1")
	return bin.Run(t, cmd)
}

// Adding a store is one package and one line in the list: a test-only
// store added to the set is seen by validate, plugins list, plugin serve
// and LOCATION, and the bundled zarrgw, without it, sees none of that.
func TestStoreAddedByOneLine(t *testing.T) {
	dir := t.TempDir()
	conf := `store "demo" "a" { name = "arr" }
dataset "d" { store = store.demo.a }
`
	if err := os.WriteFile(filepath.Join(dir, "z.hcl"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(conf, "name =", "nmae =", 1)
	if err := os.WriteFile(filepath.Join(dir, "bad.hcl"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"validate", "-c", "z.hcl"}, 0, "valid: 1 datasets, 1 stores"},
		{[]string{"validate", "-c", "bad.hcl"}, 1, `"nmae"`},
		{[]string{"plugins", "list"}, 0, "demo +store +- +\\(bundled\\) +in process"},
		{[]string{"inspect", "demo://arr"}, 0, regexp.QuoteMeta("arr (array, v3) shape=[4]")},
		{[]string{"cat", "--path", "arr", "--config", "z.hcl", "d"}, 0, regexp.QuoteMeta(`"data": [0, 0, 0, 0]`)},
	}
	for _, c := range checks {
		out, errOut, code := runDemo(t, dir, c.args...)
		if code != c.code || !regexp.MustCompile(c.want).MatchString(out+errOut) {
			t.Errorf("%v: exit %d, want %d and %q:\n%s%s", c.args, code, c.code, c.want, out, errOut)
		}
	}
	// The bundled zarrgw, without that line, knows none of it.
	if _, e, code := run(t, "validate", "-c", filepath.Join(dir, "z.hcl")); code == 0 || !strings.Contains(e, `Unknown store type "demo"`) {
		t.Errorf("bundled validate: exit %d: %s", code, e)
	}
	if _, e, code := run(t, "inspect", "demo://arr"); code == 0 || !strings.Contains(e, `unsupported scheme "demo"`) {
		t.Errorf("bundled inspect: exit %d: %s", code, e)
	}
	if out, _, _ := run(t, "plugins", "list"); strings.Contains(out, "demo") {
		t.Errorf("the bundled zarrgw lists the demo store:\n%s", out)
	}
	servedOutOfProcess(t)
}

// servedOutOfProcess opens the demo store in a plugin: this binary
// re-executed as "zarrgw plugin serve --kind store demo".
func servedOutOfProcess(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	l := launcher.New(launcher.Options{Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	defer l.Close()
	parts, err := withDemo().OutOfProcess(l, self)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := parts.OpenStore(ctx, "demo", json.RawMessage(`{"name":"served"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Get(ctx, "served/zarr.json", store.ByteRange{}); err != nil {
		t.Fatalf("the demo store served out of process: %v", err)
	}
	p, _ := l.Plugin(registry.BundledPrefix + "demo")
	if st := p.Status(); st.State != launcher.Running || st.PID == os.Getpid() {
		t.Fatalf("demo plugin %+v", st)
	}
}
