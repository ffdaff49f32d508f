package plugins

import (
	bin "github.com/zarrgw/zarrgw/tests/support/binary"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/host/runtime/launcher"
)

// zarrgw runs the zarrgw command in dir and returns its standard output,
// standard error and exit code.
func zarrgw(t *testing.T, dir string, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(zarrgwBin, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	return bin.Run(t, cmd)
}

const gatedConfig = `plugin "example.org/test/gate-plugin" {
  path = "./bin/plugin"
  args = ["codec"]
}

store "fs" "local" {
  root        = "./data"
  create_root = true
}

dataset "lab" {
  store = store.fs.local
  codec "bytes" {}
  codec "test.gate" {}
}
`

// Each step of a new user's way from an unpinned plugin to a dataset that
// reads through it says one thing, and what to do next: the plugin's
// address ends in neither of the names it serves.
func TestPluginMessages(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin", "plugin")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, testPluginBin, bin)
	if err := os.WriteFile(filepath.Join(dir, "zarrgw.hcl"), []byte(gatedConfig), 0o644); err != nil {
		t.Fatal(err)
	}

	// Unpinned: one error, which says to lock; nothing about the codec.
	_, stderr, code := zarrgw(t, dir, "", "validate", "-c", "zarrgw.hcl")
	if code == 0 || strings.Count(stderr, "Error:") != 1 || !strings.Contains(stderr, `Plugin "example.org/test/gate-plugin" is not pinned`) ||
		!strings.Contains(stderr, "zarrgw plugins lock -c zarrgw.hcl") || strings.Contains(stderr, "test.gate") {
		t.Fatalf("validate before locking: exit %d\n%s", code, stderr)
	}

	// Locking starts the plugin and records what it serves.
	stdout, stderr, code := zarrgw(t, dir, "", "plugins", "lock", "-c", "zarrgw.hcl")
	if code != 0 || !strings.Contains(stdout, "serves codec test.crashonce, codec test.gate, codec test.hang") {
		t.Fatalf("lock: exit %d\n%s%s", code, stdout, stderr)
	}
	lock, _ := os.ReadFile(filepath.Join(dir, "zarrgw.lock.hcl"))
	if !regexp.MustCompile(`codecs += \["test.crashonce", "test.gate", "test.hang"\]`).Match(lock) {
		t.Fatalf("lock file:\n%s", lock)
	}
	if _, stderr, code := zarrgw(t, dir, "", "create", "-c", "zarrgw.hcl", "lab", "--path", "a", "--shape", "4", "--dtype", "uint8"); code != 0 {
		t.Fatalf("create: %s", stderr)
	}
	if _, stderr, code := zarrgw(t, dir, "abcd", "write", "-c", "zarrgw.hcl", "lab", "--path", "a", "--format", "raw"); code != 0 {
		t.Fatalf("write: %s", stderr)
	}

	// Without --config, the codec is not known, and the error says why.
	_, stderr, code = zarrgw(t, dir, "", "cat", "data", "--path", "a")
	if code == 0 || !strings.Contains(stderr, `"test.gate" is not bundled with zarrgw`) || !strings.Contains(stderr, "--config") {
		t.Fatalf("cat without the configuration: exit %d\n%s", code, stderr)
	}

	// A rebuilt binary is refused with its checksum and the command that
	// records it.
	copyFile(t, bitshaveBin, bin)
	sum, err := launcher.Checksum(bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"validate", "-c", "zarrgw.hcl"}, {"cat", "-c", "zarrgw.hcl", "lab", "--path", "a"}} {
		_, stderr, code = zarrgw(t, dir, "", args...)
		if code == 0 || !strings.Contains(stderr, sum) || !strings.Contains(stderr, "zarrgw plugins lock -c zarrgw.hcl") {
			t.Fatalf("%v with a changed binary: exit %d\n%s", args, code, stderr)
		}
	}

	// A listing with a plugin that fails exits non-zero.
	stdout, stderr, code = zarrgw(t, dir, "", "plugins", "list", "--plugin", bin+"@"+strings.Repeat("0", 64))
	if code == 0 || !strings.Contains(stdout+stderr, "does not match its pinned sha256") {
		t.Fatalf("plugins list with a failing plugin: exit %d\n%s%s", code, stdout, stderr)
	}
}

// A pinned binary that is not a plugin fails once, naming the plugin
// once: no "Plugin X: plugin X: ...".
func TestProbeFailureNamesThePluginOnce(t *testing.T) {
	dir := t.TempDir()
	sum, err := launcher.Checksum(testPluginBin)
	if err != nil {
		t.Fatal(err)
	}
	src := `plugin "example.org/test/notplugin" {
  path   = "` + testPluginBin + `"
  sha256 = "` + sum + `"
  args   = ["notplugin"]
}
`
	if err := os.WriteFile(filepath.Join(dir, "zarrgw.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := zarrgw(t, dir, "", "validate", "-c", "zarrgw.hcl")
	if code == 0 || !strings.Contains(stderr, "could not be probed") || strings.Contains(stderr, "plugin example.org/test/notplugin:") {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
}
