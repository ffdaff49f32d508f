package disk

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// value is the data the tests store for (key, tag, version): a reader can
// tell whether what it got is what was put.
func value(key, tag, version string, n int) []byte {
	b := make([]byte, n)
	seed := []byte(key + "\x00" + tag + "\x00" + version)
	for i := range b {
		b[i] = seed[i%len(seed)] ^ byte(i*7)
	}
	return b
}

// fileSize is the size of the entry file of (key, tag, version) with n
// bytes of data.
func fileSize(t *testing.T, key, tag, version string, n int) int64 {
	t.Helper()
	h, err := encodeHeader(key, tag, version, make([]byte, n))
	if err != nil {
		t.Fatal(err)
	}
	return int64(len(h) + n)
}

// manyEntries is an entry bound that the tests bounded in bytes never
// reach.
const manyEntries = 1 << 20

func open(t *testing.T, dir string, max int64) *Tier {
	t.Helper()
	return openN(t, dir, max, manyEntries)
}

// openN opens a tier bounded in bytes and in entries.
func openN(t *testing.T, dir string, max, entries int64) *Tier {
	t.Helper()
	d, err := Open(dir, max, entries)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func put(t *testing.T, d *Tier, key, tag, version string, data []byte) {
	t.Helper()
	if err := d.Put(key, tag, version, data); err != nil {
		t.Fatalf("Put(%q, %q): %v", key, tag, err)
	}
}

// wantHit checks that (key, tag) holds data at version.
func wantHit(t *testing.T, d *Tier, key, tag, version string, data []byte) {
	t.Helper()
	got, v, ok, err := d.Get(key, tag)
	if err != nil || !ok || v != version || !bytes.Equal(got, data) {
		t.Fatalf("Get(%q, %q) = %d bytes, %q, %v, %v; want %d bytes, %q, true, nil",
			key, tag, len(got), v, ok, err, len(data), version)
	}
}

// wantMiss checks that (key, tag) is a miss without error.
func wantMiss(t *testing.T, d *Tier, key, tag string) {
	t.Helper()
	got, v, ok, err := d.Get(key, tag)
	if err != nil || ok || got != nil || v != "" {
		t.Fatalf("Get(%q, %q) = %d bytes, %q, %v, %v; want a miss", key, tag, len(got), v, ok, err)
	}
}

// onDisk is the entry files below dir's tier: their count, and what they
// and the tier's directories take on disk as du counts it (st_blocks); it
// fails the test if temporary files are left.
func onDisk(t *testing.T, dir string) (files, used int64) {
	t.Helper()
	root := filepath.Join(dir, subdir)
	err := filepath.WalkDir(root, func(path string, de fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if isTempName(de.Name()) {
			t.Errorf("temporary file left: %s", path)
		}
		_, entry := entryName(de.Name())
		entry = entry && de.Type().IsRegular()
		ours := path == root || de.IsDir() && isShardDir(de.Name()) && filepath.Dir(path) == root
		if !entry && !ours {
			return nil
		}
		var st syscall.Stat_t
		if err := syscall.Lstat(path, &st); err != nil {
			return err
		}
		used += st.Blocks * 512
		if entry {
			files++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files, used
}

// wantOnDisk checks that the tier's counters say what the directory
// holds: its entry files, and the bytes du counts of them and of its
// directories.
func wantOnDisk(t *testing.T, d *Tier, dir string) Stats {
	t.Helper()
	s := d.Stats()
	files, used := onDisk(t, dir)
	if files != s.Entries || used != s.Bytes {
		t.Fatalf("stats %+v; on disk %d entry files, %d bytes", s, files, used)
	}
	return s
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	d := open(t, dir, 1<<20)
	whole := value("a/c/0", "", "v1", 1000)
	part := value("a/c/0", "bytes=0-99", "v1", 100)
	put(t, d, "a/c/0", "", "v1", whole)
	put(t, d, "a/c/0", "bytes=0-99", "v1", part)
	wantHit(t, d, "a/c/0", "", "v1", whole)
	wantHit(t, d, "a/c/0", "bytes=0-99", "v1", part)
	wantMiss(t, d, "a/c/0", "bytes=100-199")
	wantMiss(t, d, "a/c/1", "")

	// A new version replaces the old one, of that tag only.
	whole2 := value("a/c/0", "", "v2", 1500)
	put(t, d, "a/c/0", "", "v2", whole2)
	wantHit(t, d, "a/c/0", "", "v2", whole2)
	wantHit(t, d, "a/c/0", "bytes=0-99", "v1", part)

	// Key and tag do not run together: ("a", "bc") is not ("ab", "c").
	put(t, d, "a", "bc", "x", []byte("one"))
	put(t, d, "ab", "c", "y", []byte("two"))
	wantHit(t, d, "a", "bc", "x", []byte("one"))
	wantHit(t, d, "ab", "c", "y", []byte("two"))

	// Empty data, empty version, binary keys.
	put(t, d, "empty", "", "", nil)
	wantHit(t, d, "empty", "", "", []byte{})
	put(t, d, "k\x00\xff", "t\n", "\"etag\"", []byte{0, 1, 2})
	wantHit(t, d, "k\x00\xff", "t\n", "\"etag\"", []byte{0, 1, 2})

	if s := wantOnDisk(t, d, dir); s.Entries != 6 || s.Evictions != 0 || s.Corrupt != 0 {
		t.Fatalf("stats %+v; want 6 entries", s)
	}
}

func TestDropKey(t *testing.T) {
	dir := t.TempDir()
	d := open(t, dir, 1<<20)
	for _, k := range []string{"a", "ab", "a/b", "b"} {
		for _, tag := range []string{"", "bytes=0-9", "bytes=-4"} {
			put(t, d, k, tag, "v", value(k, tag, "v", 50))
		}
	}
	if err := d.DropKey("a"); err != nil {
		t.Fatal(err)
	}
	for _, tag := range []string{"", "bytes=0-9", "bytes=-4"} {
		wantMiss(t, d, "a", tag)
		if exists(d.path(nameOf("a", tag))) {
			t.Errorf("file of (a, %q) left", tag)
		}
		for _, k := range []string{"ab", "a/b", "b"} {
			wantHit(t, d, k, tag, "v", value(k, tag, "v", 50))
		}
	}
	if err := d.DropKey("nothing"); err != nil {
		t.Fatal(err)
	}
	if s := d.Stats(); s.Entries != 9 {
		t.Fatalf("stats %+v; want 9 entries", s)
	}
	if files, _ := onDisk(t, dir); files != 9 {
		t.Fatalf("%d files on disk; want 9", files)
	}
	// Stored again after a drop.
	put(t, d, "a", "", "v2", []byte("again"))
	wantHit(t, d, "a", "", "v2", []byte("again"))
}

// Recency survives a restart: the entries evicted after it are the
// least recently used before it.
func TestRestart(t *testing.T) {
	dir := t.TempDir()
	d, err := Open(dir, 1<<20, 4)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		k := fmt.Sprint("k", i)
		put(t, d, k, "", "v1", value(k, "", "v1", 100))
	}
	// Recency, least recent first: k2, k3, k0, k1.
	wantHit(t, d, "k0", "", "v1", value("k0", "", "v1", 100))
	wantHit(t, d, "k1", "", "v1", value("k1", "", "v1", 100))
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}

	d = openN(t, dir, 1<<20, 4)
	if s := wantOnDisk(t, d, dir); s.Entries != 4 {
		t.Fatalf("after restart: %+v; want 4 entries", s)
	}
	put(t, d, "k4", "", "v1", value("k4", "", "v1", 100))
	if exists(d.path(nameOf("k2", ""))) || !exists(d.path(nameOf("k3", ""))) {
		t.Fatal("the first eviction after the restart did not remove k2, the least recently used")
	}
	put(t, d, "k5", "", "v1", value("k5", "", "v1", 100))
	if exists(d.path(nameOf("k3", ""))) {
		t.Fatal("the second eviction after the restart did not remove k3")
	}
	for _, k := range []string{"k0", "k1", "k4", "k5"} {
		wantHit(t, d, k, "", "v1", value(k, "", "v1", 100))
	}
	wantMiss(t, d, "k2", "")
	wantMiss(t, d, "k3", "")
	if s := d.Stats(); s.Entries != 4 || s.Evictions != 2 {
		t.Fatalf("stats %+v; want 4 entries, 2 evictions", s)
	}
}

// A tier reopened with a smaller bound evicts down to it, least recent
// first.
func TestRestartSmaller(t *testing.T) {
	dir := t.TempDir()
	d, err := Open(dir, 1<<20, 10)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		k := fmt.Sprint("k", i)
		put(t, d, k, "", "v", value(k, "", "v", 10))
	}
	wantHit(t, d, "k0", "", "v", value("k0", "", "v", 10))
	d.Close()
	d = openN(t, dir, 1<<20, 2)
	if s := wantOnDisk(t, d, dir); s.Entries != 2 || s.Evictions != 4 {
		t.Fatalf("stats %+v; want 2 entries, 4 evictions", s)
	}
	wantHit(t, d, "k0", "", "v", value("k0", "", "v", 10))
	wantHit(t, d, "k5", "", "v", value("k5", "", "v", 10))
}

func TestCorrupt(t *testing.T) {
	damage := map[string]func(path string, b []byte) []byte{
		"garbage": func(_ string, b []byte) []byte { return bytes.Repeat([]byte{0xa5}, len(b)) },
		"garbage data": func(_ string, b []byte) []byte {
			return append(b[:len(b)-200:len(b)-200], bytes.Repeat([]byte("x"), 200)...)
		},
		"zeros":            func(_ string, b []byte) []byte { return make([]byte, len(b)) },
		"empty":            func(_ string, b []byte) []byte { return nil },
		"truncated data":   func(_ string, b []byte) []byte { return b[:len(b)-10] },
		"truncated header": func(_ string, b []byte) []byte { return b[:20] },
		"longer":           func(_ string, b []byte) []byte { return append(b, 0) },
		"flipped data":     func(_ string, b []byte) []byte { b[len(b)-1] ^= 1; return b },
		"flipped length":   func(_ string, b []byte) []byte { b[24] ^= 1; return b },
		"flipped version":  func(_ string, b []byte) []byte { b[fixedLen+len("key")+len("tag")] ^= 1; return b },
	}
	for what, f := range damage {
		t.Run(what, func(t *testing.T) {
			dir := t.TempDir()
			d := open(t, dir, 1<<20)
			data := value("key", "tag", "v1", 1000)
			put(t, d, "key", "tag", "v1", data)
			put(t, d, "other", "", "v1", data)
			path := d.path(nameOf("key", "tag"))
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, f(path, b), 0o600); err != nil {
				t.Fatal(err)
			}
			wantMiss(t, d, "key", "tag")
			if exists(path) {
				t.Fatal("the damaged file was not removed")
			}
			if s := wantOnDisk(t, d, dir); s.Corrupt != 1 || s.Entries != 1 {
				t.Fatalf("stats %+v; want 1 corrupt, 1 entry", s)
			}
			wantHit(t, d, "other", "", "v1", data)
			put(t, d, "key", "tag", "v2", data)
			wantHit(t, d, "key", "tag", "v2", data)
		})
	}
}

// Files damaged while no process had the tier open: a damaged header is
// found by Open, damaged data by the first Get.
func TestCorruptAtRest(t *testing.T) {
	dir := t.TempDir()
	d, err := Open(dir, 1<<20, manyEntries)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"header", "data", "short", "good"} {
		put(t, d, k, "", "v", value(k, "", "v", 500))
	}
	d.Close()
	rewrite := func(k string, f func([]byte) []byte) {
		path := d.path(nameOf(k, ""))
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, f(b), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	rewrite("header", func(b []byte) []byte { b[fixedLen] ^= 0x40; return b })
	rewrite("data", func(b []byte) []byte { b[len(b)-100] ^= 0x40; return b })
	rewrite("short", func(b []byte) []byte { return b[:len(b)/2] })

	d = open(t, dir, 1<<20)
	if s := d.Stats(); s.Corrupt != 2 || s.Entries != 2 {
		t.Fatalf("after Open: %+v; want 2 corrupt (header, short), 2 entries", s)
	}
	for _, k := range []string{"header", "short"} {
		if exists(d.path(nameOf(k, ""))) {
			t.Errorf("%s: damaged file not removed at Open", k)
		}
	}
	wantMiss(t, d, "data", "")
	if exists(d.path(nameOf("data", ""))) {
		t.Error("file with damaged data not removed")
	}
	wantHit(t, d, "good", "", "v", value("good", "", "v", 500))
	if s := d.Stats(); s.Corrupt != 3 || s.Entries != 1 {
		t.Fatalf("stats %+v; want 3 corrupt, 1 entry", s)
	}
}

// Entries leave least recently used first when the entry bound is
// reached.
func TestEviction(t *testing.T) {
	dir := t.TempDir()
	d := openN(t, dir, 1<<20, 3)
	for _, k := range []string{"a", "b", "c"} {
		put(t, d, k, "", "v", value(k, "", "v", 1000))
		wantOnDisk(t, d, dir)
	}
	wantHit(t, d, "a", "", "v", value("a", "", "v", 1000)) // b, c, a
	put(t, d, "d", "", "v", value("d", "", "v", 1000))     // c, a, d
	wantOnDisk(t, d, dir)
	wantMiss(t, d, "b", "")
	wantHit(t, d, "c", "", "v", value("c", "", "v", 1000)) // a, d, c
	put(t, d, "e", "", "v", value("e", "", "v", 1000))     // d, c, e
	wantMiss(t, d, "a", "")
	for _, k := range []string{"c", "d", "e"} {
		wantHit(t, d, k, "", "v", value(k, "", "v", 1000))
	}
	if s := wantOnDisk(t, d, dir); s.Evictions != 2 || s.Entries != 3 {
		t.Fatalf("stats %+v; want 2 evictions, 3 entries", s)
	}
}

// The bound in bytes counts what the tier takes on disk, as du does (the
// blocks of its files and directories), not the bytes it holds: a
// one-byte value takes a block, and the tier keeps no more of them than
// its size holds (counting bytes, it kept a thousand in 64 KiB, 4 MB on
// disk).
func TestEvictionByBlocks(t *testing.T) {
	dir := t.TempDir()
	const max = 64 << 10
	d := open(t, dir, max)
	for i := range 1000 {
		k := fmt.Sprint("k", i)
		put(t, d, k, "", "v", []byte{byte(i)})
		if _, used := onDisk(t, dir); used > max {
			t.Fatalf("after %d one-byte values: %d bytes on disk, over the bound %d (stats %+v)", i+1, used, max, d.Stats())
		}
	}
	s := wantOnDisk(t, d, dir)
	t.Logf("1000 one-byte values in %d bytes: %+v", max, s)
	if s.Evictions == 0 || s.Entries+s.Evictions != 1000 {
		t.Fatalf("stats %+v; want the values beyond the bound evicted", s)
	}
	wantHit(t, d, "k999", "", "v", []byte{byte(999 % 256)})

	// Larger than the bound: not stored, no error, nothing evicted, and
	// the older value of the same key and tag dropped.
	if err := d.Put("big", "", "v", make([]byte, max)); err != nil {
		t.Fatal(err)
	}
	wantMiss(t, d, "big", "")
	if err := d.Put("k999", "", "v2", make([]byte, max)); err != nil {
		t.Fatal(err)
	}
	wantMiss(t, d, "k999", "")
	// Within the bound, but not beside the tier's directories: the same.
	if err := d.Put("k998", "", "v2", make([]byte, max-fileSize(t, "k998", "", "v2", 0))); err != nil {
		t.Fatal(err)
	}
	wantMiss(t, d, "k998", "")
	if s2 := wantOnDisk(t, d, dir); s2.Evictions != s.Evictions || s2.Entries != s.Entries-2 {
		t.Fatalf("stats %+v, before %+v; want two entries fewer, no eviction", s2, s)
	}

	// Values of many sizes.
	d = open(t, t.TempDir(), 1<<20)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		k := fmt.Sprint("r", r.IntN(40))
		tag := fmt.Sprint("t", r.IntN(3))
		if r.IntN(4) == 0 {
			wantMissOrHit(t, d, k, tag)
			continue
		}
		put(t, d, k, tag, fmt.Sprint(i), value(k, tag, fmt.Sprint(i), r.IntN(64<<10)))
		if s := wantOnDisk(t, d, d.dir); s.Bytes > 1<<20 {
			t.Fatalf("stats %+v over the bound", s)
		}
	}
}

// Tags lists the entries of a key with the lengths of their data, after
// a restart too.
func TestTags(t *testing.T) {
	dir := t.TempDir()
	d := open(t, dir, 1<<20)
	put(t, d, "k", "", "v", make([]byte, 1000))
	put(t, d, "k", "bytes=0-99", "v", make([]byte, 100))
	put(t, d, "k", "bytes=-10", "v", make([]byte, 10))
	put(t, d, "other", "", "v", make([]byte, 5))
	want := map[Kept]bool{{"", 1000}: true, {"bytes=0-99", 100}: true, {"bytes=-10", 10}: true}
	check := func(when string) {
		t.Helper()
		got := d.Tags("k")
		if len(got) != len(want) {
			t.Fatalf("%s: Tags = %v, want %v", when, got, want)
		}
		for _, k := range got {
			if !want[k] {
				t.Fatalf("%s: Tags = %v, want %v", when, got, want)
			}
		}
	}
	check("after the puts")
	d.Close()
	d = open(t, dir, 1<<20)
	check("after a restart")
	if err := d.DropKey("k"); err != nil {
		t.Fatal(err)
	}
	if got := d.Tags("k"); len(got) != 0 {
		t.Fatalf("Tags after DropKey = %v", got)
	}
}

func wantMissOrHit(t *testing.T, d *Tier, key, tag string) {
	t.Helper()
	got, v, ok, err := d.Get(key, tag)
	if err != nil {
		t.Fatal(err)
	}
	if ok && !bytes.Equal(got, value(key, tag, v, len(got))) {
		t.Fatalf("Get(%q, %q): wrong data for version %q", key, tag, v)
	}
}

func TestLeftoverTemps(t *testing.T) {
	dir := t.TempDir()
	d, err := Open(dir, 1<<20, manyEntries)
	if err != nil {
		t.Fatal(err)
	}
	put(t, d, "k", "", "v", []byte("value"))
	d.Close()
	root := filepath.Join(dir, subdir)
	shard := filepath.Join(root, nameOf("k", "")[:2])
	other := filepath.Join(root, "0f")
	if err := os.MkdirAll(other, 0o700); err != nil {
		t.Fatal(err)
	}
	temps := []string{
		filepath.Join(root, "tmp-0123456789abcdef.zce"),
		filepath.Join(shard, "tmp-fedcba9876543210.zce"),
		filepath.Join(other, "tmp-00000000000000ff.zce"),
	}
	keep := []string{
		filepath.Join(shard, "tmp-0123.zce"),                  // not our shape
		filepath.Join(shard, "tmp-0123456789abcdef.zce.keep"), // not our shape
		filepath.Join(other, "tmp-0123456789ABCDEF.zce"),      // upper case: not ours
	}
	for _, p := range append(temps, keep...) {
		if err := os.WriteFile(p, []byte("half an entr"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	d = open(t, dir, 1<<20)
	for _, p := range temps {
		if exists(p) {
			t.Errorf("leftover temporary file not removed: %s", p)
		}
	}
	for _, p := range keep {
		if !exists(p) {
			t.Errorf("file not of our shape removed: %s", p)
		}
	}
	wantHit(t, d, "k", "", "v", []byte("value"))
	if s := d.Stats(); s.Corrupt != 0 || s.Entries != 1 {
		t.Fatalf("stats %+v", s)
	}
}

// Files that are not the tier's, beside it or inside its directory,
// survive everything the tier does.
func TestForeignFiles(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, subdir)
	target := filepath.Join(dir, "target")
	name := nameOf("someone", "")
	foreign := map[string]string{
		filepath.Join(dir, "other.txt"):            "other program",
		filepath.Join(dir, "zarrgw-cache-v2", "x"): "a later version",
		target:                                 "the target of a symlink",
		filepath.Join(root, "README"):          "hands off",
		filepath.Join(root, "ab", "notes.txt"): "notes",
		filepath.Join(root, "ab", "ab"+name[2:]+".zce.bak"):              "a backup",
		filepath.Join(root, "ab", strings.ToUpper("ab"+name[2:])+".zce"): "upper case",
		filepath.Join(root, "zz", name+".zce"):                           "not a shard directory",
		filepath.Join(root, "cd", "ab"+name[2:]+".zce"):                  "in the wrong shard",
		filepath.Join(root, "ab", "dir"+entryExt, "f"):                   "inside a directory",
	}
	for p, content := range foreign {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// A symbolic link with an entry's name: the link may go, its target
	// must not be touched.
	link := filepath.Join(root, name[:2], name+entryExt)
	if err := os.MkdirAll(filepath.Dir(link), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	stat := func() map[string]string {
		m := map[string]string{}
		for p := range foreign {
			b, err := os.ReadFile(p)
			fi, err2 := os.Stat(p)
			if err != nil || err2 != nil {
				m[p] = "missing"
				continue
			}
			m[p] = fmt.Sprint(string(b), fi.ModTime().UnixNano(), fi.Mode())
		}
		return m
	}
	before := stat()

	d, err := Open(dir, 1<<20, 5)
	if err != nil {
		t.Fatal(err)
	}
	wantMiss(t, d, "someone", "")
	for i := range 30 {
		k := fmt.Sprintf("k%02d", i%12)
		put(t, d, k, "", "v", value(k, "", "v", 300))
		if i%5 == 0 {
			wantMissOrHit(t, d, fmt.Sprintf("k%02d", i%7), "")
			if err := d.DropKey(fmt.Sprintf("k%02d", i%3)); err != nil {
				t.Fatal(err)
			}
		}
	}
	put(t, d, "someone", "", "v", []byte("mine now")) // replaces the link
	wantHit(t, d, "someone", "", "v", []byte("mine now"))
	d.Close()
	d = openN(t, dir, 1<<20, 1) // evicts all but one
	if s := d.Stats(); s.Entries != 1 {
		t.Fatalf("stats %+v; want 1 entry", s)
	}
	d.Close()
	after := stat()
	for p := range foreign {
		if before[p] != after[p] {
			t.Errorf("%s changed: %q -> %q", p, before[p], after[p])
		}
	}
}

func TestClosed(t *testing.T) {
	dir := t.TempDir()
	d, err := Open(dir, 1<<20, manyEntries)
	if err != nil {
		t.Fatal(err)
	}
	put(t, d, "k", "", "v", []byte("x"))
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
	if _, _, _, err := d.Get("k", ""); !errors.Is(err, ErrClosed) {
		t.Errorf("Get after Close: %v", err)
	}
	if err := d.Put("k", "", "v", nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Put after Close: %v", err)
	}
	if err := d.DropKey("k"); !errors.Is(err, ErrClosed) {
		t.Errorf("DropKey after Close: %v", err)
	}
}

func TestBadArguments(t *testing.T) {
	for _, max := range []int64{0, -1} {
		if _, err := Open(t.TempDir(), max, 1); err == nil || !strings.Contains(err.Error(), "size must be positive") {
			t.Errorf("Open with size %d: %v", max, err)
		}
	}
	for _, n := range []int64{0, -1, 1 << 40} {
		if _, err := Open(t.TempDir(), 1, n); err == nil || !strings.Contains(err.Error(), "max_entries must be from 1") {
			t.Errorf("Open with %d entries: %v", n, err)
		}
	}
	if _, err := Open("", 1, 1); err == nil {
		t.Error("Open of no directory succeeded")
	}
}

// Keys, tags or versions too long for a header are not stored, and drop
// what was stored.
func TestTooLong(t *testing.T) {
	d := open(t, t.TempDir(), 1<<20)
	put(t, d, "k", "", "v", []byte("x"))
	long := strings.Repeat("e", maxString+1)
	if err := d.Put("k", "", long, []byte("y")); err != nil {
		t.Fatal(err)
	}
	wantMiss(t, d, "k", "")
	if err := d.Put(long, "", "v", []byte("y")); err != nil {
		t.Fatal(err)
	}
	wantMiss(t, d, long, "")
}

// Concurrent Puts, Gets and drops keep both bounds at every moment, and
// the counters say what the directory holds.
func TestConcurrent(t *testing.T) {
	dir := t.TempDir()
	const max, maxEntries = 512 << 10, 40
	d, err := Open(dir, max, maxEntries)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 7))
			for i := range 400 {
				k := fmt.Sprint("k", r.IntN(20))
				tag := []string{"", "bytes=0-99", "bytes=-10"}[r.IntN(3)]
				switch n := r.IntN(10); {
				case n < 5:
					got, v, ok, err := d.Get(k, tag)
					if err != nil {
						errs <- err
						return
					}
					if ok && !bytes.Equal(got, value(k, tag, v, len(got))) {
						errs <- fmt.Errorf("Get(%q, %q): data not of version %q", k, tag, v)
						return
					}
				case n < 9:
					v := fmt.Sprint(g, ".", i)
					if err := d.Put(k, tag, v, value(k, tag, v, r.IntN(12000))); err != nil {
						errs <- err
						return
					}
				default:
					if err := d.DropKey(k); err != nil {
						errs <- err
						return
					}
				}
				if s := d.Stats(); s.Bytes > max || s.Entries > maxEntries {
					errs <- fmt.Errorf("stats %+v over the bounds %d bytes, %d entries", s, max, maxEntries)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	s := wantOnDisk(t, d, dir)
	if s.Bytes > max || s.Corrupt != 0 || s.Evictions == 0 {
		t.Fatalf("stats %+v", s)
	}
	d.Close()
	d = openN(t, dir, max, maxEntries)
	if s2 := d.Stats(); s2.Entries != s.Entries || s2.Bytes != s.Bytes || s2.Corrupt != 0 {
		t.Fatalf("after restart %+v; before %+v", s2, s)
	}
}
