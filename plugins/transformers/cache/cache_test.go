package cache_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/transformers/cache"
)

// The checks below fail on a cache with the defect each names: the
// mutants test runs each on its mutant, the tests on the cache itself.

// checkWriteSeen: a value read (whole and in part), then written through
// the cache, reads back as written, with the version the write returned.
func checkWriteSeen(t testing.TB, defect string) error {
	s := newSetup(t, cache.Options{RevalidateAfter: long, NegativeTTL: long}, defect)
	ctx := t.Context()
	s.set(t, "k", "first value")
	for _, r := range []store.ByteRange{{}, store.Range(0, 5)} {
		if _, err := s.c.Get(ctx, "k", r); err != nil {
			return err
		}
	}
	v2 := s.set(t, "k", "second value")
	for _, r := range []store.ByteRange{{}, store.Range(0, 5)} {
		v, err := s.c.Get(ctx, "k", r)
		start, end, _ := r.Resolve(12)
		if want := "second value"[start:end]; err != nil || string(v.Data) != want || v.Version != v2 {
			return errorf("after a write, Get(%s) = %q version %q, %v; want %q version %q", r, v.Data, v.Version, err, want, v2)
		}
	}
	return nil
}

// checkRangesDropped: ranges read (and no whole value) before a write are
// all dropped by it.
func checkRangesDropped(t testing.TB, defect string) error {
	s := newSetup(t, cache.Options{RevalidateAfter: long}, defect)
	ctx := t.Context()
	s.set(t, "k", "0123456789")
	ranges := []store.ByteRange{store.Range(2, 3), store.Last(4), store.From(7)}
	for _, r := range ranges {
		if _, err := s.c.Get(ctx, "k", r); err != nil {
			return err
		}
	}
	if _, err := s.c.Get(ctx, "k", store.ByteRange{}); err != nil {
		return err
	}
	s.set(t, "k", "abcdefghij")
	for _, r := range ranges {
		got, err := get(ctx, s.c, "k", r)
		start, end, _ := r.Resolve(10)
		if want := "abcdefghij"[start:end]; err != nil || got != want {
			return errorf("after a write, Get(%s) = %q, %v; want %q", r, got, err, want)
		}
	}
	return nil
}

// checkErrorNotKept: a failed read fails with its error, and the next
// read asks the store again.
func checkErrorNotKept(t testing.TB, defect string) error {
	s := newSetup(t, cache.Options{RevalidateAfter: long, NegativeTTL: long}, defect)
	ctx := t.Context()
	s.setBehind(t, "k", "value")
	boom := errors.New("store unreachable")
	s.next.failNext(1, boom)
	if _, err := s.c.Get(ctx, "k", store.ByteRange{}); !errors.Is(err, boom) || errors.Is(err, store.ErrNotFound) {
		return errorf("Get through a failing store: %v, want its error", err)
	}
	if got, err := get(ctx, s.c, "k", store.ByteRange{}); err != nil || got != "value" {
		return errorf("Get after a failed one = %q, %v; want the value (a failure is not kept)", got, err)
	}
	return nil
}

// checkCoalescing: 32 concurrent Gets of one key not yet read make one
// call to the store, and all get the value.
func checkCoalescing(t testing.TB, defect string) error {
	s := newSetup(t, cache.Options{RevalidateAfter: long}, defect)
	s.setBehind(t, "k", "value")
	release := s.next.hold()
	const readers = 32
	var wg sync.WaitGroup
	errs := make(chan error, readers)
	for range readers {
		wg.Go(func() {
			if got, err := get(t.Context(), s.c, "k", store.ByteRange{}); err != nil || got != "value" {
				errs <- errorf("Get = %q, %v", got, err)
			}
		})
	}
	// every reader has either made a call or joined one
	waitFor(t, "every reader waiting", func() bool { return s.next.gets.Load()+s.c.Stats().Coalesced == readers })
	release()
	wg.Wait()
	close(errs)
	for err := range errs {
		return err
	}
	if n := s.next.gets.Load(); n != 1 {
		return errorf("%d concurrent Gets of one key made %d calls to the store, want 1", readers, n)
	}
	return nil
}

func errorf(format string, args ...any) error { return errors.New(sprintf(format, args...)) }

func TestWriteSeen(t *testing.T) {
	if err := checkWriteSeen(t, ""); err != nil {
		t.Fatal(err)
	}
}

func TestWriteDropsEveryRange(t *testing.T) {
	if err := checkRangesDropped(t, ""); err != nil {
		t.Fatal(err)
	}
}

func TestErrorNotKept(t *testing.T) {
	if err := checkErrorNotKept(t, ""); err != nil {
		t.Fatal(err)
	}
}

func TestCoalescing(t *testing.T) {
	if err := checkCoalescing(t, ""); err != nil {
		t.Fatal(err)
	}
}

// Second reads of whole values and ranges, and Stats of values read
// whole, make no call; a whole value answers any range of it, a bounded
// range the bounded ranges inside it.
func TestSecondReadsAreHits(t *testing.T) {
	s := newSetup(t, cache.Options{RevalidateAfter: long}, "")
	s.setBehind(t, "whole", "0123456789")
	s.setBehind(t, "part", "0123456789")
	wantGet(t, s.c, "whole", store.ByteRange{}, "0123456789")
	wantGet(t, s.c, "part", store.Range(2, 6), "234567")
	s.wantCalls(t, 2, "first reads")
	s.next.reset()
	wantGet(t, s.c, "whole", store.ByteRange{}, "0123456789")
	wantGet(t, s.c, "whole", store.Range(3, 2), "34")
	wantGet(t, s.c, "whole", store.Last(3), "789")
	wantGet(t, s.c, "whole", store.From(8), "89")
	wantGet(t, s.c, "part", store.Range(2, 6), "234567")
	wantGet(t, s.c, "part", store.Range(3, 2), "34")
	info, err := s.c.Stat(t.Context(), "whole")
	if err != nil || info.Size != 10 {
		t.Fatalf("Stat = %+v, %v", info, err)
	}
	s.wantCalls(t, 0, "second reads")
	wantGet(t, s.c, "part", store.Range(0, 4), "0123") // not inside what was read
	s.wantCalls(t, 1, "a range outside the kept one")
	st := s.c.Stats()
	if st.Hits != 7 || st.Misses != 3 {
		t.Fatalf("stats %+v: want 7 hits, 3 misses", st)
	}
	// what a reader gets is its own
	v, _ := s.c.Get(t.Context(), "whole", store.ByteRange{})
	copy(v.Data, "XXXX")
	wantGet(t, s.c, "whole", store.ByteRange{}, "0123456789")
}

// Copy-free reads (GetInto, after the Stat the array layer makes first)
// are kept too, and answered from memory the second time.
func TestGetIntoKept(t *testing.T) {
	s := newSetup(t, cache.Options{RevalidateAfter: long}, "")
	s.setBehind(t, "k", "0123456789")
	shown := s.c.Store()
	if !store.OptionalOf(shown).Into {
		t.Fatal("the cache over a store with GetInto has none")
	}
	read := func() {
		t.Helper()
		info, err := shown.Stat(t.Context(), "k")
		if err != nil {
			t.Fatal(err)
		}
		dst := make([]byte, info.Size)
		if ok, err := store.GetInto(t.Context(), shown, "k", dst); !ok || err != nil || string(dst) != "0123456789" {
			t.Fatalf("GetInto = %v, %v, %q", ok, err, dst)
		}
	}
	read()
	if s.next.intos.Load() != 1 || s.next.gets.Load() != 0 {
		t.Fatalf("first read: %s, want the store's own GetInto", s.next)
	}
	s.next.reset()
	read()
	wantGet(t, s.c, "k", store.Range(1, 2), "12")
	s.wantCalls(t, 0, "second read")
	if ok, err := store.GetInto(t.Context(), shown, "k", make([]byte, 3)); ok || err != nil {
		t.Fatalf("GetInto of another size = %v, %v; want false, nil", ok, err)
	}
}

// The memory tier stays within its bytes, the least recently used out.
func TestLRUEvictionByBytes(t *testing.T) {
	const size = 2000
	per := int64(cache.RecordOverhead + 2 + cache.EntryOverhead + size) // key "kN"
	s := newSetup(t, cache.Options{MemoryBytes: 3 * per, RevalidateAfter: long}, "")
	value := strings.Repeat("x", size)
	for _, k := range []string{"k1", "k2", "k3", "k4"} {
		s.setBehind(t, k, value)
	}
	for _, k := range []string{"k1", "k2", "k3"} {
		wantGet(t, s.c, k, store.ByteRange{}, value)
	}
	s.wantCalls(t, 3, "filling")
	wantGet(t, s.c, "k1", store.ByteRange{}, value) // k2 is now the least recently used
	s.wantCalls(t, 3, "k1 again")
	wantGet(t, s.c, "k4", store.ByteRange{}, value)
	s.wantCalls(t, 4, "k4")
	st := s.c.Stats().Memory
	if st.Bytes > 3*per || st.Evictions != 1 || st.Entries != 3 {
		t.Fatalf("memory tier %+v: want at most %d bytes, 1 eviction, 3 entries", st, 3*per)
	}
	s.next.reset()
	for _, k := range []string{"k1", "k3", "k4"} {
		wantGet(t, s.c, k, store.ByteRange{}, value)
	}
	s.wantCalls(t, 0, "the three kept")
	wantGet(t, s.c, "k2", store.ByteRange{}, value)
	s.wantCalls(t, 1, "k2, evicted")
	// a value larger than the tier is served, not kept
	s.setBehind(t, "big", strings.Repeat("y", int(3*per)))
	for range 2 {
		if _, err := s.c.Get(t.Context(), "big", store.ByteRange{}); err != nil {
			t.Fatal(err)
		}
	}
	s.wantCalls(t, 3, "a value larger than memory")
	if st := s.c.Stats().Memory; st.Bytes > 3*per {
		t.Fatalf("memory tier %+v over its bound %d", st, 3*per)
	}
}

// A value changed behind the cache's back is served as it was until
// revalidate_after has passed, then revalidated with one Stat: a new
// version is read anew, the same one kept, a missing key reported.
func TestRevalidation(t *testing.T) {
	const after = 10 * time.Second
	s := newSetup(t, cache.Options{RevalidateAfter: after}, "")
	s.setBehind(t, "k", "v1")
	wantGet(t, s.c, "k", store.ByteRange{}, "v1")
	wantGet(t, s.c, "k", store.Range(0, 1), "v")
	s.setBehind(t, "k", "v2")
	s.clock.advance(after - time.Nanosecond)
	s.next.reset()
	wantGet(t, s.c, "k", store.ByteRange{}, "v1") // still trusted
	s.wantCalls(t, 0, "before revalidate_after")
	s.clock.advance(time.Nanosecond)
	wantGet(t, s.c, "k", store.ByteRange{}, "v2")
	if s.next.stats.Load() != 1 || s.next.gets.Load() != 1 {
		t.Fatalf("changed value: %s, want 1 Stat and 1 Get", s.next)
	}
	s.next.reset()
	wantGet(t, s.c, "k", store.ByteRange{}, "v2")
	s.wantCalls(t, 0, "just revalidated")
	// unchanged: a Stat, no bytes
	s.clock.advance(after)
	wantGet(t, s.c, "k", store.ByteRange{}, "v2")
	if s.next.stats.Load() != 1 || s.next.gets.Load() != 0 {
		t.Fatalf("unchanged value: %s, want 1 Stat and no Get", s.next)
	}
	// erased behind the cache's back
	if err := s.mem.Erase(t.Context(), "k"); err != nil {
		t.Fatal(err)
	}
	s.clock.advance(after)
	wantMissing(t, s.c, "k")
	st := s.c.Stats()
	if st.Revalidations != 3 || st.Stale != 2 {
		t.Fatalf("stats %+v: want 3 revalidations, 2 stale", st)
	}
}

// Missing keys are remembered for negative_ttl, and forgotten at once by
// a write through the cache; never longer than revalidate_after.
func TestNegativeCaching(t *testing.T) {
	const ttl = 2 * time.Second
	s := newSetup(t, cache.Options{RevalidateAfter: long, NegativeTTL: ttl}, "")
	wantMissing(t, s.c, "k")
	s.wantCalls(t, 1, "first miss")
	wantMissing(t, s.c, "k")
	if _, err := s.c.Stat(t.Context(), "k"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Stat of a remembered miss: %v", err)
	}
	s.wantCalls(t, 1, "remembered miss")
	s.setBehind(t, "k", "there")
	wantMissing(t, s.c, "k") // within negative_ttl
	s.clock.advance(ttl)
	wantGet(t, s.c, "k", store.ByteRange{}, "there")
	if st := s.c.Stats(); st.NegativeHits != 3 {
		t.Fatalf("stats %+v: want 3 negative hits", st)
	}
	// dropped by a write through the cache
	wantMissing(t, s.c, "w")
	s.set(t, "w", "written")
	wantGet(t, s.c, "w", store.ByteRange{}, "written")
	// and by an erase of a prefix... of another key: still missing
	wantMissing(t, s.c, "dir/x")
	if err := s.c.ErasePrefix(t.Context(), "dir/"); err != nil {
		t.Fatal(err)
	}
	s.setBehind(t, "dir/x", "x")
	wantGet(t, s.c, "dir/x", store.ByteRange{}, "x")

	// revalidate_after 0: nothing is remembered
	z := newSetup(t, cache.Options{RevalidateAfter: 0, NegativeTTL: ttl}, "")
	wantMissing(t, z.c, "k")
	wantMissing(t, z.c, "k")
	z.wantCalls(t, 2, "misses with revalidate_after 0")
}

// Erase and ErasePrefix through the cache drop what it keeps of the keys.
func TestErasesDrop(t *testing.T) {
	s := newSetup(t, cache.Options{RevalidateAfter: long, NegativeTTL: long}, "")
	for _, k := range []string{"a/1", "a/2", "b"} {
		s.set(t, k, k)
		wantGet(t, s.c, k, store.ByteRange{}, k)
	}
	if err := s.c.Erase(t.Context(), "b"); err != nil {
		t.Fatal(err)
	}
	wantMissing(t, s.c, "b")
	if err := s.c.ErasePrefix(t.Context(), "a/"); err != nil {
		t.Fatal(err)
	}
	wantMissing(t, s.c, "a/1")
	wantMissing(t, s.c, "a/2")
}

// Conditions go to the store as they are: a stale cached version does not
// make a write succeed, and a refused write drops the entry, so the
// writer's next read is fresh.
func TestConditionalWritesDecidedByStore(t *testing.T) {
	s := newSetup(t, cache.Options{RevalidateAfter: long}, "")
	v1 := s.set(t, "k", "one")
	if v, _ := s.c.Get(t.Context(), "k", store.ByteRange{}); v.Version != v1 {
		t.Fatalf("version %q, want %q", v.Version, v1)
	}
	s.setBehind(t, "k", "two")
	if v, _ := s.c.Get(t.Context(), "k", store.ByteRange{}); v.Version != v1 {
		t.Fatalf("stale read: version %q, want the kept %q", v.Version, v1)
	}
	if _, err := s.c.Set(t.Context(), "k", []byte("three"), store.Condition{IfMatch: v1}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("Set IfMatch the cached (stale) version: %v, want ErrConflict from the store", err)
	}
	v, err := s.c.Get(t.Context(), "k", store.ByteRange{})
	if err != nil || string(v.Data) != "two" {
		t.Fatalf("read after a refused write = %q, %v; want the store's value", v.Data, err)
	}
	if _, err := s.c.Set(t.Context(), "k", []byte("three"), store.Condition{IfMatch: v.Version}); err != nil {
		t.Fatalf("Set IfMatch the current version: %v", err)
	}
	if _, err := s.c.Set(t.Context(), "k", []byte("x"), store.Condition{IfNoneMatch: true}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("Set IfNoneMatch of an existing key: %v", err)
	}
}

// A reader whose context ends stops waiting; the call it shared goes on
// for the others, with a context that did not end.
func TestWaiterLeavesWithoutCancelling(t *testing.T) {
	s := newSetup(t, cache.Options{RevalidateAfter: long}, "")
	s.setBehind(t, "k", "value")
	release := s.next.hold()
	ctxA, cancelA := context.WithCancel(t.Context())
	errA := make(chan error, 1)
	resB := make(chan string, 1)
	go func() {
		_, err := s.c.Get(ctxA, "k", store.ByteRange{})
		errA <- err
	}()
	waitFor(t, "A calling", func() bool { return s.next.gets.Load() == 1 })
	go func() {
		got, err := get(t.Context(), s.c, "k", store.ByteRange{})
		if err != nil {
			got = err.Error()
		}
		resB <- got
	}()
	waitFor(t, "B waiting", func() bool { return s.c.Stats().Coalesced == 1 })
	cancelA()
	if err := <-errA; !errors.Is(err, context.Canceled) || errors.Is(err, store.ErrNotFound) {
		t.Fatalf("A, cancelled: %v", err)
	}
	release()
	if got := <-resB; got != "value" {
		t.Fatalf("B = %q", got)
	}
	s.next.mu.Lock()
	defer s.next.mu.Unlock()
	if len(s.next.ctxErr) != 1 || s.next.ctxErr[0] != nil {
		t.Fatalf("the shared call's context: %v, want one call, not cancelled", s.next.ctxErr)
	}
}

// A failed call fails every reader waiting for it with its error.
func TestFailedCallFailsItsWaiters(t *testing.T) {
	s := newSetup(t, cache.Options{RevalidateAfter: long, NegativeTTL: long}, "")
	s.setBehind(t, "k", "value")
	boom := errors.New("store unreachable")
	s.next.failNext(1, boom)
	release := s.next.hold()
	const readers = 8
	errs := make(chan error, readers)
	for range readers {
		go func() {
			_, err := s.c.Get(t.Context(), "k", store.ByteRange{})
			errs <- err
		}()
	}
	waitFor(t, "readers waiting", func() bool { return s.next.gets.Load()+s.c.Stats().Coalesced == readers })
	release()
	for range readers {
		if err := <-errs; !errors.Is(err, boom) {
			t.Fatalf("waiter: %v, want the call's error", err)
		}
	}
	wantGet(t, s.c, "k", store.ByteRange{}, "value")
	if n := s.next.gets.Load(); n != 2 {
		t.Fatalf("%d Gets, want 2 (the failed call, then one more)", n)
	}
}

// unversioned is a store that gives no versions.
type unversioned struct{ store.Store }

func (u unversioned) Capabilities() store.Capabilities {
	c := u.Store.Capabilities()
	c.ConditionalWrite = false
	return c
}

func (u unversioned) Get(ctx context.Context, key string, r store.ByteRange) (store.Value, error) {
	v, err := u.Store.Get(ctx, key, r)
	v.Version = ""
	return v, err
}

func (u unversioned) Stat(ctx context.Context, key string) (store.Info, error) {
	info, err := u.Store.Stat(ctx, key)
	info.Version = ""
	return info, err
}

// Values without versions are served for revalidate_after after they were
// read, then read again (nothing can revalidate them), and never go to
// disk.
func TestUnversioned(t *testing.T) {
	const after = 10 * time.Second
	mem := store.NewMemory()
	next := newCounting(store.WithOptional(unversioned{mem}, store.Optional{})) // reads and listings without versions
	clk := newClock()
	d, err := cache.OpenDisk(t.TempDir(), 1<<20, 1000)
	if err != nil {
		t.Fatal(err)
	}
	c, err := cache.New(next, cache.Options{MemoryBytes: 1 << 20, RevalidateAfter: after, Disk: d, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	mem.Set(t.Context(), "k", []byte("v1"), store.Condition{})
	wantGet(t, c, "k", store.ByteRange{}, "v1")
	wantGet(t, c, "k", store.Range(0, 1), "v")
	mem.Set(t.Context(), "k", []byte("v2"), store.Condition{})
	clk.advance(after - time.Nanosecond)
	wantGet(t, c, "k", store.ByteRange{}, "v1")
	if next.calls() != 1 {
		t.Fatalf("within revalidate_after: %s, want the first Get only", next)
	}
	clk.advance(time.Nanosecond)
	wantGet(t, c, "k", store.ByteRange{}, "v2")
	if next.gets.Load() != 2 || next.stats.Load() != 0 {
		t.Fatalf("after revalidate_after: %s, want one more Get and no Stat", next)
	}
	if st := c.Stats(); st.Disk == nil || st.Disk.Entries != 0 {
		t.Fatalf("disk tier %+v: values without versions went to disk", st.Disk)
	}
}

// A cache whose Close does not close the store below, to reopen a cache
// over the same store and disk tier.
type keepOpen struct{ store.Store }

func (keepOpen) Close() error { return nil }

// The disk tier answers what memory no longer holds, across a restart,
// under a version the store confirms; a stale entry is dropped.
func TestDiskTier(t *testing.T) {
	dir := t.TempDir()
	mem := store.NewMemory()
	next := newCounting(mem)
	open := func(memory int64) *cache.Cache {
		t.Helper()
		d, err := cache.OpenDisk(dir, 1<<20, 1000)
		if err != nil {
			t.Fatal(err)
		}
		c, err := cache.New(keepOpen{next}, cache.Options{MemoryBytes: memory, RevalidateAfter: long, Disk: d})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	mem.Set(t.Context(), "k", []byte("0123456789"), store.Condition{})
	c := open(1 << 20)
	wantGet(t, c, "k", store.Range(2, 3), "234")
	wantGet(t, c, "k", store.ByteRange{}, "0123456789")
	if st := c.Stats(); st.Disk.Entries != 2 {
		t.Fatalf("disk tier %+v, want 2 entries", st.Disk)
	}
	if _, err := cache.OpenDisk(dir, 1<<20, 1000); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("a second disk tier on one directory: %v, want it refused", err)
	}
	c.Close()

	// restart: one Stat confirms the version, no bytes are read
	next.reset()
	c = open(1 << 20)
	wantGet(t, c, "k", store.Range(2, 3), "234")
	wantGet(t, c, "k", store.ByteRange{}, "0123456789")
	if next.gets.Load() != 0 || next.stats.Load() != 1 {
		t.Fatalf("after a restart: %s, want one Stat", next)
	}
	if st := c.Stats(); st.DiskHits != 2 {
		t.Fatalf("stats %+v: want 2 disk hits", st)
	}
	c.Close()

	// changed behind the cache's back while it was down
	mem.Set(t.Context(), "k", []byte("changed!!!"), store.Condition{})
	next.reset()
	c = open(1 << 20)
	wantGet(t, c, "k", store.Range(2, 3), "ang")
	wantGet(t, c, "k", store.ByteRange{}, "changed!!!")
	if next.gets.Load() != 2 {
		t.Fatalf("stale disk entries: %s, want both read anew", next)
	}
	c.Close()

	// memory too small for two values: the one evicted comes from disk
	value := strings.Repeat("v", 3000)
	mem.Set(t.Context(), "a", []byte(value), store.Condition{})
	mem.Set(t.Context(), "b", []byte(value), store.Condition{})
	c = open(cache.MinMemory)
	defer c.Close()
	wantGet(t, c, "a", store.ByteRange{}, value)
	wantGet(t, c, "b", store.ByteRange{}, value)
	next.reset()
	wantGet(t, c, "a", store.ByteRange{}, value)
	if next.gets.Load() != 0 {
		t.Fatalf("evicted from memory: %s, want it from disk", next)
	}
}

// A read in flight when a write through the cache lands neither fills the
// cache with what it read nor takes readers who came after the write.
func TestWriteDuringRead(t *testing.T) {
	s := newSetup(t, cache.Options{RevalidateAfter: long}, "")
	s.setBehind(t, "k", "old")
	release := s.next.hold()
	first := make(chan string, 1)
	go func() {
		got, _ := get(t.Context(), s.c, "k", store.ByteRange{})
		first <- got
	}()
	waitFor(t, "the first read calling", func() bool { return s.next.gets.Load() == 1 })
	s.set(t, "k", "new")
	second := make(chan string, 1)
	go func() {
		got, _ := get(t.Context(), s.c, "k", store.ByteRange{})
		second <- got
	}()
	// the second read makes a call of its own instead of joining the first
	waitFor(t, "the second read calling", func() bool { return s.next.gets.Load() == 2 })
	release()
	<-first // "old" or "new": it overlapped the write
	if got := <-second; got != "new" {
		t.Fatalf("read begun after the write = %q", got)
	}
	s.next.reset()
	wantGet(t, s.c, "k", store.ByteRange{}, "new")
	if st := s.c.Stats(); st.Coalesced != 0 {
		t.Fatalf("stats %+v: a reader joined a call from before the write", st)
	}
}
