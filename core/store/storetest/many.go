package storetest

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
)

// testManyKeys writes opts.ManyKeys keys below one prefix (one in five in
// a child prefix of its own) and checks that listing, listing a level and
// erasing the prefix see every one exactly once: a store that lists or
// erases in pages must follow every page.
func testManyKeys(t *testing.T, s store.Store, opts Options) {
	var keys, direct, children []string
	for i := range opts.ManyKeys {
		if i%5 == 0 {
			keys = append(keys, fmt.Sprintf("many/d%05d/v", i))
			children = append(children, fmt.Sprintf("many/d%05d/", i))
		} else {
			keys = append(keys, fmt.Sprintf("many/k%05d", i))
			direct = append(direct, keys[i])
		}
	}
	setParallel(t, s, append(keys, "manyx/k", "other"))
	slices.Sort(keys)

	wantSame(t, `List("many/")`, listAll(t, s, "many/"), keys)
	d := listDir(t, s, "many/")
	wantSame(t, `ListDir("many/").Keys`, d.Keys, direct)
	wantSame(t, `ListDir("many/").Prefixes`, d.Prefixes, children)
	n := 0
	for _, err := range s.List(t.Context(), "many/") {
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		if n++; n == opts.ManyKeys*3/5 {
			break
		}
	}

	erasePrefix(t, s, "many/")
	wantSame(t, `List("many/") after ErasePrefix`, listAll(t, s, "many/"), nil)
	wantDir(t, s, "", []string{"other"}, []string{"manyx/"})
	wantValue(t, s, "manyx/k", []byte("manyx/k"))
}

// setParallel sets each key to its own name, 16 at a time.
func setParallel(t *testing.T, s store.Store, keys []string) {
	t.Helper()
	var (
		wg     sync.WaitGroup
		next   atomic.Int64
		failed atomic.Value
	)
	for range 16 {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(keys) && failed.Load() == nil; i = int(next.Add(1) - 1) {
				if _, err := s.Set(t.Context(), keys[i], []byte(keys[i]), store.Condition{}); err != nil {
					failed.CompareAndSwap(nil, fmt.Errorf("Set(%q): %w", keys[i], err))
				}
			}
		})
	}
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		t.Fatal(err)
	}
}

// wantSame compares long sorted lists and reports counts and the first
// difference rather than both lists.
func wantSame(t *testing.T, what string, got, want []string) {
	t.Helper()
	if slices.Equal(got, want) {
		return
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	at := func(s []string) string {
		if i < len(s) {
			return fmt.Sprintf("%q", s[i])
		}
		return "the end"
	}
	t.Fatalf("%s: %d entries, want %d; first difference at %d: %s, want %s", what, len(got), len(want), i, at(got), at(want))
}
