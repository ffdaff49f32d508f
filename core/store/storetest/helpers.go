package storetest

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
)

func mustSet(t *testing.T, s store.Store, key string, data []byte) string {
	t.Helper()
	v, err := s.Set(t.Context(), key, data, store.Condition{})
	if err != nil {
		t.Fatalf("Set(%q): %v", key, err)
	}
	if s.Capabilities().ConditionalWrite && v == "" {
		t.Fatalf("Set(%q) returned an empty version from a store claiming conditional writes", key)
	}
	return v
}

func mustGet(t *testing.T, s store.Store, key string, r store.ByteRange) store.Value {
	t.Helper()
	v, err := s.Get(t.Context(), key, r)
	if err != nil {
		t.Fatalf("Get(%q, %s): %v", key, r, err)
	}
	return v
}

// wantValue fails unless key holds exactly want.
func wantValue(t *testing.T, s store.Store, key string, want []byte) {
	t.Helper()
	got := mustGet(t, s, key, store.ByteRange{})
	if !bytes.Equal(got.Data, want) {
		t.Fatalf("Get(%q) = %s, want %s", key, show(got.Data), show(want))
	}
	info, err := s.Stat(t.Context(), key)
	if err != nil {
		t.Fatalf("Stat(%q): %v", key, err)
	}
	if info.Size != int64(len(want)) {
		t.Fatalf("Stat(%q).Size = %d, want %d", key, info.Size, len(want))
	}
}

// wantMissing fails unless Get and Stat of key report ErrNotFound.
func wantMissing(t *testing.T, s store.Store, key string) {
	t.Helper()
	_, err := s.Get(t.Context(), key, store.ByteRange{})
	wantErrIs(t, err, store.ErrNotFound, "Get(%q)", key)
	_, err = s.Stat(t.Context(), key)
	wantErrIs(t, err, store.ErrNotFound, "Stat(%q)", key)
}

func wantErrIs(t *testing.T, err, target error, format string, args ...any) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf(format+": error %v, want one wrapping %q", append(args, err, target)...)
	}
}

func listAll(t *testing.T, s store.Store, prefix string) []string {
	t.Helper()
	keys, err := store.ListAll(t.Context(), s, prefix)
	if err != nil {
		t.Fatalf("List(%q): %v", prefix, err)
	}
	return keys
}

func wantStrings(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%s = %q, want %q", what, got, want)
	}
}

// show prints short values whole and long ones by length and head.
func show(b []byte) string {
	if len(b) <= 32 {
		return fmt.Sprintf("%q", b)
	}
	return fmt.Sprintf("%q... (%d bytes)", b[:16], len(b))
}

// pattern returns n deterministic bytes that differ between offsets, so a
// misplaced range shows up.
func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	x := uint32(seed) + 1
	for i := range b {
		x = x*1664525 + 1013904223
		b[i] = byte(x >> 24)
	}
	return b
}

func sortStrings(s []string) { slices.Sort(s) }
