package fsstore

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/zarrgw/zarrgw/core/store"
)

// wantFailure fails unless err is an error that is neither ErrNotFound (a
// failed read must never become fill values) nor, for writes, ErrConflict.
func wantFailure(t *testing.T, err error, what string) {
	t.Helper()
	switch {
	case err == nil:
		t.Errorf("%s succeeded, want an error", what)
	case errors.Is(err, store.ErrNotFound):
		t.Errorf("%s = %v: must not be ErrNotFound", what, err)
	case errors.Is(err, store.ErrConflict):
		t.Errorf("%s = %v: must not be ErrConflict", what, err)
	}
}

func wantReadFailure(t *testing.T, s *Store, key string) {
	t.Helper()
	_, err := s.Get(t.Context(), key, store.ByteRange{})
	wantFailure(t, err, "Get("+key+")")
	_, err = s.Stat(t.Context(), key)
	wantFailure(t, err, "Stat("+key+")")
}

// TestReadFailuresAreNotNotFound sets up paths that exist but cannot be
// read as values; each must fail with an error other than ErrNotFound.
func TestReadFailuresAreNotNotFound(t *testing.T) {
	t.Run("openat2", func(t *testing.T) { testReadFailures(t, newTestStore(t)) })
	t.Run("os.Root", func(t *testing.T) { testReadFailures(t, withoutOpenat2(newTestStore(t))) })
}

func testReadFailures(t *testing.T, s *Store) {
	root := s.Root()
	outside := filepath.Join(t.TempDir(), "secret")
	must(t, os.WriteFile(outside, []byte("outside"), 0o644))
	must(t, os.Symlink("loop", filepath.Join(root, "loop")))
	must(t, os.Symlink(outside, filepath.Join(root, "escape")))
	must(t, os.Symlink("../..", filepath.Join(root, "up")))
	must(t, unix.Mkfifo(filepath.Join(root, "fifo"), 0o644))

	for _, key := range []string{"loop", "escape", "up/secret", "fifo", strings.Repeat("x", 300)} {
		wantReadFailure(t, s, key)
	}
}

// TestPermissionDeniedIsNotNotFound needs a user that permissions apply to.
func TestPermissionDeniedIsNotNotFound(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root bypasses file permissions; TestReadFailuresAreNotNotFound covers other failures")
	}
	s := newTestStore(t)
	mustSetKey(t, s, "locked/value", "x")
	mustSetKey(t, s, "unreadable", "x")
	must(t, os.Chmod(filepath.Join(s.Root(), "unreadable"), 0))
	must(t, os.Chmod(filepath.Join(s.Root(), "locked"), 0))
	t.Cleanup(func() { _ = os.Chmod(filepath.Join(s.Root(), "locked"), 0o755) })
	_, err := s.Get(t.Context(), "unreadable", store.ByteRange{})
	wantFailure(t, err, "Get of a mode 000 file")
	wantReadFailure(t, s, "locked/value")
}

func TestWriteFailures(t *testing.T) {
	s := newTestStore(t)
	mustSetKey(t, s, "group/array", "keys live under group/")
	mustSetKey(t, s, "value", "a value, not a directory")

	_, err := s.Set(t.Context(), "group", []byte("x"), store.Condition{})
	wantFailure(t, err, "Set of a name that has keys under it")
	if !errors.Is(err, store.ErrInvalidKey) {
		t.Errorf("Set of a name that has keys under it: %v, want ErrInvalidKey (the caller's key, not a broken store)", err)
	}
	_, err = s.Set(t.Context(), "value/child", []byte("x"), store.Condition{})
	wantFailure(t, err, "Set under a name that is a value")
	if !errors.Is(err, store.ErrInvalidKey) {
		t.Errorf("Set under a name that is a value: %v, want ErrInvalidKey", err)
	}
	wantKey(t, s, "group/array", "keys live under group/")
	wantKey(t, s, "value", "a value, not a directory")
}

// TestKeysStayInsideRoot checks that a symlinked directory pointing out of
// the root cannot be written through.
func TestKeysStayInsideRoot(t *testing.T) {
	t.Run("openat2", func(t *testing.T) { testKeysStayInsideRoot(t, newTestStore(t)) })
	t.Run("os.Root", func(t *testing.T) { testKeysStayInsideRoot(t, withoutOpenat2(newTestStore(t))) })
}

func testKeysStayInsideRoot(t *testing.T, s *Store) {
	outside := t.TempDir()
	must(t, os.Symlink(outside, filepath.Join(s.Root(), "out")))
	_, err := s.Set(t.Context(), "out/planted", []byte("x"), store.Condition{})
	wantFailure(t, err, "Set through a symlink leaving the root")
	if _, err := os.Stat(filepath.Join(outside, "planted")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a file appeared outside the root: %v", err)
	}
	must(t, os.WriteFile(filepath.Join(outside, "keep"), []byte("x"), 0o644))
	_ = s.ErasePrefix(t.Context(), "out/") // the link is not a directory of keys
	if _, err := os.Stat(filepath.Join(outside, "keep")); err != nil {
		t.Fatalf("ErasePrefix reached outside the root: %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func mustSetKey(t *testing.T, s *Store, key, value string) string {
	t.Helper()
	v, err := s.Set(t.Context(), key, []byte(value), store.Condition{})
	if err != nil {
		t.Fatalf("Set(%q): %v", key, err)
	}
	return v
}

func wantKey(t *testing.T, s *Store, key, value string) {
	t.Helper()
	v, err := s.Get(t.Context(), key, store.ByteRange{})
	if err != nil {
		t.Fatalf("Get(%q): %v", key, err)
	}
	if string(v.Data) != value {
		t.Fatalf("Get(%q) = %q, want %q", key, v.Data, value)
	}
}
