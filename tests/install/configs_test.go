package install

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/host/runtime/config"
)

// labConfig is a configuration whose dataset lab, below prefix, takes its
// first codec from the plugin: installed by version when plugin starts
// with a constraint operator or a digit, else the binary at that path.
func labConfig(plugin, prefix string) string {
	decl := fmt.Sprintf("  version = %q\n", plugin)
	if strings.HasPrefix(plugin, "/") {
		decl = fmt.Sprintf("  path = %q\n", plugin)
	}
	return fmt.Sprintf(`plugin %q {
%s}

store "fs" "local" {
  root        = "./data"
  create_root = true
}

dataset "lab" {
  store  = store.fs.local
  prefix = %q
  codec "bitshave" {
    keepbits = 3
  }
  codec "bytes" {
    endian = "little"
  }
}
`, address, decl, prefix)
}

// roundTrip writes values through the lab dataset of the configuration
// file and reads them back shaved.
func roundTrip(t *testing.T, m *machine, dir, file string) {
	t.Helper()
	m.must(dir, "create", "-c", file, "lab", "--path", "t", "--shape", "4", "--dtype", "float32")
	raw := make([]byte, 0, 16)
	for _, v := range values {
		raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(v))
	}
	in := filepath.Join(t.TempDir(), "in.raw")
	write(t, in, string(raw))
	m.must(dir, "write", "-c", file, "lab", "--path", "t", "--format", "raw", "--from", in)
	catShaved(t, m, dir, file)
}

// catShaved reads the lab dataset of the configuration file and checks it.
func catShaved(t *testing.T, m *machine, dir, file string) {
	t.Helper()
	out := m.must(dir, "cat", "-c", file, "lab", "--path", "t")
	var doc struct{ Data []float64 }
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Data) != len(values) {
		t.Fatalf("cat -c %s printed %q (%v)", file, out, err)
	}
	for i, v := range values {
		if float32(doc.Data[i]) != shaved(v) {
			t.Fatalf("cat -c %s: element %d is %v, want %v", file, i, doc.Data[i], shaved(v))
		}
	}
}

// lockEntry reads the entry of the plugin in the lock file at path.
func lockEntry(t *testing.T, path string) config.LockedPlugin {
	t.Helper()
	lock, diags := config.LoadLock(path)
	e, ok := lock.Plugins[address]
	if diags.HasErrors() || !ok {
		t.Fatalf("%s: no entry for %s (%v)", filepath.Base(path), address, diags)
	}
	return e
}

// Configurations sharing a directory lock independently, each in a lock
// file of its own (NAME.hcl in NAME.lock.hcl): one installed at 1.0.0,
// one at 1.1.0 and one given by path and locked to its binary's SHA-256
// (pluginapi/README.md's layout: two configurations in one directory).
// Locking each leaves the others' pins as they were, and all three read
// and write through the plugin afterwards. One never locked is refused,
// naming its configuration, its lock file, the lock files that do have
// an entry, and the command to run.
func TestConfigurationsInOneDirectoryLockIndependently(t *testing.T) {
	mirror := t.TempDir()
	publish(t, mirror, bitshaveBin, here, "1.0.0", "1.1.0")
	m := newMachine(t, fsMirror(mirror))
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin", "zarrgw-codec-bitshave")
	write(t, bin, string(read(t, bitshaveBin)))
	if err := os.Chmod(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "old.hcl"), labConfig("= 1.0.0", "old.zarr"))
	write(t, filepath.Join(dir, "new.hcl"), labConfig("~> 1.1", "new.zarr"))
	write(t, filepath.Join(dir, "path.hcl"), labConfig(bin, "path.zarr"))
	write(t, filepath.Join(dir, "never.hcl"), labConfig("~> 1.0", "never.zarr"))

	m.must(dir, "init", "-c", "old.hcl")
	oldLock := read(t, filepath.Join(dir, "old.lock.hcl"))
	m.must(dir, "init", "-c", "new.hcl")
	if out := m.must(dir, "plugins", "lock", "-c", "path.hcl"); !strings.Contains(out, "path.lock.hcl") {
		t.Errorf("plugins lock -c path.hcl printed:\n%s", out)
	}
	if got := read(t, filepath.Join(dir, "old.lock.hcl")); string(got) != string(oldLock) {
		t.Fatalf("locking new.hcl and path.hcl changed old.lock.hcl:\n%s\nwas:\n%s", got, oldLock)
	}
	if _, err := os.Stat(filepath.Join(dir, config.LockFileName)); err == nil {
		t.Errorf("%s written for configurations not named zarrgw.hcl", config.LockFileName)
	}
	if e := lockEntry(t, filepath.Join(dir, "old.lock.hcl")); e.Version != "1.0.0" {
		t.Errorf("old.lock.hcl pins %+v, want 1.0.0", e)
	}
	if e := lockEntry(t, filepath.Join(dir, "new.lock.hcl")); e.Version != "1.1.0" {
		t.Errorf("new.lock.hcl pins %+v, want 1.1.0", e)
	}
	if e := lockEntry(t, filepath.Join(dir, "path.lock.hcl")); e.SHA256 == "" || e.Version != "" {
		t.Errorf("path.lock.hcl pins %+v, want the binary's sha256", e)
	}
	for _, file := range []string{"old.hcl", "new.hcl", "path.hcl"} {
		roundTrip(t, m, dir, file)
	}
	// Each again, in the other order: nothing changes, everything reads.
	m.must(dir, "plugins", "lock", "-c", "path.hcl")
	m.must(dir, "init", "-c", "new.hcl")
	m.must(dir, "init", "-c", "old.hcl")
	for _, file := range []string{"old.hcl", "new.hcl", "path.hcl"} {
		catShaved(t, m, dir, file)
	}

	_, stderr, code := m.run(dir, "cat", "-c", "never.hcl", "lab", "--path", "t")
	for _, want := range []string{"never.hcl", "never.lock.hcl", "records no version", "new.lock.hcl", "old.lock.hcl", "zarrgw init -c never.hcl"} {
		if code == 0 || !strings.Contains(stderr, want) {
			t.Errorf("cat -c never.hcl: exit %d, stderr lacks %q:\n%s", code, want, stderr)
		}
	}
}

// A lock file of earlier versions, zarrgw.lock.hcl shared by every
// configuration of the directory, is still read by a configuration that
// has none of its own; its first init writes its own and leaves the
// shared one as it was.
func TestSharedLockOfEarlierVersionsStillRead(t *testing.T) {
	mirror := t.TempDir()
	publish(t, mirror, bitshaveBin, here, "1.0.0", "1.1.0")
	m := newMachine(t, fsMirror(mirror))
	dir := t.TempDir()
	write(t, filepath.Join(dir, "lab.hcl"), labConfig("~> 1.0", "lab.zarr"))
	m.must(dir, "init", "-c", "lab.hcl") // 1.1.0, the newest
	// As an earlier version left it: the pins in zarrgw.lock.hcl, pinning
	// 1.0.0, which is installed too.
	write(t, filepath.Join(dir, "other.hcl"), labConfig("= 1.0.0", "other.zarr"))
	m.must(dir, "init", "-c", "other.hcl")
	shared := read(t, filepath.Join(dir, "other.lock.hcl"))
	write(t, filepath.Join(dir, config.LockFileName), string(shared))
	for _, f := range []string{"lab.lock.hcl", "other.lock.hcl"} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(dir, "lab.hcl"), labConfig("~> 1.0", "lab.zarr"))

	stdout, stderr, code := m.run(dir, "validate", "-c", "lab.hcl", "--json")
	var report config.Report
	if err := json.Unmarshal([]byte(stdout), &report); err != nil || code != 0 || !report.Valid ||
		report.LockFile != config.LockFileName || !report.SharedLock || len(report.Plugins) != 1 || report.Plugins[0].Version != "1.0.0" {
		t.Fatalf("validate with the shared lock file: exit %d, %v\n%s%s", code, err, stdout, stderr)
	}
	roundTrip(t, m, dir, "lab.hcl")

	out := m.must(dir, "init", "-c", "lab.hcl")
	if !strings.Contains(out, "lab.lock.hcl") || !strings.Contains(out, "left as it is") {
		t.Errorf("init printed:\n%s", out)
	}
	if e := lockEntry(t, filepath.Join(dir, "lab.lock.hcl")); e.Version != "1.0.0" {
		t.Errorf("lab.lock.hcl pins %+v, want 1.0.0 as the shared lock file did", e)
	}
	if got := read(t, filepath.Join(dir, config.LockFileName)); string(got) != string(shared) {
		t.Errorf("init -c lab.hcl changed %s", config.LockFileName)
	}
	catShaved(t, m, dir, "lab.hcl")
}
