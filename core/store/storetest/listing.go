package storetest

import (
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
)

func setKeys(t *testing.T, s store.Store, keys ...string) {
	t.Helper()
	for _, key := range keys {
		mustSet(t, s, key, []byte(key))
	}
}

func testList(t *testing.T, s store.Store) {
	setKeys(t, s, "a/b", "a/c/d", "e/f/g", "ab/x")
	wantStrings(t, `List("a/")`, listAll(t, s, "a/"), []string{"a/b", "a/c/d"})
	wantStrings(t, `List("")`, listAll(t, s, ""), []string{"a/b", "a/c/d", "ab/x", "e/f/g"})
	wantStrings(t, `List("e/f/")`, listAll(t, s, "e/f/"), []string{"e/f/g"})
	wantStrings(t, `List("zz/")`, listAll(t, s, "zz/"), nil)
	wantStrings(t, `List("a/b/")`, listAll(t, s, "a/b/"), nil) // a value, not a prefix
}

// testListEarlyBreak checks that List stops when the loop breaks (a
// range-over-func iterator that keeps yielding makes the loop panic).
func testListEarlyBreak(t *testing.T, s store.Store) {
	setKeys(t, s, "x/1", "x/2", "y/3/4", "z")
	n := 0
	for key, err := range s.List(t.Context(), "") {
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		if key == "" {
			t.Fatalf("List yielded an empty key")
		}
		n++
		break
	}
	if n != 1 {
		t.Fatalf("List yielded %d keys before the break, want 1", n)
	}
}

func listDir(t *testing.T, s store.Store, prefix string) store.Dir {
	t.Helper()
	d, err := s.ListDir(t.Context(), prefix)
	if err != nil {
		t.Fatalf("ListDir(%q): %v", prefix, err)
	}
	return d
}

func wantDir(t *testing.T, s store.Store, prefix string, keys, prefixes []string) {
	t.Helper()
	d := listDir(t, s, prefix)
	wantStrings(t, `ListDir("`+prefix+`").Keys`, d.Keys, keys)
	wantStrings(t, `ListDir("`+prefix+`").Prefixes`, d.Prefixes, prefixes)
}

func testListDir(t *testing.T, s store.Store) {
	setKeys(t, s, "a/b", "a/c", "a/d/e", "a/f/g", "h", "a/f/i/j")
	wantDir(t, s, "a/", []string{"a/b", "a/c"}, []string{"a/d/", "a/f/"})
	wantDir(t, s, "", []string{"h"}, []string{"a/"})
	wantDir(t, s, "a/d/", []string{"a/d/e"}, nil)
	wantDir(t, s, "a/f/", []string{"a/f/g"}, []string{"a/f/i/"})
	wantDir(t, s, "nope/", nil, nil)
	wantDir(t, s, "a/b/", nil, nil) // a value, not a prefix
}

// testListDirAfterErase checks that erasing the last key under a prefix
// removes the prefix from ListDir (a filesystem must prune directories).
func testListDirAfterErase(t *testing.T, s store.Store) {
	setKeys(t, s, "a/b", "a/d/e", "a/f/g/h", "k")
	erase(t, s, "a/d/e")
	wantDir(t, s, "a/", []string{"a/b"}, []string{"a/f/"})
	erase(t, s, "a/f/g/h")
	wantDir(t, s, "a/", []string{"a/b"}, nil)
	erase(t, s, "a/b")
	wantDir(t, s, "", []string{"k"}, nil)
	wantStrings(t, `List("")`, listAll(t, s, ""), []string{"k"})
}

func erase(t *testing.T, s store.Store, key string) {
	t.Helper()
	if err := s.Erase(t.Context(), key); err != nil {
		t.Fatalf("Erase(%q): %v", key, err)
	}
}

func erasePrefix(t *testing.T, s store.Store, prefix string) {
	t.Helper()
	if err := s.ErasePrefix(t.Context(), prefix); err != nil {
		t.Fatalf("ErasePrefix(%q): %v", prefix, err)
	}
}

func testErasePrefix(t *testing.T, s store.Store) {
	setKeys(t, s, "a/b", "a/c/d", "a/c/e/f", "ab/x", "e/f", "a.txt")
	erasePrefix(t, s, "a/")
	for _, key := range []string{"a/b", "a/c/d", "a/c/e/f"} {
		wantMissing(t, s, key)
	}
	for _, key := range []string{"ab/x", "e/f", "a.txt"} {
		wantValue(t, s, key, []byte(key))
	}
	erasePrefix(t, s, "missing/")
	erasePrefix(t, s, "e/f/") // names a value, not a prefix: nothing under it
	wantValue(t, s, "e/f", []byte("e/f"))
	if s.Capabilities().List {
		wantStrings(t, `List("")`, listAll(t, s, ""), []string{"a.txt", "ab/x", "e/f"})
		wantDir(t, s, "", []string{"a.txt"}, []string{"ab/", "e/"})
	}
}

func testEraseAll(t *testing.T, s store.Store) {
	setKeys(t, s, "a/b", "c", "d/e/f")
	erasePrefix(t, s, "")
	for _, key := range []string{"a/b", "c", "d/e/f"} {
		wantMissing(t, s, key)
	}
	if s.Capabilities().List {
		wantStrings(t, `List("")`, listAll(t, s, ""), nil)
	}
	mustSet(t, s, "again", []byte("1"))
	wantValue(t, s, "again", []byte("1"))
}

// testListSorted checks sorted listings (the store's own, or the walk of
// its directories): byte order, whatever the nesting, starting after a
// key that need not exist, and within a prefix.
func testListSorted(t *testing.T, s store.Store) {
	setKeys(t, s, "a+b", "a.c", "a/b", "a/c/d", "a0", "b/x/y", "b/z")
	sorted := func(prefix, after string) []string {
		t.Helper()
		var out []string
		for k, err := range store.ListSorted(t.Context(), s, prefix, after) {
			if err != nil {
				t.Fatalf("ListSorted(%q, %q): %v", prefix, after, err)
			}
			out = append(out, k)
		}
		return out
	}
	all := []string{"a+b", "a.c", "a/b", "a/c/d", "a0", "b/x/y", "b/z"}
	wantOrder(t, `ListSorted("", "")`, sorted("", ""), all)
	wantOrder(t, `ListSorted("", "a/b")`, sorted("", "a/b"), all[3:])
	wantOrder(t, `ListSorted("", "a/bb")`, sorted("", "a/bb"), all[3:])
	wantOrder(t, `ListSorted("", "a/c/d")`, sorted("", "a/c/d"), all[4:])
	wantOrder(t, `ListSorted("b/", "")`, sorted("b/", ""), all[5:])
	wantOrder(t, `ListSorted("b/", "b/x/y")`, sorted("b/", "b/x/y"), all[6:])
	wantOrder(t, `ListSorted("", "zz")`, sorted("", "zz"), nil)
	// with sizes and versions, as Stat gives them
	var keys []string
	for e, err := range store.ListInfo(t.Context(), s, "", "a/b") {
		if err != nil {
			t.Fatalf("ListInfo: %v", err)
		}
		info, err := s.Stat(t.Context(), e.Key)
		if err != nil || e.Info.Size != int64(len(e.Key)) || e.Info.Size != info.Size || e.Info.Version != info.Version {
			t.Fatalf("ListInfo: %s %+v, Stat %+v (%v)", e.Key, e.Info, info, err)
		}
		keys = append(keys, e.Key)
	}
	wantOrder(t, `ListInfo("", "a/b")`, keys, all[3:])
}

// wantOrder compares two lists, order included.
func wantOrder(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s = %q, want %q", what, got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s = %q, want %q", what, got, want)
		}
	}
}
