package cache_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/transformers/cache"
)

// valueOf is a value of n bytes whose every range tells where it is from.
func valueOf(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "%d,", i)
	}
	return b.String()[:n]
}

// readBytes reads each byte of key from 0 to n (one-byte ranges),
// checking it against value.
func readBytes(t *testing.T, c store.Store, key, value string, n int) {
	t.Helper()
	for i := range n {
		wantGet(t, c, key, store.Range(int64(i), 1), value[i:i+1])
	}
}

// rangesOf writes a value of size bytes behind the cache, states it
// through the cache if stat, then reads its first n bytes one by one and
// returns what those reads asked the store: Gets, and ranged ones.
func rangesOf(t *testing.T, s *setup, key string, size int, stat bool, n int) (gets, ranged int64) {
	t.Helper()
	v := valueOf(size)
	s.setBehind(t, key, v)
	if stat {
		if _, err := s.c.Stat(t.Context(), key); err != nil {
			t.Fatal(err)
		}
	}
	s.next.reset()
	readBytes(t, s.c, key, v, n)
	return s.next.gets.Load(), s.next.ranged.Load()
}

// The ranges of a value the cache knows (from a Stat) to be small are read
// whole once, and kept as one entry, whichever ranges are read; a value
// too large, or of unknown size, is read range by range.
func TestSmallValueReadWhole(t *testing.T) {
	s := newSetup(t, cache.Options{RevalidateAfter: long}, "")
	if gets, ranged := rangesOf(t, s, "small", 1000, true, 100); gets != 1 || ranged != 0 {
		t.Fatalf("100 one-byte ranges of a value of 1000 bytes: %d Gets, %d ranged; want one Get of the whole value", gets, ranged)
	}
	if st := s.c.Stats().Memory; st.Entries != 1 {
		t.Fatalf("memory tier %+v; want one entry (the whole value)", st)
	}
	if _, ranged := rangesOf(t, s, "large", 1<<20+1, true, 10); ranged != 10 {
		t.Fatalf("10 ranges of a value over 1 MiB: %d ranged Gets; want 10", ranged)
	}
	if _, ranged := rangesOf(t, s, "unknown", 1000, false, 10); ranged != 10 {
		t.Fatalf("10 ranges of a value never stated: %d ranged Gets; want 10", ranged)
	}
}

// A value is not read whole for a range where no tier could keep it: a
// memory tier of 4 KiB does not read 5000 bytes for each byte asked.
func TestSmallValueNotReadWholeWhereNothingKeepsIt(t *testing.T) {
	s := newSetup(t, cache.Options{MemoryBytes: cache.MinMemory, RevalidateAfter: long}, "")
	if gets, ranged := rangesOf(t, s, "k", 5000, true, 10); ranged != 10 {
		t.Fatalf("10 ranges through a 4 KiB memory tier: %d Gets, %d ranged; want 10 ranged Gets", gets, ranged)
	}
}

// A range from a value's start that the value ends within (what the
// gateway asks for a plain GET) is kept as the whole value: its size is
// known, and every read of it is answered without a call.
func TestClippedRangeKeptWhole(t *testing.T) {
	s := newSetup(t, cache.Options{RevalidateAfter: long}, "")
	s.setBehind(t, "k", "0123456789")
	wantGet(t, s.c, "k", store.Range(0, 4096), "0123456789")
	s.next.reset()
	info, err := s.c.Stat(t.Context(), "k")
	if err != nil || info.Size != 10 {
		t.Fatalf("Stat = %+v, %v", info, err)
	}
	wantGet(t, s.c, "k", store.ByteRange{}, "0123456789")
	wantGet(t, s.c, "k", store.Last(3), "789")
	wantGet(t, s.c, "k", store.From(8), "89")
	wantGet(t, s.c, "k", store.Range(0, 4096), "0123456789")
	s.wantCalls(t, 0, "reads of a value read whole through a longer range")
}

// On disk, a range is answered from an entry of its key that holds it
// (the whole value, or a bounded range around it) when that entry is
// small enough to read for it: after a restart, ranges of a value kept
// whole make no Get and no entry. An entry over 1 MiB answers only its
// own range.
func TestDiskRangesFromEntries(t *testing.T) {
	dir := t.TempDir()
	mem := store.NewMemory()
	next := newCounting(mem)
	open := func() *cache.Cache {
		t.Helper()
		d, err := cache.OpenDisk(dir, 8<<20, 1000)
		if err != nil {
			t.Fatal(err)
		}
		c, err := cache.New(keepOpen{next}, cache.Options{MemoryBytes: cache.MinMemory, RevalidateAfter: long, Disk: d})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	whole, part, large := valueOf(3000), valueOf(3000), valueOf(1<<20+10)
	for k, v := range map[string]string{"whole": whole, "part": part, "large": large} {
		if _, err := mem.Set(t.Context(), k, []byte(v), store.Condition{}); err != nil {
			t.Fatal(err)
		}
	}
	c := open()
	wantGet(t, c, "whole", store.ByteRange{}, whole)
	wantGet(t, c, "part", store.Range(1000, 1000), part[1000:2000])
	wantGet(t, c, "large", store.ByteRange{}, large)
	c.Close()

	next.reset()
	c = open()
	defer c.Close()
	wantGet(t, c, "whole", store.Range(5, 10), whole[5:15])
	wantGet(t, c, "whole", store.Last(7), whole[3000-7:])
	wantGet(t, c, "part", store.Range(1500, 20), part[1500:1520])
	if next.gets.Load() != 0 {
		t.Fatalf("ranges inside entries on disk, after a restart: %s; want no Get", next)
	}
	if st := c.Stats(); st.Disk.Entries != 3 || st.DiskHits+st.Hits != 3 || st.DiskHits < 2 {
		t.Fatalf("stats %+v, disk %+v; want 3 hits, 2 of them at least from disk, and the 3 entries only", st, st.Disk)
	}
	wantGet(t, c, "large", store.Range(5, 10), large[5:15])
	if next.ranged.Load() != 1 {
		t.Fatalf("a range of an entry over 1 MiB: %s; want a ranged Get", next)
	}
}
