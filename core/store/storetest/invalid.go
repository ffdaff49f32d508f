package storetest

import (
	"errors"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
)

var invalidKeys = []string{
	"", "/abs", "../x", "a/../b", "..", ".", "a//b", "a/", "a/./b",
	"a\x00b", `a\b`, "\xff\xfe",
}

func testInvalidKeys(t *testing.T, s store.Store) {
	caps := s.Capabilities()
	ctx := t.Context()
	for _, key := range invalidKeys {
		if caps.Read {
			_, err := s.Get(ctx, key, store.ByteRange{})
			wantErrIs(t, err, store.ErrInvalidKey, "Get(%q)", key)
			_, err = s.Stat(ctx, key)
			wantErrIs(t, err, store.ErrInvalidKey, "Stat(%q)", key)
		}
		if caps.Write {
			_, err := s.Set(ctx, key, []byte("x"), store.Condition{})
			wantErrIs(t, err, store.ErrInvalidKey, "Set(%q)", key)
		}
		if caps.Erase {
			wantErrIs(t, s.Erase(ctx, key), store.ErrInvalidKey, "Erase(%q)", key)
		}
	}
	if caps.List {
		wantStrings(t, "keys after invalid writes", listAll(t, s, ""), nil)
	}
}

var invalidPrefixes = []string{"a", "/", "/a/", "../", "a//", "./", "a\\/", "a/b"}

func testInvalidPrefixes(t *testing.T, s store.Store) {
	caps := s.Capabilities()
	if caps.Read && caps.Write {
		mustSet(t, s, "a/b", []byte("kept"))
	}
	for _, prefix := range invalidPrefixes {
		if caps.List {
			_, err := store.ListAll(t.Context(), s, prefix)
			wantErrIs(t, err, store.ErrInvalidKey, "List(%q)", prefix)
			_, err = s.ListDir(t.Context(), prefix)
			wantErrIs(t, err, store.ErrInvalidKey, "ListDir(%q)", prefix)
		}
		if caps.Erase {
			err := s.ErasePrefix(t.Context(), prefix)
			wantErrIs(t, err, store.ErrInvalidKey, "ErasePrefix(%q)", prefix)
		}
	}
	if caps.Read && caps.Write {
		wantValue(t, s, "a/b", []byte("kept"))
	}
}

// testUnsupported checks that operations the store does not claim fail
// with ErrUnsupported.
func testUnsupported(t *testing.T, s store.Store) {
	caps := s.Capabilities()
	ctx := t.Context()
	var errs []error
	if !caps.Read {
		_, err := s.Get(ctx, "k", store.ByteRange{})
		errs = append(errs, err)
		_, err = s.Stat(ctx, "k")
		errs = append(errs, err)
	}
	if !caps.Write {
		_, err := s.Set(ctx, "k", []byte("x"), store.Condition{})
		errs = append(errs, err)
	}
	if !caps.Erase {
		errs = append(errs, s.Erase(ctx, "k"), s.EraseMany(ctx, []string{"k", "l"}), s.ErasePrefix(ctx, "p/"))
	}
	if !caps.List {
		_, err := store.ListAll(ctx, s, "")
		errs = append(errs, err)
		_, err = s.ListDir(ctx, "")
		errs = append(errs, err)
	}
	for i, err := range errs {
		if !errors.Is(err, store.ErrUnsupported) {
			t.Errorf("unclaimed operation %d: error %v, want ErrUnsupported", i, err)
		}
	}
	if len(errs) == 0 {
		t.Skip("store claims every capability")
	}
}
