package lockfile_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/host/runtime/config/lockfile"
)

const (
	sumA = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	sumB = "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
)

func TestLockRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), lockfile.FileName)
	served := lockfile.Served{Codecs: []string{"xor", "zz"}, Stores: []string{"zip"}}
	in := &lockfile.Lock{Plugins: map[string]lockfile.Entry{
		"example.org/acme/b": {SHA256: sumB, Serves: served},
		"example.org/acme/a": {SHA256: sumA},
	}}
	if err := lockfile.Write(path, in); err != nil {
		t.Fatal(err)
	}
	out, diags := lockfile.Load(path)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	got := map[string]string{}
	for s, p := range out.Plugins {
		got[s] = p.SHA256
		if p.DeclRange.Filename != path {
			t.Errorf("%s declared in %q", s, p.DeclRange.Filename)
		}
	}
	if want := map[string]string{"example.org/acme/a": sumA, "example.org/acme/b": sumB}; !reflect.DeepEqual(got, want) {
		t.Errorf("read back %v, want %v", got, want)
	}
	if b := out.Plugins["example.org/acme/b"].Serves; !reflect.DeepEqual(b, served) {
		t.Errorf("served names read back as %+v, want %+v", b, served)
	}
	// The file is canonical: sorted, formatted, so rewriting it changes nothing.
	first, _ := os.ReadFile(path)
	if i, j := strings.Index(string(first), "acme/a"), strings.Index(string(first), "acme/b"); i < 0 || j < i {
		t.Errorf("entries not sorted:\n%s", first)
	}
	if err := lockfile.Write(path, out); err != nil {
		t.Fatal(err)
	}
	if second, _ := os.ReadFile(path); string(second) != string(first) {
		t.Errorf("rewrite changed the file:\n%s\n---\n%s", first, second)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

func TestLoadLockMissingIsEmpty(t *testing.T) {
	l, diags := lockfile.Load(filepath.Join(t.TempDir(), "none.hcl"))
	if len(diags) != 0 || len(l.Plugins) != 0 {
		t.Errorf("%v %v", l, diags)
	}
}

func TestLockInvalidChecksum(t *testing.T) {
	_, diags := lockfile.Parse([]byte(`plugin "example.org/acme/a" {
  sha256 = "xyz"
}
`), "zarrgw.lock.hcl")
	if !diags.HasErrors() || diags[0].Subject.Start.Line != 2 || !strings.Contains(diags[0].Summary, "sha256") {
		t.Errorf("diags: %v", diags)
	}
}
