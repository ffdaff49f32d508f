package pyenv

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFind checks that Find accepts the environment only when its marker
// holds the current lock's hash: none (an install cut short) and another
// lock's (built before the lock changed) are refused with the reason.
func TestFind(t *testing.T) {
	t.Setenv(EnvVar, "")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir, lockHash, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Find(); err == nil || !strings.Contains(err.Error(), "not built") {
		t.Fatalf("no environment: Find returned %v, want an error saying it is not built", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(dir, Marker)
	if err := os.WriteFile(marker, []byte(strings.Repeat("0", 64)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Find(); err == nil || !strings.Contains(err.Error(), "another lock") {
		t.Fatalf("stale marker: Find returned %v, want an error naming another lock", err)
	}
	if err := os.WriteFile(marker, []byte(lockHash+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	py, err := Find()
	if want := filepath.Join(dir, "bin", "python3"); err != nil || py != want {
		t.Fatalf("current marker: Find returned %q, %v; want %q", py, err, want)
	}
}

// TestFindOverride checks that ZARRGW_PYTHON3 wins, and that a path that
// is not there is refused by name.
func TestFindOverride(t *testing.T) {
	t.Setenv(EnvVar, "/usr/bin/env")
	if py, err := Find(); err != nil || py != "/usr/bin/env" {
		t.Fatalf("Find returned %q, %v; want /usr/bin/env", py, err)
	}
	missing := filepath.Join(t.TempDir(), "python3")
	t.Setenv(EnvVar, missing)
	if _, err := Find(); err == nil || !strings.Contains(err.Error(), missing) {
		t.Fatalf("Find returned %v, want an error naming %s", err, missing)
	}
}
