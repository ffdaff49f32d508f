package storetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
)

// eraseManyKeys are written, three in four of them erased: more than one
// call of S3's DeleteObjects takes (1000 keys), so a store that batches
// must send a second batch.
const eraseManyKeys = 1401

// testEraseMany erases a batch of keys longer than one DeleteObjects call,
// mixed with missing keys, a repeated key and the name of a prefix (which
// is not a value): the keys given are gone, the others stay, and missing
// keys are no error.
func testEraseMany(t *testing.T, s store.Store) {
	if err := s.EraseMany(t.Context(), nil); err != nil {
		t.Fatalf("EraseMany of no keys: %v", err)
	}
	var all, erase, kept []string
	for i := range eraseManyKeys {
		k := fmt.Sprintf("em/k%05d", i)
		if i%5 == 0 {
			k = fmt.Sprintf("em/d%05d/v", i)
		}
		all = append(all, k)
		if i%4 != 3 {
			erase = append(erase, k)
		} else {
			kept = append(kept, k)
		}
	}
	all = append(all, "other")
	kept = append(kept, "other")
	setParallel(t, s, all)
	batch := append(slices.Clone(erase), "em/missing", "no/such/dir/key", erase[7], "em/d00000")
	if err := s.EraseMany(t.Context(), batch); err != nil {
		t.Fatalf("EraseMany of %d keys (some missing): %v", len(batch), err)
	}
	if s.Capabilities().List {
		slices.Sort(kept)
		wantSame(t, "keys after EraseMany", listAll(t, s, ""), kept)
	} else {
		for i := 0; i < len(erase); i += 37 {
			wantMissing(t, s, erase[i])
		}
		for i := 0; i < len(kept); i += 37 {
			wantValue(t, s, kept[i], []byte(kept[i]))
		}
	}
	wantMissing(t, s, erase[len(erase)-1])
	wantValue(t, s, kept[0], []byte(kept[0]))
	// erasing what is gone is no error either
	if err := s.EraseMany(t.Context(), erase[:10]); err != nil {
		t.Fatalf("EraseMany of keys already erased: %v", err)
	}
}

// testEraseManyInvalid checks that a batch with an invalid key fails with
// ErrInvalidKey naming that key, and erases nothing outside the store.
func testEraseManyInvalid(t *testing.T, s store.Store) {
	mustSet(t, s, "a/b", []byte("kept"))
	for _, key := range invalidKeys {
		err := s.EraseMany(t.Context(), []string{"a/x", key})
		wantErrIs(t, err, store.ErrInvalidKey, "EraseMany([a/x %q])", key)
		if q := fmt.Sprintf("%q", key); !strings.Contains(err.Error(), q) {
			t.Errorf("EraseMany([a/x %s]): error %q does not name the key", q, err)
		}
	}
	wantValue(t, s, "a/b", []byte("kept"))
}
