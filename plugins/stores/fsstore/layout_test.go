package fsstore

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/core/store"
)

func TestKeyMapsToPath(t *testing.T) {
	s := newTestStore(t)
	mustSetKey(t, s, "g/a/c/0/1", "chunk")
	got, err := os.ReadFile(filepath.Join(s.Root(), "g", "a", "c", "0", "1"))
	if err != nil || string(got) != "chunk" {
		t.Fatalf("file for key g/a/c/0/1: %q, %v", got, err)
	}
}

// TestOwnFilesAreHidden plants files named like the store's temporary
// files and checks that listing skips them and that keys cannot use them.
func TestOwnFilesAreHidden(t *testing.T) {
	s := newTestStore(t)
	mustSetKey(t, s, "a/k", "1")
	for _, p := range []string{".zarrgw-tmp-1", "a/.zarrgw-tmp-2"} {
		must(t, os.WriteFile(filepath.Join(s.Root(), p), []byte("partial"), 0o644))
	}
	must(t, os.Mkdir(filepath.Join(s.Root(), ".zarrgw-dir"), 0o755))
	keys, err := store.ListAll(t.Context(), s, "")
	must(t, err)
	if !slices.Equal(keys, []string{"a/k"}) {
		t.Fatalf("List = %q, want only a/k", keys)
	}
	d, err := s.ListDir(t.Context(), "a/")
	must(t, err)
	if !slices.Equal(d.Keys, []string{"a/k"}) || len(d.Prefixes) != 0 {
		t.Fatalf("ListDir(a/) = %+v", d)
	}
	d, err = s.ListDir(t.Context(), "")
	must(t, err)
	if len(d.Keys) != 0 || !slices.Equal(d.Prefixes, []string{"a/"}) {
		t.Fatalf("ListDir(\"\") = %+v", d)
	}
	for _, key := range []string{".zarrgw-tmp-1", "a/.zarrgw-x", ".zarrgw-dir/k"} {
		_, err := s.Set(t.Context(), key, []byte("x"), store.Condition{})
		if !errors.Is(err, store.ErrInvalidKey) {
			t.Errorf("Set(%q) = %v, want ErrInvalidKey", key, err)
		}
	}
}

// TestEraseLeavesNoDirectories checks on disk that erasing the last key
// removes the directories above it, and never the root.
func TestEraseLeavesNoDirectories(t *testing.T) {
	s := newTestStore(t)
	mustSetKey(t, s, "a/b/c/d", "1")
	mustSetKey(t, s, "a/x", "2")
	must(t, s.Erase(t.Context(), "a/b/c/d"))
	if _, err := os.Stat(filepath.Join(s.Root(), "a", "b")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a/b still on disk after its last key was erased: %v", err)
	}
	must(t, s.Erase(t.Context(), "a/x"))
	entries, err := os.ReadDir(s.Root())
	must(t, err)
	if len(entries) != 0 {
		t.Fatalf("root not empty after erasing every key: %v", entries)
	}
	must(t, s.ErasePrefix(t.Context(), "")) // the root itself survives
	mustSetKey(t, s, "again", "1")
}

func TestWritesLeaveNoTemporaryFiles(t *testing.T) {
	s := newTestStore(t)
	for i := range 20 {
		mustSetKey(t, s, "d/k", strings.Repeat("x", i))
	}
	_, err := s.Set(t.Context(), "d/k", []byte("x"), store.Condition{IfNoneMatch: true})
	if !errors.Is(err, store.ErrConflict) {
		t.Fatalf("IfNoneMatch on an existing key: %v", err)
	}
	_, err = s.Set(t.Context(), "new/dir/k", []byte("x"), store.Condition{IfMatch: "1-1-1"})
	if !errors.Is(err, store.ErrConflict) {
		t.Fatalf("IfMatch on a missing key: %v", err)
	}
	wantTree(t, s.Root(), []string{"d", "d/k"})
}

// TestConflictFoundUnderLock changes the value after the early check has
// passed (from the mid-write hook), so only the check under the lock can
// refuse the write; its temporary file must go too.
func TestConflictFoundUnderLock(t *testing.T) {
	s := newTestStore(t)
	v1 := mustSetKey(t, s, "k", "one")
	s.test.midWrite = func() {
		s.test.midWrite = nil
		mustSetKey(t, s, "k", "two")
	}
	_, err := s.Set(t.Context(), "k", []byte("stale"), store.Condition{IfMatch: v1})
	if !errors.Is(err, store.ErrConflict) {
		t.Fatalf("IfMatch with a version replaced mid-write: %v, want ErrConflict", err)
	}
	wantKey(t, s, "k", "two")
	wantTree(t, s.Root(), []string{"k"})
}

// TestVersionsNeverRepeat rewrites a value of the same size many times.
// ext4 hands the two alternating files the same two inode numbers, so the
// versions differ only through their mtimes.
func TestVersionsNeverRepeat(t *testing.T) {
	s := newTestStore(t, WithDirSync(false))
	seen := make(map[string]int)
	for i := range 300 {
		v := mustSetKey(t, s, "k", "same-size")
		if j, dup := seen[v]; dup {
			t.Fatalf("write %d got the version of write %d: %s", i, j, v)
		}
		seen[v] = i
	}
}

// TestStampPassesOldMtime checks that a write whose clock is behind the
// replaced value's mtime still stamps a later one, so the version changes.
func TestStampPassesOldMtime(t *testing.T) {
	s := newTestStore(t)
	mustSetKey(t, s, "k", "same")
	path := filepath.Join(s.Root(), "k")
	future := time.Now().Add(time.Hour).Round(time.Second)
	must(t, os.Chtimes(path, future, future))
	mustSetKey(t, s, "k", "same")
	fi, err := os.Stat(path)
	must(t, err)
	if want := future.Add(time.Nanosecond); !fi.ModTime().Equal(want) {
		t.Fatalf("mtime after rewrite = %v, want %v", fi.ModTime(), want)
	}
}

// wantTree fails unless the root holds exactly the given paths.
func wantTree(t *testing.T, root string, want []string) {
	t.Helper()
	var got []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && p != root {
			rel, _ := filepath.Rel(root, p)
			got = append(got, filepath.ToSlash(rel))
		}
		return err
	})
	must(t, err)
	if !slices.Equal(got, want) {
		t.Fatalf("files under root = %q, want %q", got, want)
	}
}
