package storetest

import (
	"errors"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
)

func setIf(t *testing.T, s store.Store, key string, data []byte, cond store.Condition) (string, error) {
	t.Helper()
	return s.Set(t.Context(), key, data, cond)
}

func wantConflict(t *testing.T, s store.Store, key string, data []byte, cond store.Condition) {
	t.Helper()
	_, err := setIf(t, s, key, data, cond)
	wantErrIs(t, err, store.ErrConflict, "Set(%q, %+v)", key, cond)
}

func testConditionalSet(t *testing.T, s store.Store) {
	v1, err := setIf(t, s, "k", []byte("one"), store.Condition{IfNoneMatch: true})
	if err != nil || v1 == "" {
		t.Fatalf("IfNoneMatch on a new key: version %q, error %v", v1, err)
	}
	wantVersion(t, s, "k", v1)

	wantConflict(t, s, "k", []byte("clobber"), store.Condition{IfNoneMatch: true})
	wantValue(t, s, "k", []byte("one"))
	wantVersion(t, s, "k", v1)

	v2 := mustSet(t, s, "k", []byte("two"))
	wantConflict(t, s, "k", []byte("stale"), store.Condition{IfMatch: v1})
	wantValue(t, s, "k", []byte("two"))
	wantConflict(t, s, "k", []byte("junk"), store.Condition{IfMatch: "no-such-version"})
	wantValue(t, s, "k", []byte("two"))

	v3, err := setIf(t, s, "k", []byte("three"), store.Condition{IfMatch: v2})
	if err != nil {
		t.Fatalf("IfMatch with the current version: %v", err)
	}
	if v3 == v2 || v3 == v1 {
		t.Fatalf("conditional write reused a version: %q (before %q, %q)", v3, v1, v2)
	}
	wantValue(t, s, "k", []byte("three"))
	wantVersion(t, s, "k", v3)

	wantConflict(t, s, "missing", []byte("x"), store.Condition{IfMatch: v3})
	wantMissing(t, s, "missing")
}

// testConditionalAfterErase checks that a version from before an erase
// does not match the value written after it (unless versions digest the
// content and the content is the same: see Options.VersionsFromContent).
func testConditionalAfterErase(t *testing.T, s store.Store, opts Options) {
	old := mustSet(t, s, "k", []byte("same"))
	erase(t, s, "k")
	wantConflict(t, s, "k", []byte("x"), store.Condition{IfMatch: old})
	wantMissing(t, s, "k")
	mustSet(t, s, "k", []byte("different"))
	wantConflict(t, s, "k", []byte("x"), store.Condition{IfMatch: old})
	wantValue(t, s, "k", []byte("different"))
	if opts.VersionsFromContent {
		return
	}
	erase(t, s, "k")
	mustSet(t, s, "k", []byte("same"))
	wantConflict(t, s, "k", []byte("x"), store.Condition{IfMatch: old})
	wantValue(t, s, "k", []byte("same"))
}

func testConcurrentIncrements(t *testing.T, s store.Store) {
	const workers, each = 4, 10
	if _, err := RunIncrements(t.Context(), s, "counter", workers, each); err != nil {
		t.Fatal(err)
	}
	got, err := ReadCounter(t.Context(), s, "counter")
	if err != nil {
		t.Fatal(err)
	}
	if got != workers*each {
		t.Fatalf("counter = %d after %d increments: updates were lost", got, workers*each)
	}
}

// testConditionsUnsupported checks that a store without conditional writes
// refuses a condition instead of ignoring it.
func testConditionsUnsupported(t *testing.T, s store.Store) {
	for _, cond := range []store.Condition{{IfNoneMatch: true}, {IfMatch: "1"}} {
		_, err := setIf(t, s, "k", []byte("x"), cond)
		if !errors.Is(err, store.ErrUnsupported) {
			t.Fatalf("Set with %+v on a store without conditional writes: %v, want ErrUnsupported", cond, err)
		}
	}
}

// LostAnswerIsNotAConflict shows that a store tells a conditional write
// whose answer was lost apart from a conflict: direct and lossy are the
// same store, lossy reached through a proxy that applies the first
// conditional write and cuts its answer (cut reports that it did). The
// store's retry then finds the condition no longer holding, because of
// its own first attempt: that must be an error other than
// store.ErrConflict (a conflict would tell a compare-and-swap writer its
// write failed when it took effect). A plain stale condition afterwards
// is still a conflict.
func LostAnswerIsNotAConflict(t *testing.T, direct, lossy store.Store, cut func() bool) {
	t.Helper()
	ctx := t.Context()
	v1, err := direct.Set(ctx, "k", []byte("one"), store.Condition{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = lossy.Set(ctx, "k", []byte("two"), store.Condition{IfMatch: v1})
	if err == nil || errors.Is(err, store.ErrConflict) {
		t.Fatalf("a conditional write whose answer was lost: %v, want an unknown outcome, not a conflict", err)
	}
	if !cut() {
		t.Fatal("no answer was cut: the check checked nothing")
	}
	got, err := direct.Get(ctx, "k", store.ByteRange{})
	if err != nil || string(got.Data) != "two" {
		t.Fatalf("the lost attempt was applied, so the store holds %q (%v), want two", got.Data, err)
	}
	if _, err := lossy.Set(ctx, "k", []byte("three"), store.Condition{IfMatch: v1}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("a stale If-Match: %v, want a conflict", err)
	}
}
