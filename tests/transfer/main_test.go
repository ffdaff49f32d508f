// Package transfer runs `zarrgw cp` as a process over the shared fixtures:
// copies as they are, rewrites to v3 and to sharded v3 checked against the
// fixtures' expected values and read by zarrita.js, progress output on a
// terminal and off it, and copies killed and resumed.
package transfer

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bin "github.com/zarrgw/zarrgw/tests/support/binary"
)

var zarrgw string

func TestMain(m *testing.M) { bin.Main(m, &zarrgw) }

// cp runs zarrgw cp with args, with the journal of resumed copies in a
// cache directory of the test's own.
func cp(t *testing.T, cache string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return zarrgwIn(t, cache, append([]string{"cp"}, args...)...)
}

// hierarchyRoots lists the top-most directories below dir that hold a
// Zarr node: each fixture hierarchy's root.
func hierarchyRoots(t *testing.T, dir string) []string {
	t.Helper()
	var roots []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		for _, doc := range []string{"zarr.json", ".zgroup", ".zarray", "meta/root.group.json", "meta/root.array.json"} {
			if _, err := os.Stat(filepath.Join(p, doc)); err == nil && rel != "." {
				roots = append(roots, rel)
				return filepath.SkipDir
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return roots
}

// files maps every file below dir to its bytes.
func files(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func lines(s string) []string { return strings.Split(strings.TrimSpace(s), "\n") }
