package storetest

import (
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
)

// testPrefixKeys checks keys that are prefixes of other keys as strings
// (not as paths): each holds its own value, erasing one leaves the others,
// and listings and prefix erases keep to whole segments.
func testPrefixKeys(t *testing.T, s store.Store) {
	caps := s.Capabilities()
	keys := []string{"p/a", "p/ab", "p/abc", "p/a.b", "p/a-b/c", "p/b", "p/ba/c", "c/0", "c/0.1", "c/01", "c/0.1.2"}
	setKeys(t, s, keys...)
	for _, key := range keys {
		wantValue(t, s, key, []byte(key))
	}
	if caps.Erase {
		erasePrefix(t, s, "c/0/")
		erasePrefix(t, s, "p/a/")
		for _, key := range keys {
			wantValue(t, s, key, []byte(key))
		}
		erase(t, s, "p/a")
		wantMissing(t, s, "p/a")
		for _, key := range keys[1:] {
			wantValue(t, s, key, []byte(key))
		}
	}
	if !caps.List {
		return
	}
	wantStrings(t, `List("p/ab/")`, listAll(t, s, "p/ab/"), nil)
	wantStrings(t, `List("p/a-b/")`, listAll(t, s, "p/a-b/"), []string{"p/a-b/c"})
	wantStrings(t, `List("c/")`, listAll(t, s, "c/"), []string{"c/0", "c/0.1", "c/0.1.2", "c/01"})
	keysP := []string{"p/a.b", "p/ab", "p/abc", "p/b"}
	if !caps.Erase {
		keysP = append([]string{"p/a"}, keysP...)
	}
	wantDir(t, s, "p/", keysP, []string{"p/a-b/", "p/ba/"})
}

// testUnusualPrefixes lists and erases below prefixes with spaces, '+'
// and non-ASCII letters, where keys are escaped on the way to a service
// and unescaped on the way back. "a+b" and "a b" side by side catch a
// '+' taken for a space.
func testUnusualPrefixes(t *testing.T, s store.Store) {
	keys := []string{"with space/a b", "with space/c", "ünï/日本/x", "ünï/y",
		"plus+dir/a+b", "plus+dir/a b", "plus+dir/sub+/c", "pct%/a%20b", "pct%/a b"}
	setKeys(t, s, keys...)
	for _, key := range keys {
		wantValue(t, s, key, []byte(key))
	}
	wantDir(t, s, "plus+dir/", []string{"plus+dir/a b", "plus+dir/a+b"}, []string{"plus+dir/sub+/"})
	wantDir(t, s, "with space/", []string{"with space/a b", "with space/c"}, nil)
	wantDir(t, s, "ünï/", []string{"ünï/y"}, []string{"ünï/日本/"})
	wantDir(t, s, "pct%/", []string{"pct%/a b", "pct%/a%20b"}, nil)
	wantDir(t, s, "", nil, []string{"pct%/", "plus+dir/", "with space/", "ünï/"})
	erasePrefix(t, s, "plus+dir/")
	erase(t, s, "with space/a b")
	erase(t, s, "pct%/a%20b")
	for _, key := range []string{"plus+dir/a+b", "plus+dir/a b", "plus+dir/sub+/c", "with space/a b", "pct%/a%20b"} {
		wantMissing(t, s, key)
	}
	rest := []string{"pct%/a b", "with space/c", "ünï/y", "ünï/日本/x"}
	for _, key := range rest {
		wantValue(t, s, key, []byte(key))
	}
	wantStrings(t, `List("")`, listAll(t, s, ""), rest)
}

// testEraseMissing erases keys that do not exist, beside a key that does,
// below it and under prefixes that do not exist: no error, no change.
func testEraseMissing(t *testing.T, s store.Store) {
	mustSet(t, s, "a/b", []byte("1"))
	for _, key := range []string{"missing", "a/c", "a/b/c", "x/y/z", "a/bb"} {
		if err := s.Erase(t.Context(), key); err != nil {
			t.Fatalf("Erase(%q) of a missing key: %v, want nil", key, err)
		}
		wantMissing(t, s, key)
	}
	wantValue(t, s, "a/b", []byte("1"))
	erasePrefix(t, s, "nothing/here/")
	wantValue(t, s, "a/b", []byte("1"))
	if s.Capabilities().List {
		wantStrings(t, `List("")`, listAll(t, s, ""), []string{"a/b"})
	}
}
