package pluginpkg

import (
	"archive/zip"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// write creates the file path (and its directories) holding content.
func write(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

// pythonPlugin lays out a Python plugin as its author has it after a run:
// the script, a module beside it, a package with a subpackage and a
// helper script, and the bytecode caches Python wrote beside them.
func pythonPlugin(t *testing.T) (dir string) {
	dir = t.TempDir()
	write(t, filepath.Join(dir, "xorpy", "plugin.py"), "#!/usr/bin/python3\nimport xor_codec\n", 0o755)
	write(t, filepath.Join(dir, "xorpy", "xor_codec.py"), "import zarrgw_plugin\n", 0o644)
	write(t, filepath.Join(dir, "xorpy", "__pycache__", "xor_codec.cpython-312.pyc"), "bytecode", 0o644)
	sdk := filepath.Join(dir, "sdk", "zarrgw_plugin")
	write(t, filepath.Join(sdk, "__init__.py"), "", 0o644)
	write(t, filepath.Join(sdk, "stale.pyc"), "bytecode", 0o644)
	write(t, filepath.Join(sdk, "__pycache__", "__init__.cpython-312.pyc"), "bytecode", 0o644)
	write(t, filepath.Join(sdk, "proto", "codec_pb2.py"), "# generated\n", 0o644)
	write(t, filepath.Join(sdk, "proto", "__pycache__", "codec_pb2.cpython-312.pyc"), "bytecode", 0o644)
	write(t, filepath.Join(sdk, "tools", "regen.sh"), "#!/bin/sh\n", 0o750)
	return dir
}

// zipMembers lists a zip's members and their modes.
func zipMembers(t *testing.T, zipPath string) map[string]os.FileMode {
	t.Helper()
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	out := map[string]os.FileMode{}
	for _, f := range zr.File {
		out[f.Name] = f.Mode().Perm()
	}
	return out
}

// A plugin's files are packed beside its executable: a file under its
// base name, a directory under its base name with what it holds, each
// keeping whether it is executable; Python's bytecode caches are left
// out. The package unpacks to the same files, and hashes the same as
// them.
func TestBuildWithFiles(t *testing.T) {
	src := pythonPlugin(t)
	zipPath := filepath.Join(t.TempDir(), "p.zip")
	err := Build(zipPath, filepath.Join(src, "xorpy", "plugin.py"), "zarrgw-plugin-xorpy_v1.0.0",
		filepath.Join(src, "xorpy", "xor_codec.py"), filepath.Join(src, "sdk", "zarrgw_plugin")+"/")
	if err != nil {
		t.Fatal(err)
	}
	got := zipMembers(t, zipPath)
	want := map[string]os.FileMode{
		"zarrgw-plugin-xorpy_v1.0.0":       0o755,
		"xor_codec.py":                     0o644,
		"zarrgw_plugin/__init__.py":        0o644,
		"zarrgw_plugin/proto/codec_pb2.py": 0o644,
		"zarrgw_plugin/tools/regen.sh":     0o755,
	}
	if len(got) != len(want) {
		t.Errorf("members %v, want %v", got, want)
	}
	for name, mode := range want {
		if m, ok := got[name]; !ok || m != mode {
			t.Errorf("member %s: mode %v (present %v), want %v", name, m, ok, mode)
		}
	}
	out := filepath.Join(t.TempDir(), "out")
	if err := Unpack(zipPath, out); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(out, "zarrgw_plugin", "proto", "codec_pb2.py")); err != nil || string(b) != "# generated\n" {
		t.Errorf("unpacked module: %q %v", b, err)
	}
	fromZip, err1 := HashZip(zipPath)
	fromDir, err2 := HashDir(out)
	if err1 != nil || err2 != nil || fromZip != fromDir {
		t.Errorf("h1 of the zip %s (%v), of what it unpacks to %s (%v)", fromZip, err1, fromDir, err2)
	}
}

// A symbolic link inside a packed directory is followed to what it
// leads to under that directory, and refused when it leads out of it or
// back to a directory that holds it.
func TestBuildSymlinks(t *testing.T) {
	src := pythonPlugin(t)
	sdk := filepath.Join(src, "sdk", "zarrgw_plugin")
	bin := filepath.Join(src, "xorpy", "plugin.py")
	// inside: a file and a directory
	if err := os.Symlink("__init__.py", filepath.Join(sdk, "alias.py")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("proto", filepath.Join(sdk, "proto2")); err != nil {
		t.Fatal(err)
	}
	zipPath := filepath.Join(t.TempDir(), "p.zip")
	if err := Build(zipPath, bin, "x", sdk); err != nil {
		t.Fatal(err)
	}
	got := zipMembers(t, zipPath)
	for _, name := range []string{"zarrgw_plugin/alias.py", "zarrgw_plugin/proto2/codec_pb2.py"} {
		if _, ok := got[name]; !ok {
			t.Errorf("no %s in %v", name, got)
		}
	}
	// a directory given through a link is packed under the link's name
	link := filepath.Join(t.TempDir(), "sdk_link")
	if err := os.Symlink(sdk, link); err != nil {
		t.Fatal(err)
	}
	if err := Build(zipPath, bin, "x", link); err != nil {
		t.Fatal(err)
	}
	if _, ok := zipMembers(t, zipPath)["sdk_link/__init__.py"]; !ok {
		t.Error("a directory given by a link is not packed under the link's name")
	}

	for _, c := range []struct{ target, want string }{
		{filepath.Join(src, "xorpy", "xor_codec.py"), "outside"},
		{"../../../xorpy", "outside"},
		{"missing", "no such file"},
		{"/etc", "outside"},
		{".", "never end"},
		{"..", "never end"},
	} {
		bad := filepath.Join(sdk, "proto", "bad")
		if err := os.Symlink(c.target, bad); err != nil {
			t.Fatal(err)
		}
		err := Build(filepath.Join(t.TempDir(), "p.zip"), bin, "x", sdk)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), bad) {
			t.Errorf("a link to %s: %v, want an error naming it and saying %q", c.target, err, c.want)
		}
		os.Remove(bad)
	}
}

// Two members of one name (letter case aside), a member named as the
// executable, bytecode named to be packed, and anything but files and
// directories are refused, naming what, and no package is written.
func TestBuildRefuses(t *testing.T) {
	src := pythonPlugin(t)
	bin := filepath.Join(src, "xorpy", "plugin.py")
	codec := filepath.Join(src, "xorpy", "xor_codec.py")
	sdk := filepath.Join(src, "sdk", "zarrgw_plugin")
	other := filepath.Join(src, "other")
	write(t, filepath.Join(other, "xor_codec.py"), "", 0o644)
	write(t, filepath.Join(other, "XOR_CODEC.PY"), "", 0o644)
	write(t, filepath.Join(other, "x"), "", 0o644)
	write(t, filepath.Join(other, "zarrgw_plugin"), "", 0o644)
	write(t, filepath.Join(other, "pkg", "Mod.py"), "", 0o644)
	write(t, filepath.Join(other, "pkg", "mod.py"), "", 0o644)
	fifo := filepath.Join(other, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		files []string
		want  []string
	}{
		{[]string{codec, filepath.Join(other, "xor_codec.py")}, []string{codec, filepath.Join(other, "xor_codec.py"), "both"}},
		{[]string{codec, codec}, []string{codec, "given twice"}},
		{[]string{codec, filepath.Join(other, "XOR_CODEC.PY")}, []string{"XOR_CODEC.PY", "both"}},
		{[]string{filepath.Join(other, "x")}, []string{"the executable " + bin, `"x"`}},
		{[]string{sdk, filepath.Join(other, "zarrgw_plugin")}, []string{"the directory " + sdk, "both", `"zarrgw_plugin"`}},
		{[]string{filepath.Join(other, "pkg")}, []string{"Mod.py", "mod.py", "both"}},
		{[]string{filepath.Join(src, "xorpy", "__pycache__")}, []string{"bytecode"}},
		{[]string{filepath.Join(sdk, "stale.pyc")}, []string{"bytecode"}},
		{[]string{fifo}, []string{fifo, "not a regular file"}},
		{[]string{other}, []string{fifo, "not a regular file"}},
		{[]string{"."}, []string{"its own name"}},
		{[]string{filepath.Join(src, "missing.py")}, []string{"missing.py"}},
	} {
		zipPath := filepath.Join(t.TempDir(), "p.zip")
		err := Build(zipPath, bin, "x", c.files...)
		if err == nil {
			t.Errorf("%v: packed", c.files)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: %v, want it to say %q", c.files, err, w)
			}
		}
		if _, err := os.Stat(zipPath); err == nil {
			t.Errorf("%v: a package was written though refused", c.files)
		}
	}
	// Either of a colliding pair alone packs.
	for _, f := range []string{codec, filepath.Join(other, "XOR_CODEC.PY"), sdk} {
		if err := Build(filepath.Join(t.TempDir(), "p.zip"), bin, "x", f); err != nil {
			t.Errorf("%s alone: %v", f, err)
		}
	}
}
