package pluginpkg

import (
	"archive/zip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-version"
	"golang.org/x/mod/sumdb/dirhash"
)

func TestAddresses(t *testing.T) {
	a, err := ParseAddress("Example.ORG/Acme/xor-codec")
	if err != nil || a != (Address{"example.org", "acme", "xor-codec"}) || a.String() != "example.org/acme/xor-codec" {
		t.Fatalf("%+v %v", a, err)
	}
	for _, bad := range []string{"acme/xor", "a/b/c/d", "example.org/acme/x_y", "exa mple.org/a/b", "example.org//x", "example.org/-a/x"} {
		if _, err := ParseAddress(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	p, err := ParsePattern("example.org/*/*")
	if err != nil || !p.Matches(a) {
		t.Errorf("pattern: %v", err)
	}
	if q, _ := ParsePattern("*/acme/zip"); q.Matches(a) {
		t.Error("*/acme/zip matches xor-codec")
	}
}

func TestFileNames(t *testing.T) {
	v := version.Must(version.NewVersion("1.3.0"))
	p := Platform{"linux", "arm64"}
	name := FileName("xor", v, p)
	if name != "zarrgw-plugin-xor_1.3.0_linux_arm64.zip" {
		t.Fatal(name)
	}
	typ, v2, p2, ok := ParseFileName(name)
	if !ok || typ != "xor" || !v2.Equal(v) || p2 != p {
		t.Fatalf("%s %v %v %v", typ, v2, p2, ok)
	}
	for _, bad := range []string{"zarrgw-plugin-xor_1.3.0_linux.zip", "terraform-provider-xor_1.3.0_linux_amd64.zip", "zarrgw-plugin-xor_one_linux_amd64.zip"} {
		if _, _, _, ok := ParseFileName(bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
	if e := Executable("xor", v, Platform{"windows", "amd64"}); e != "zarrgw-plugin-xor_v1.3.0.exe" {
		t.Error(e)
	}
}

// A package's h1: hash is the same whether taken of its zip or of the
// directory it unpacks to, and that is dirhash's Hash1 of the directory.
func TestBuildUnpackHash(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho plugin\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	zipPath := filepath.Join(dir, "p.zip")
	if err := Build(zipPath, bin, "zarrgw-plugin-x_v1.0.0"); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if err := Unpack(zipPath, out); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(filepath.Join(out, "zarrgw-plugin-x_v1.0.0"))
	if err != nil || info.Mode()&0o111 == 0 {
		t.Fatalf("unpacked executable: %v %v", info, err)
	}
	fromZip, err := HashZip(zipPath)
	if err != nil {
		t.Fatal(err)
	}
	fromDir, err := HashDir(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := dirhash.HashDir(out, "", dirhash.Hash1)
	if err != nil {
		t.Fatal(err)
	}
	if fromZip != want || fromDir != want || !strings.HasPrefix(want, H1) {
		t.Fatalf("h1 of the zip %s, of the directory %s, dirhash %s", fromZip, fromDir, want)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(out, link); err != nil {
		t.Fatal(err)
	}
	if h, err := HashDir(link); err != nil || h != want {
		t.Fatalf("through a link: %s %v", h, err)
	}
	zh, err := ZipHash(zipPath)
	if err != nil || !strings.HasPrefix(zh, ZH) || len(zh) != 3+64 {
		t.Fatalf("zh %s %v", zh, err)
	}
}

// A member that would land outside the package directory is refused.
func TestUnpackRefusesEscapes(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"../evil", "/abs", `a\..\..\b`} {
		zipPath := filepath.Join(dir, "bad.zip")
		f, _ := os.Create(zipPath)
		zw := zip.NewWriter(f)
		w, _ := zw.Create(name)
		w.Write([]byte("x"))
		zw.Close()
		f.Close()
		out := filepath.Join(dir, "out")
		os.RemoveAll(out)
		if err := Unpack(zipPath, out); err == nil || !strings.Contains(err.Error(), "leaves the package directory") {
			t.Errorf("%q: %v", name, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "evil")); err == nil {
			t.Fatalf("%q escaped", name)
		}
	}
}
