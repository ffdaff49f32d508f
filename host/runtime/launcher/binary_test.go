package launcher

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/host/runtime/pluginpkg"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// pluginFile writes a plugin file with content and returns the plugin
// pinned to it.
func pluginFile(t *testing.T, dir, name, content string) *Plugin {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
	sum, err := Checksum(path)
	if err != nil {
		t.Fatal(err)
	}
	return newPlugin(New(Options{}), Spec{Name: "example.org/test/" + name, Path: path, SHA256: sum, Remedy: "Pin it again."})
}

// swap puts content at path the way an upgrade, or another user, would:
// a new file renamed over the old name.
func swap(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path+".new", []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".new", path); err != nil {
		t.Fatal(err)
	}
}

// The process runs the file that was hashed, through its descriptor, even
// when another file has taken its name since: a script (which the kernel
// hands its interpreter by the descriptor's name) and a binary. Run by its
// path instead, the same command runs the file now there, so the check
// can fail.
func TestRunsTheFileHashed(t *testing.T) {
	if runtime.GOOS != "linux" {
		servers.Unavailable(t, "only Linux runs a file by its descriptor")
	}
	echo, err := os.ReadFile("/bin/echo")
	if err != nil {
		t.Fatalf("no /bin/echo to copy: %v", err)
	}
	dir := t.TempDir()
	for _, c := range []struct{ name, content string }{
		{"script", "#!/bin/sh\necho hashed\n"},
		{"binary", string(echo)},
	} {
		p := pluginFile(t, dir, c.name, c.content)
		bin, err := p.openBinary()
		if err != nil {
			t.Fatal(err)
		}
		swap(t, p.spec.Path, "#!/bin/sh\necho swapped\n")
		cmd := exec.Command(p.spec.Path, "hashed")
		execByDescriptor(cmd, bin.f)
		out, err := cmd.Output()
		bin.Close()
		if err != nil || string(out) != "hashed\n" {
			t.Errorf("%s run by its descriptor printed %q (%v), want the hashed file's \"hashed\"", c.name, out, err)
		}
		if out, err := exec.Command(p.spec.Path, "hashed").Output(); string(out) != "swapped\n" {
			t.Errorf("%s run by its path printed %q (%v): the swap did not happen", c.name, out, err)
		}
	}
}

// A file that does not match its pin is refused with both checksums and
// the spec's remedy.
func TestMismatchNamesBothSums(t *testing.T) {
	p := pluginFile(t, t.TempDir(), "p", "#!/bin/sh\necho one\n")
	swap(t, p.spec.Path, "#!/bin/sh\necho two\n")
	actual, _ := Checksum(p.spec.Path)
	_, err := p.openBinary()
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("changed file: %v", err)
	}
	for _, part := range []string{p.spec.Name, actual, p.spec.SHA256, "does not match its pinned sha256", "Pin it again."} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error %q lacks %q", err, part)
		}
	}
}

// A plugin file, or a directory above it, that another user could write
// to is refused, naming it and the fix; a sticky directory writable by
// all (/tmp) is not a way in, and is accepted.
func TestWritableByOthersRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		servers.Unavailable(t, "Windows has no permission bits to check")
	}
	for _, c := range []struct {
		name      string
		file, dir os.FileMode
		want      string // "" accepted
	}{
		{"closed", 0o755, 0o755, ""},
		{"file writable by others", 0o757, 0o755, "writable by others"},
		{"file writable by its group", 0o775, 0o755, "writable by its group"},
		{"directory writable by its group", 0o755, 0o775, "writable by its group"},
		{"sticky directory writable by all", 0o755, 0o1777, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "plugins")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			p := pluginFile(t, dir, "p", "#!/bin/sh\n")
			chmod(t, p.spec.Path, c.file)
			chmod(t, dir, c.dir)
			bin, err := p.openBinary()
			if c.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				bin.Close()
				return
			}
			culprit := p.spec.Path
			if c.file&0o022 == 0 {
				culprit = dir
			}
			if err == nil || !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), culprit+" is "+c.want) ||
				!strings.Contains(err.Error(), "chmod go-w") || !strings.Contains(err.Error(), p.spec.Name) {
				t.Fatalf("error %v, want %s named as %s", err, culprit, c.want)
			}
		})
	}
}

// A plugin file owned by another user than zarrgw's or root is refused.
// Only root can give a file away, so the test needs root.
func TestOwnedByAnotherUserRefused(t *testing.T) {
	if runtime.GOOS == "windows" || os.Geteuid() != 0 {
		servers.Unavailable(t, "only root can give a file to another user")
	}
	p := pluginFile(t, t.TempDir(), "p", "#!/bin/sh\n")
	if err := os.Chown(p.spec.Path, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if _, err := p.openBinary(); err == nil || !strings.Contains(err.Error(), "owned by uid 65534") {
		t.Fatalf("a file of uid 65534: %v", err)
	}
}

func chmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if mode&0o1000 != 0 {
		mode = mode&0o777 | os.ModeSticky
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// A Python plugin starts only when the Python files beside its script
// match their pin: a module edited, added or removed after pinning is
// refused naming the directory and both hashes, and a pin of the script
// alone is refused as not covering them.
func TestPythonModulesPinned(t *testing.T) {
	dir := t.TempDir()
	mkdir(t, filepath.Join(dir, "pkg"))
	mkdir(t, filepath.Join(dir, "data.zarr")) // no package: never imported
	for name, content := range map[string]string{
		"codec.py":             "KEY = 42\n",
		"pkg/__init__.py":      "",
		"README.md":            "not Python\n",
		"data.zarr/evil.py":    "not reachable by import\n",
		"__pycache__/x.pyc":    "never read: PYTHONPYCACHEPREFIX\n",
		"pkg/native.abi3.so":   "an extension module\n",
		"pkg/notes.txt":        "not Python\n",
		"pkg/sub/__init__.py":  "",
		"pkg/sub/deep_mod.pyc": "a sourceless module\n",
	} {
		path := filepath.Join(dir, filepath.FromSlash(name))
		mkdir(t, filepath.Dir(path))
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := pluginFile(t, dir, "plugin.py", "#!/usr/bin/python3\nimport codec\n")
	files, err := pluginpkg.PythonFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(files, " "), "codec.py pkg/__init__.py pkg/native.abi3.so pkg/sub/__init__.py pkg/sub/deep_mod.pyc plugin.py"; got != want {
		t.Fatalf("Python files %q, want %q", got, want)
	}
	if _, err := p.openBinary(); err == nil || !strings.Contains(err.Error(), "are not pinned") || !strings.Contains(err.Error(), dir) {
		t.Fatalf("a Python plugin pinned by its script alone: %v", err)
	}
	h1, _, err := pluginpkg.HashPython(dir)
	if err != nil {
		t.Fatal(err)
	}
	p.spec.Modules = h1
	bin, err := p.openBinary()
	if err != nil {
		t.Fatalf("pinned: %v", err)
	}
	bin.Close()
	// Outside the modules: no effect.
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("edited\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "data.zarr", "evil.py"), []byte("edited\n"), 0o644)
	if bin, err := p.openBinary(); err != nil {
		t.Fatalf("after edits outside the modules: %v", err)
	} else {
		bin.Close()
	}
	for _, change := range []struct {
		what string
		do   func() error
		undo func() error
	}{
		{"edited", func() error { return os.WriteFile(filepath.Join(dir, "codec.py"), []byte("KEY = 0\n"), 0o644) },
			func() error { return os.WriteFile(filepath.Join(dir, "codec.py"), []byte("KEY = 42\n"), 0o644) }},
		{"added", func() error { return os.WriteFile(filepath.Join(dir, "pkg", "json.py"), nil, 0o644) },
			func() error { return os.Remove(filepath.Join(dir, "pkg", "json.py")) }},
		{"removed", func() error {
			return os.Rename(filepath.Join(dir, "pkg/sub/deep_mod.pyc"), filepath.Join(dir, "deep_mod.txt"))
		},
			func() error {
				return os.Rename(filepath.Join(dir, "deep_mod.txt"), filepath.Join(dir, "pkg/sub/deep_mod.pyc"))
			}},
	} {
		if err := change.do(); err != nil {
			t.Fatal(err)
		}
		_, err := p.openBinary()
		if err == nil || !strings.Contains(err.Error(), "does not match their pinned "+h1) || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "Pin it again.") {
			t.Fatalf("module %s after pinning: %v", change.what, err)
		}
		if err := change.undo(); err != nil {
			t.Fatal(err)
		}
	}
	// A module directory writable by others is refused too.
	chmod(t, filepath.Join(dir, "pkg"), 0o777)
	if _, err := p.openBinary(); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "pkg")+" is writable by") {
		t.Fatalf("a package writable by others: %v", err)
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}
