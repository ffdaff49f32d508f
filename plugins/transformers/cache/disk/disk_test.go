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

func open(t *testing.T, dir string, max int64) *Tier {
	t.Helper()
	d, err := Open(dir, max)
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

// onDisk is the entry files below dir's tier: their count and bytes; it
// fails the test if temporary files are left.
func onDisk(t *testing.T, dir string) (files, size int64) {
	t.Helper()
	err := filepath.WalkDir(filepath.Join(dir, subdir), func(path string, de fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if isTempName(de.Name()) {
			t.Errorf("temporary file left: %s", path)
		}
		if _, ok := entryName(de.Name()); ok && de.Type().IsRegular() {
			fi, err := de.Info()
			if err != nil {
				return err
			}
			files++
			size += fi.Size()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files, size
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

	want := fileSize(t, "a/c/0", "", "v2", 1500) + fileSize(t, "a/c/0", "bytes=0-99", "v1", 100) +
		fileSize(t, "a", "bc", "x", 3) + fileSize(t, "ab", "c", "y", 3) +
		fileSize(t, "empty", "", "", 0) + fileSize(t, "k\x00\xff", "t\n", "\"etag\"", 3)
	if s := d.Stats(); s.Entries != 6 || s.Bytes != want || s.Evictions != 0 || s.Corrupt != 0 {
		t.Fatalf("stats %+v; want 6 entries, %d bytes", s, want)
	}
	if files, size := onDisk(t, dir); files != 6 || size != want {
		t.Fatalf("on disk: %d files, %d bytes; want 6, %d", files, size, want)
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

func TestRestart(t *testing.T) {
	dir := t.TempDir()
	sz := fileSize(t, "k0", "", "v1", 100)
	d, err := Open(dir, 4*sz)
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

	d = open(t, dir, 4*sz)
	if s := d.Stats(); s.Entries != 4 || s.Bytes != 4*sz {
		t.Fatalf("after restart: %+v; want 4 entries, %d bytes", s, 4*sz)
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
	sz := fileSize(t, "k0", "", "v", 10)
	d, err := Open(dir, 10*sz)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		k := fmt.Sprint("k", i)
		put(t, d, k, "", "v", value(k, "", "v", 10))
	}
	wantHit(t, d, "k0", "", "v", value("k0", "", "v", 10))
	d.Close()
	d = open(t, dir, 2*sz)
	if s := d.Stats(); s.Entries != 2 || s.Bytes != 2*sz || s.Evictions != 4 {
		t.Fatalf("stats %+v; want 2 entries, %d bytes, 4 evictions", s, 2*sz)
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
			if s := d.Stats(); s.Corrupt != 1 || s.Entries != 1 || s.Bytes != fileSize(t, "other", "", "v1", 1000) {
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
	d, err := Open(dir, 1<<20)
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

func TestEviction(t *testing.T) {
	dir := t.TempDir()
	sz := fileSize(t, "a", "", "v", 1000)
	max := 3*sz + sz/2
	d := open(t, dir, max)
	within := func() {
		t.Helper()
		s := d.Stats()
		files, size := onDisk(t, dir)
		if s.Bytes > max || size != s.Bytes || files != s.Entries {
			t.Fatalf("stats %+v, on disk %d files %d bytes; bound %d", s, files, size, max)
		}
	}
	for _, k := range []string{"a", "b", "c"} {
		put(t, d, k, "", "v", value(k, "", "v", 1000))
		within()
	}
	wantHit(t, d, "a", "", "v", value("a", "", "v", 1000)) // b, c, a
	put(t, d, "d", "", "v", value("d", "", "v", 1000))     // c, a, d
	within()
	wantMiss(t, d, "b", "")
	wantHit(t, d, "c", "", "v", value("c", "", "v", 1000)) // a, d, c
	put(t, d, "e", "", "v", value("e", "", "v", 1000))     // d, c, e
	within()
	wantMiss(t, d, "a", "")
	for _, k := range []string{"c", "d", "e"} {
		wantHit(t, d, k, "", "v", value(k, "", "v", 1000))
	}
	if s := d.Stats(); s.Evictions != 2 || s.Entries != 3 {
		t.Fatalf("stats %+v; want 2 evictions, 3 entries", s)
	}

	// Larger than the bound: not stored, no error, nothing evicted, and
	// the older value of the same key and tag dropped.
	if err := d.Put("big", "", "v", make([]byte, max)); err != nil {
		t.Fatal(err)
	}
	wantMiss(t, d, "big", "")
	if err := d.Put("d", "", "v2", make([]byte, max)); err != nil {
		t.Fatal(err)
	}
	wantMiss(t, d, "d", "")
	if s := d.Stats(); s.Evictions != 2 || s.Entries != 2 {
		t.Fatalf("stats %+v; want 2 evictions, 2 entries", s)
	}
	within()

	// Exactly the bound: everything else goes.
	n := int(max - fileSize(t, "full", "", "v", 0))
	put(t, d, "full", "", "v", value("full", "", "v", n))
	wantHit(t, d, "full", "", "v", value("full", "", "v", n))
	if s := d.Stats(); s.Entries != 1 || s.Bytes != max {
		t.Fatalf("stats %+v; want 1 entry of %d bytes", s, max)
	}
	within()

	// Values of many sizes.
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		k := fmt.Sprint("r", r.IntN(40))
		tag := fmt.Sprint("t", r.IntN(3))
		if r.IntN(4) == 0 {
			wantMissOrHit(t, d, k, tag)
			continue
		}
		put(t, d, k, tag, fmt.Sprint(i), value(k, tag, fmt.Sprint(i), r.IntN(int(max)/2)))
		within()
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
	d, err := Open(dir, 1<<20)
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

	sz := fileSize(t, "k00", "", "v", 300)
	d, err := Open(dir, 5*sz)
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
	d = open(t, dir, sz) // evicts all but one
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
	d, err := Open(dir, 1<<20)
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
		if _, err := Open(t.TempDir(), max); err == nil || !strings.Contains(err.Error(), "size must be positive") {
			t.Errorf("Open with size %d: %v", max, err)
		}
	}
	if _, err := Open("", 1); err == nil {
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

func TestConcurrent(t *testing.T) {
	dir := t.TempDir()
	const max = 40 << 10
	d, err := Open(dir, max)
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
					if err := d.Put(k, tag, v, value(k, tag, v, r.IntN(3000))); err != nil {
						errs <- err
						return
					}
				default:
					if err := d.DropKey(k); err != nil {
						errs <- err
						return
					}
				}
				if s := d.Stats(); s.Bytes > max {
					errs <- fmt.Errorf("%d bytes over the bound %d", s.Bytes, max)
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
	s := d.Stats()
	files, size := onDisk(t, dir)
	if files != s.Entries || size != s.Bytes || s.Bytes > max || s.Corrupt != 0 || s.Evictions == 0 {
		t.Fatalf("stats %+v; on disk %d files, %d bytes", s, files, size)
	}
	d.Close()
	d = open(t, dir, max)
	if s2 := d.Stats(); s2.Entries != s.Entries || s2.Bytes != s.Bytes || s2.Corrupt != 0 {
		t.Fatalf("after restart %+v; before %+v", s2, s)
	}
}
