package security

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/runtime/pluginpkg"
	bin "github.com/zarrgw/zarrgw/tests/support/binary"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// Plugin files are trusted only as pinned: a Python plugin's modules as
// well as its script, and only files that no other user can change. Each
// test runs the zarrgw command as a user does, on a configuration with a
// plugin given by path.

// pluginPython runs Python plugins: Debian's, with python3-grpcio,
// python3-protobuf, python3-numpy and python3-cryptography.
const pluginPython = "/usr/bin/python3"

// pluginXorCodec is the Python walk-through's codec module (xorpy).
const pluginXorCodec = `import numpy as np
import zarrgw_plugin as zp


class Xor(zp.BytesBytesCodec):
    manifest = zp.Manifest("xorpy", version="1.0.0", config_schema={
        "type": "object", "required": ["key"], "additionalProperties": False,
        "properties": {"key": {"type": "integer", "minimum": 0, "maximum": 255}}})

    def __init__(self, config):
        self.key = config["key"]

    def configuration(self):
        return {"key": self.key}

    def encode(self, data, spec):
        return np.bitwise_xor(np.frombuffer(data, dtype=np.uint8), self.key)

    def decode(self, data, spec):
        return np.bitwise_xor(np.frombuffer(data, dtype=np.uint8), self.key)
`

// pluginPythonDir lays out a Python plugin as the walk-through does (its
// entry point, its codec module, a copy of the SDK) in a directory of
// its own under root, with a configuration beside it whose dataset's
// chunks go through the codec, and returns the configuration's path.
func pluginPythonDir(t *testing.T, root string) string {
	t.Helper()
	if out, err := exec.Command(pluginPython, "-c", "import grpc, google.protobuf, numpy, cryptography").CombinedOutput(); err != nil {
		servers.Unavailable(t, "Debian's Python cannot run plugins (%v: %s): run scripts/setup.sh", err, out)
	}
	dir := filepath.Join(root, "xorpy")
	pluginWriteFile(t, filepath.Join(dir, "plugin.py"), "#!"+pluginPython+"\nimport xor_codec\nimport zarrgw_plugin\nzarrgw_plugin.serve(xor_codec.Xor)\n", 0o755)
	pluginWriteFile(t, filepath.Join(dir, "xor_codec.py"), pluginXorCodec, 0o644)
	_, file, _, _ := runtime.Caller(0)
	pluginCopyTree(t, filepath.Join(filepath.Dir(file), "..", "..", "pluginapi", "python", "zarrgw_plugin"), filepath.Join(dir, "zarrgw_plugin"))
	cfg := filepath.Join(root, "zarrgw.hcl")
	pluginWriteFile(t, cfg, `plugin "example.com/tmp/xorpy" {
  path = "./xorpy/plugin.py"
}
store "fs" "local" {
  root        = "./data"
  create_root = true
}
dataset "lab" {
  store  = store.fs.local
  prefix = "lab.zarr"
  codec "bytes" {}
  codec "xorpy" {
    key = 42
  }
}
`, 0o644)
	return cfg
}

// pluginPythonArray pins the plugin (zarrgw plugins lock), creates an array
// through it and writes 16 bytes, which cat then prints back.
func pluginPythonArray(t *testing.T, cfg string) {
	t.Helper()
	pluginCmdOK(t, nil, "plugins", "lock", "-c", cfg)
	pluginCmdOK(t, nil, "create", "-c", cfg, "lab", "--path", "t", "--shape", "4,4", "--chunks", "2,2", "--dtype", "uint8")
	pluginCmdOK(t, []byte("abcdefghijklmnop"), "write", "-c", cfg, "lab", "--path", "t", "--format", "raw")
	if out := pluginCmdOK(t, nil, "cat", "-c", cfg, "lab", "--path", "t", "--format", "raw"); out != "abcdefghijklmnop" {
		t.Fatalf("cat printed %q", out)
	}
}

// A Python plugin's module edited after the plugin was pinned never runs:
// the read through the plugin is refused with an error naming the plugin,
// its directory and both hashes of its Python files, and the edited
// module's first line (which leaves a file behind) has not run. Where
// only the script is pinned, the edited module runs.
func TestPythonModuleEditedAfterPinning(t *testing.T) {
	root := t.TempDir()
	cfg := pluginPythonDir(t, root)
	pluginPythonArray(t, cfg)
	dir := filepath.Join(root, "xorpy")
	ran := filepath.Join(root, "edited-module-ran")
	edited := fmt.Sprintf("open(%q, 'w').close()\n", ran) + pluginXorCodec
	pluginWriteFile(t, filepath.Join(dir, "xor_codec.py"), edited, 0o644)
	out, errOut, code := pluginCmd(t, nil, "cat", "-c", cfg, "lab", "--path", "t", "--format", "raw")
	if _, err := os.Stat(ran); err == nil {
		t.Fatalf("the module edited after pinning ran (cat exited %d, printed %q)", code, out)
	}
	for _, part := range []string{"example.com/tmp/xorpy", dir, "one was changed, added or removed"} {
		if code == 0 || !strings.Contains(errOut, part) {
			t.Fatalf("cat after the edit exited %d without naming %q:\n%s", code, part, errOut)
		}
	}
	// Pinned again, the plugin as it is now runs, edited module and all.
	pluginCmdOK(t, nil, "plugins", "lock", "-c", cfg)
	if out := pluginCmdOK(t, nil, "cat", "-c", cfg, "lab", "--path", "t", "--format", "raw"); out != "abcdefghijklmnop" {
		t.Fatalf("after locking again, cat printed %q", out)
	}
	if _, err := os.Stat(ran); err != nil {
		t.Fatalf("locked again, the edited module did not run: %v", err)
	}
}

// A lock file written before Python plugins' modules were pinned (the
// script's sha256 alone) no longer runs the plugin: every command says the
// Python files are not pinned and how to pin them, and after that command
// the plugin runs.
func TestPythonPinOfScriptAlone(t *testing.T) {
	root := t.TempDir()
	cfg := pluginPythonDir(t, root)
	pluginPythonArray(t, cfg)
	lockPath := config.LockPathFor(cfg)
	lock, diags := config.LoadLock(lockPath)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	entry := lock.Plugins["example.com/tmp/xorpy"]
	if !strings.HasPrefix(entry.Modules, "h1:") {
		t.Fatalf("zarrgw plugins lock recorded no hash of the plugin's Python files: %+v", entry)
	}
	entry.Modules = ""
	lock.Plugins["example.com/tmp/xorpy"] = entry
	if err := config.WriteLock(lockPath, lock); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := pluginCmd(t, nil, "cat", "-c", cfg, "lab", "--path", "t", "--format", "raw")
	for _, part := range []string{`Python files of plugin "example.com/tmp/xorpy" not pinned`, "zarrgw plugins lock -c " + cfg} {
		if code == 0 || !strings.Contains(errOut, part) {
			t.Fatalf("cat with the script alone pinned exited %d without %q:\n%s", code, part, errOut)
		}
	}
	pluginCmdOK(t, nil, "plugins", "lock", "-c", cfg)
	if out := pluginCmdOK(t, nil, "cat", "-c", cfg, "lab", "--path", "t", "--format", "raw"); out != "abcdefghijklmnop" {
		t.Fatalf("locked again, cat printed %q", out)
	}
}

// A plugin whose file, or a directory above it, another user could write
// to never starts: the command fails naming the plugin, the file or
// directory and the fix. The plugin is zarrgw itself serving its zstd
// codec (as a plugin block may run any bundled extension out of
// process), so a dataset whose chunks are zstd-compressed needs it. Where
// nothing is checked, each of them runs.
func TestPluginWritableByOthers(t *testing.T) {
	root := t.TempDir()
	plugins := filepath.Join(root, "plugins")
	exe := filepath.Join(plugins, "zarrgw-plugin-zstd")
	b, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	pluginWriteFile(t, exe, string(b), 0o755)
	sum, err := pluginpkg.FileSHA256(exe)
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(root, "zarrgw.hcl")
	pluginWriteFile(t, cfg, fmt.Sprintf(`plugin "example.org/test/zstd" {
  path   = "./plugins/zarrgw-plugin-zstd"
  sha256 = %q
  args   = ["plugin", "serve", "zstd"]
}
store "fs" "local" {
  root        = "./data"
  create_root = true
}
dataset "lab" {
  store  = store.fs.local
  codec "bytes" {}
  codec "zstd" {}
}
`, sum), 0o644)
	pluginCmdOK(t, nil, "create", "-c", cfg, "lab", "--path", "t", "--shape", "16", "--chunks", "4", "--dtype", "uint8")
	pluginCmdOK(t, []byte("0123456789abcdef"), "write", "-c", cfg, "lab", "--path", "t", "--format", "raw")
	for _, c := range []struct {
		name, path string
		mode       fs.FileMode
		want       string
	}{
		{"the plugin writable by others", exe, 0o757, exe + " is writable by others"},
		{"its directory writable by its group", plugins, 0o775, plugins + " is writable by its group"},
	} {
		t.Run(c.name, func(t *testing.T) {
			info, err := os.Stat(c.path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(c.path, c.mode); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := pluginCmd(t, nil, "cat", "-c", cfg, "lab", "--path", "t", "--format", "raw")
			os.Chmod(c.path, info.Mode().Perm())
			for _, part := range []string{"example.org/test/zstd", c.want, "chmod go-w"} {
				if code == 0 || !strings.Contains(errOut, part) {
					t.Fatalf("cat exited %d, printing %q, without naming %q:\n%s", code, out, part, errOut)
				}
			}
		})
	}
	if out := pluginCmdOK(t, nil, "cat", "-c", cfg, "lab", "--path", "t", "--format", "raw"); out != "0123456789abcdef" {
		t.Fatalf("with the modes restored, cat printed %q", out)
	}
}

// pluginCmd runs zarrgw with args.
// Its standard error comes with every run of white space made one space:
// diagnostics wrap their lines wherever a long path falls.
func pluginCmd(t *testing.T, stdin []byte, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	// A CLI configuration of the user running the tests must not apply.
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), "ZARRGW_CLI_CONFIG_FILE=")
	stdout, stderr, code = bin.Run(t, cmd)
	return stdout, strings.Join(strings.Fields(stderr), " "), code
}

// pluginCmdOK is pluginCmd for a command that must succeed; it returns what it
// printed.
func pluginCmdOK(t *testing.T, stdin []byte, args ...string) string {
	t.Helper()
	out, errOut, code := pluginCmd(t, stdin, args...)
	if code != 0 {
		t.Fatalf("zarrgw %s exited %d:\n%s", strings.Join(args, " "), code, errOut)
	}
	return out
}

func pluginWriteFile(t *testing.T, path, content string, mode fs.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

// pluginCopyTree copies the files of from (Python's bytecode cache left out)
// into to.
func pluginCopyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.Name() == "__pycache__" {
				return filepath.SkipDir
			}
			return err
		}
		rel, _ := filepath.Rel(from, path)
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		pluginWriteFile(t, filepath.Join(to, rel), string(b), 0o644)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
