package install

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/runtime/pluginpkg"
	"github.com/zarrgw/zarrgw/tests/support/servers"
	"github.com/zarrgw/zarrgw/tests/walkthrough"
)

const pyAddress = "example.org/acme/xorpy"

// pythonPlugin writes the Python walk-through's plugin files (entry
// point and codec module) into a new directory and returns it.
func pythonPlugin(t *testing.T) string {
	t.Helper()
	if out, err := exec.Command("/usr/bin/python3", "-c", "import grpc, google.protobuf, numpy, cryptography").CombinedOutput(); err != nil {
		servers.Unavailable(t, "Debian's Python cannot run plugins (%v: %s): run scripts/setup.sh", err, out)
	}
	blocks, err := walkthrough.Parse(filepath.Join(repoRoot(), "pluginapi", "python", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := walkthrough.Write(dir, walkthrough.Of(blocks, "pycodec")); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "xorpy")
}

// A Python plugin the Terraform way: packaged with its files (the entry
// point, its codec module, the SDK) into a mirror, installed by zarrgw
// init, locked with h1: and zh:, used by a dataset. Running it never
// writes bytecode into the installed package (which would change its
// h1:). Then one edited .py file of the installed package, the codec's
// or the SDK's, is refused by every command, naming the plugin, the
// hashes and the command that reinstalls it; init puts it back.
func TestPythonPluginInstalled(t *testing.T) {
	src := pythonPlugin(t)
	mirror := t.TempDir()
	pub := newMachine(t, "")
	pub.must(t.TempDir(), "plugins", "package", "--address", pyAddress, "--version", "1.0.0", "--mirror", mirror,
		filepath.Join(src, "plugin.py"), filepath.Join(src, "xor_codec.py"),
		filepath.Join(repoRoot(), "pluginapi", "python", "zarrgw_plugin"))

	m := newMachine(t, fsMirror(mirror))
	dir := t.TempDir()
	write(t, filepath.Join(dir, "zarrgw.hcl"), fmt.Sprintf(`plugin %q {
  version = "1.0.0"
}

store "fs" "local" {
  root        = "./data"
  create_root = true
}

dataset "lab" {
  store = store.fs.local
  codec "bytes" {
    endian = "little"
  }
  codec "xorpy" {
    key = 42
  }
}
`, pyAddress))
	m.must(dir, "init", "-c", "zarrgw.hcl")
	lock, diags := config.LoadLock(filepath.Join(dir, config.LockFileName))
	entry, ok := lock.Plugins[pyAddress]
	if diags.HasErrors() || !ok {
		t.Fatalf("lock: %+v %v", lock.Plugins, diags)
	}
	var h1, zh bool
	for _, h := range entry.Hashes {
		h1 = h1 || strings.HasPrefix(h, pluginpkg.H1)
		zh = zh || strings.HasPrefix(h, pluginpkg.ZH)
	}
	if !h1 || !zh || strings.Join(entry.Serves.Codecs, ",") != "xorpy" {
		t.Fatalf("lock entry: hashes %v, codecs %v", entry.Hashes, entry.Serves.Codecs)
	}

	inst := filepath.Join(dir, ".zarrgw", "plugins", filepath.FromSlash(pyAddress), "1.0.0", here)
	for _, f := range []string{"zarrgw-plugin-xorpy_v1.0.0", "xor_codec.py", "zarrgw_plugin/server.py", "zarrgw_plugin/_proto/zarrgw/v1/codec_pb2.py"} {
		if _, err := os.Stat(filepath.Join(inst, filepath.FromSlash(f))); err != nil {
			t.Fatalf("installed package lacks %s: %v", f, err)
		}
	}
	m.must(dir, "create", "-c", "zarrgw.hcl", "lab", "--path", "t", "--shape", "4", "--dtype", "uint8")
	in := filepath.Join(t.TempDir(), "in.raw")
	write(t, in, "zarr")
	m.must(dir, "write", "-c", "zarrgw.hcl", "lab", "--path", "t", "--format", "raw", "--from", in)
	checkXorRead(t, m, dir)
	if chunk := read(t, filepath.Join(dir, "data", "t", "c", "0")); string(chunk) != string([]byte{'z' ^ 42, 'a' ^ 42, 'r' ^ 42, 'r' ^ 42}) {
		t.Fatalf("the chunk holds % x: not XORed by the plugin", chunk)
	}
	filepath.WalkDir(inst, func(path string, d fs.DirEntry, err error) error {
		if err == nil && (d.Name() == "__pycache__" || strings.HasSuffix(path, ".pyc")) {
			t.Errorf("running the plugin wrote %s into its installed package", path)
		}
		return err
	})
	checkXorRead(t, m, dir) // a second run still matches the lock

	for _, edited := range []string{"xor_codec.py", "zarrgw_plugin/service.py"} {
		t.Run(edited, func(t *testing.T) {
			path := filepath.Join(inst, filepath.FromSlash(edited))
			original := read(t, path)
			write(t, path, string(original)+"\n# edited\n")
			actual, err := pluginpkg.HashDir(inst)
			if err != nil {
				t.Fatal(err)
			}
			everyCommandRefuses(t, m, dir, in, "an edited "+edited, pyAddress, actual, "zarrgw init -c zarrgw.hcl")
			m.must(dir, "init", "-c", "zarrgw.hcl") // reinstalls what the lock vouches for
			if got := read(t, path); string(got) != string(original) {
				t.Fatalf("init left the edited %s in place", edited)
			}
			checkXorRead(t, m, dir)
		})
	}
}

// checkXorRead reads the Python plugin's array back: "zarr".
func checkXorRead(t *testing.T, m *machine, dir string) {
	t.Helper()
	out := m.must(dir, "cat", "-c", "zarrgw.hcl", "lab", "--path", "t")
	var doc struct{ Data []float64 }
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Data) != 4 {
		t.Fatalf("cat printed %q (%v)", out, err)
	}
	for i, c := range "zarr" {
		if doc.Data[i] != float64(c) {
			t.Fatalf("read %v, want the bytes of zarr", doc.Data)
		}
	}
}
