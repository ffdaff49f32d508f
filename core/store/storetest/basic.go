package storetest

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
)

func testSetGet(t *testing.T, s store.Store) {
	v1 := mustSet(t, s, "a/b", []byte("hello"))
	wantValue(t, s, "a/b", []byte("hello"))
	v2 := mustSet(t, s, "a/b", []byte("overwritten"))
	wantValue(t, s, "a/b", []byte("overwritten"))
	if !s.Capabilities().ConditionalWrite {
		return
	}
	if v1 == v2 {
		t.Fatalf("overwrite kept version %q", v1)
	}
	wantVersion(t, s, "a/b", v2)
}

// testMD5Versions: a store claiming MD5 versions gives, for values written
// whole, the MD5 of their bytes (gateways and copies check writes by it,
// and S3 clients check reads).
func testMD5Versions(t *testing.T, s store.Store) {
	for _, data := range [][]byte{{}, []byte("hello"), bytes.Repeat([]byte("0123456789"), 1000)} {
		v := strings.Trim(mustSet(t, s, "md5/v", data), `"`)
		sum := md5.Sum(data)
		if want := hex.EncodeToString(sum[:]); !strings.EqualFold(v, want) {
			t.Fatalf("Set of %d bytes: version %q, want their MD5 %s (the store claims MD5 versions)", len(data), v, want)
		}
	}
}

// wantVersion fails unless Stat and Get (whole and ranged) report version.
func wantVersion(t *testing.T, s store.Store, key, version string) {
	t.Helper()
	info, err := s.Stat(t.Context(), key)
	if err != nil {
		t.Fatalf("Stat(%q): %v", key, err)
	}
	if info.Version != version {
		t.Fatalf("Stat(%q).Version = %q, want %q (returned by Set)", key, info.Version, version)
	}
	for _, r := range []store.ByteRange{{}, store.Range(1, 2)} {
		v := mustGet(t, s, key, r)
		if v.Version != version {
			t.Fatalf("Get(%q, %s).Version = %q, want %q", key, r, v.Version, version)
		}
		// a store that knows when a value was written says so in both
		if !v.ModTime.Equal(info.ModTime) {
			t.Fatalf("Get(%q, %s).ModTime = %v, Stat says %v", key, r, v.ModTime, info.ModTime)
		}
	}
}

func testNotFound(t *testing.T, s store.Store) {
	wantMissing(t, s, "no/such/key")
	_, err := s.Get(t.Context(), "no/such/key", store.Range(0, 4))
	wantErrIs(t, err, store.ErrNotFound, "ranged Get of a missing key")
	if s.Capabilities().Erase {
		if err := s.Erase(t.Context(), "no/such/key"); err != nil {
			t.Fatalf("Erase of a missing key: %v, want nil", err)
		}
	}
}

// testPrefixIsNotValue checks that a name with keys under it is not itself
// a value (on a filesystem it is a directory).
func testPrefixIsNotValue(t *testing.T, s store.Store) {
	mustSet(t, s, "group/array/zarr.json", []byte("{}"))
	wantMissing(t, s, "group")
	wantMissing(t, s, "group/array")
	wantMissing(t, s, "group/array/zarr.json/deeper")
}

func testErase(t *testing.T, s store.Store) {
	mustSet(t, s, "a/b", []byte("1"))
	mustSet(t, s, "a/c", []byte("2"))
	if err := s.Erase(t.Context(), "a/b"); err != nil {
		t.Fatalf("Erase(a/b): %v", err)
	}
	wantMissing(t, s, "a/b")
	wantValue(t, s, "a/c", []byte("2"))
	if err := s.Erase(t.Context(), "a/b"); err != nil {
		t.Fatalf("second Erase(a/b): %v, want nil", err)
	}
	if err := s.Erase(t.Context(), "a"); err != nil {
		t.Fatalf("Erase of a prefix name: %v, want nil (it is not a value)", err)
	}
	wantValue(t, s, "a/c", []byte("2"))
}

func testEmptyValue(t *testing.T, s store.Store) {
	mustSet(t, s, "empty", []byte{})
	wantValue(t, s, "empty", nil)
	mustSet(t, s, "nil", nil)
	wantValue(t, s, "nil", nil)
	if got := mustGet(t, s, "empty", store.Range(0, 10)).Data; len(got) != 0 {
		t.Fatalf("Range(0,10) of an empty value = %q", got)
	}
	if got := mustGet(t, s, "empty", store.From(3)).Data; len(got) != 0 {
		t.Fatalf("From(3) of an empty value = %q", got)
	}
}

func testUnusualKeys(t *testing.T, s store.Store) {
	keys := []string{
		".zattrs", "a/.zarray", "c/0.0.1", "__private/x",
		"with space/file name.bin", "ünïcödé/日本語/ключ", "emoji/🙂",
		"punct/a-b_c~d=e+f,g;h@i!j'k(l)m", "percent/%2F%00",
	}
	for i, key := range keys {
		mustSet(t, s, key, []byte{byte(i)})
	}
	for i, key := range keys {
		wantValue(t, s, key, []byte{byte(i)})
	}
	if s.Capabilities().List {
		want := append([]string(nil), keys...)
		sortStrings(want)
		wantStrings(t, "List(\"\")", listAll(t, s, ""), want)
	}
}

// testLargeValue writes a value that takes the store's path for large
// values (opts.LargeValue bytes) and reads it back whole and in parts,
// including parts across its middle and at its end.
func testLargeValue(t *testing.T, s store.Store, opts Options) {
	size := opts.LargeValue
	data := pattern(size, 7)
	mustSet(t, s, "big/value", data)
	got := mustGet(t, s, "big/value", store.ByteRange{})
	if !bytes.Equal(got.Data, data) {
		t.Fatalf("%d-byte value came back different (%d bytes)", size, len(got.Data))
	}
	info, err := s.Stat(t.Context(), "big/value")
	if err != nil || info.Size != int64(size) {
		t.Fatalf("Stat of a %d-byte value: %+v, %v", size, info, err)
	}
	mid := int64(size / 2)
	for _, r := range []store.ByteRange{store.Range(mid-500, 1000), store.Range(int64(size)-1000, 1000), store.From(int64(size) - 5)} {
		start, end, _ := r.Resolve(int64(size))
		if part := mustGet(t, s, "big/value", r).Data; !bytes.Equal(part, data[start:end]) {
			t.Fatalf("Get(%s) of a %d-byte value came back different", r, size)
		}
	}
	if s.Capabilities().SuffixRanges {
		tail := mustGet(t, s, "big/value", store.Last(17)).Data
		if !bytes.Equal(tail, data[size-17:]) {
			t.Fatalf("suffix of a %d-byte value = %q, want %q", size, tail, data[size-17:])
		}
	}
}

// testOwnership checks that Set copies its input and that a caller may
// modify what Get returned without changing the stored value.
func testOwnership(t *testing.T, s store.Store) {
	data := []byte("original")
	mustSet(t, s, "owned", data)
	copy(data, "MUTATED!")
	wantValue(t, s, "owned", []byte("original"))
	got := mustGet(t, s, "owned", store.ByteRange{})
	copy(got.Data, "CHANGED!")
	wantValue(t, s, "owned", []byte("original"))
}

// testCancelledRead checks the one property a cancelled read must keep: it
// never looks like a missing key (which would become fill values).
func testCancelledRead(t *testing.T, s store.Store) {
	mustSet(t, s, "present", []byte("value"))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	v, err := s.Get(ctx, "present", store.ByteRange{})
	if errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get with a cancelled context reported ErrNotFound for a present key: %v", err)
	}
	if err == nil && string(v.Data) != "value" {
		t.Fatalf("Get with a cancelled context returned %q without error", v.Data)
	}
}
