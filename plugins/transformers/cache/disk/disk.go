// Package disk is the cache transformer's disk tier: byte values, whole
// or byte ranges of a key (told apart by a tag), kept in files of one
// directory, bounded in what they take on disk and in their number, least
// recently used out.
//
// The bound in bytes counts blocks, as du does (st_blocks, and the tier's
// directories too), not the bytes kept: a one-byte entry takes a whole
// block, 4 KiB on most file systems, so a tier counting bytes could take
// thousands of times its size in tiny ranges. A directory left without
// entries is removed, so that the directories take room in proportion to
// the entries. Every entry is also an inode, which no block count shows;
// the bound in entries keeps those, and the memory of the index, in
// proportion.
//
// Every entry is one file holding a header (magic, format version, key,
// tag, version, data length, checksums) and the data; see format.go. A
// file is written under a temporary name and renamed into place, and its
// data is checked (CRC-32C) on every read, so a torn, truncated or
// overwritten file is dropped and reported as a miss, never served.
//
// The index lives in memory and is rebuilt when the tier is opened, from
// the headers of the entry files: the files are the only truth, so
// nothing can disagree with them after a crash. Recency survives a
// restart through the files' modification times, which the tier sets
// itself (to the time of a write or of a read that refreshes it).
//
// A tier takes an exclusive lock on its directory: two processes never
// share one, and a second Open fails with ErrInUse.
package disk

import (
	"container/list"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ErrInUse is returned (wrapped) by Open when another process, or another
// Tier of this process, holds the directory.
var ErrInUse = errors.New("disk cache directory in use")

// ErrClosed is returned by the methods of a closed Tier.
var ErrClosed = errors.New("disk cache closed")

// Stats are a tier's counters. Entries and Bytes are the current content
// (Bytes counts what the entry files and the tier's directories take on
// disk, as du does); Evictions counts entries removed to make room,
// Corrupt the entry files found damaged and removed, at Open and on
// reads.
type Stats struct {
	Entries, Bytes, Evictions, Corrupt int64
}

// Tier is an open disk tier. Its methods are safe for concurrent use.
type Tier struct {
	dir        string // as given to Open, for messages
	root       string // dir/zarrgw-cache-v1
	max        int64  // bytes on disk
	maxEntries int

	// life is held shared by every operation and exclusively by Close,
	// which so waits for operations in flight.
	life   sync.RWMutex
	closed bool
	lock   *os.File

	// mu guards the index, the counters, and every rename into place and
	// removal of an entry file, so that the index always says what the
	// directory holds.
	mu        sync.Mutex
	entries   map[string]*entry            // by name
	keys      map[string]map[string]*entry // key -> name -> entry
	lru       list.List                    // of *entry, most recent first
	dirs      map[string]int64             // bytes on disk of root ("") and of each shard directory
	dirBytes  int64                        // their sum
	inShard   map[string]int               // entries by shard directory
	bytes     int64                        // bytes on disk of the entry files
	evictions int64
	corrupt   int64
	touches   uint64 // logical clock of Puts and hits

	stamp atomic.Int64 // last modification time set, in Unix nanoseconds
}

// entry is one indexed file.
type entry struct {
	name     string
	key, tag string
	size     int64 // of the file
	dataLen  int64 // of the data it holds
	used     int64 // bytes the file takes on disk
	elem     *list.Element
	touched  uint64 // t.touches when its file's time was last set
	modified int64  // file modification time at Open, for ordering
}

// Open opens the disk tier in dir, creating dir if needed, bounded to
// maxBytes on disk (the blocks of its files and directories) and to
// maxEntries entry files. It fails if the directory is not writable or
// if another process holds it.
func Open(dir string, maxBytes, maxEntries int64) (*Tier, error) {
	if dir == "" {
		return nil, errors.New("disk cache: no directory given")
	}
	if maxBytes <= 0 {
		return nil, fmt.Errorf("disk cache %s: size must be positive, not %d bytes", dir, maxBytes)
	}
	if maxEntries <= 0 || maxEntries > math.MaxInt32 {
		return nil, fmt.Errorf("disk cache %s: max_entries must be from 1 to %d, not %d", dir, math.MaxInt32, maxEntries)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("disk cache %s: cannot create the directory: %w", dir, err)
	}
	root := filepath.Join(dir, subdir)
	if err := os.Mkdir(root, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("disk cache %s: directory is not writable: %w", dir, err)
	}
	if fi, err := os.Stat(root); err != nil {
		return nil, fmt.Errorf("disk cache %s: %w", dir, err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("disk cache %s: %s is not a directory", dir, root)
	}
	lockPath := filepath.Join(root, lockName)
	lock, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("disk cache %s: directory is not writable: %w", dir, err)
	}
	if err := flockNB(lock); err != nil {
		lock.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("disk cache %s: %w: another process (or another cache of this one) holds %s; "+
				"two gateways must not share one disk tier, give each its own disk path", dir, ErrInUse, lockPath)
		}
		return nil, fmt.Errorf("disk cache %s: cannot lock %s: %w", dir, lockPath, err)
	}
	t := &Tier{
		dir:        dir,
		root:       root,
		max:        maxBytes,
		maxEntries: int(maxEntries),
		lock:       lock,
		entries:    map[string]*entry{},
		keys:       map[string]map[string]*entry{},
		dirs:       map[string]int64{},
		inShard:    map[string]int{},
	}
	if err := t.probe(); err != nil {
		lock.Close()
		return nil, fmt.Errorf("disk cache %s: directory is not writable: %w", dir, err)
	}
	if err := t.load(); err != nil {
		lock.Close()
		return nil, fmt.Errorf("disk cache %s: %w", dir, err)
	}
	return t, nil
}

// flockNB takes f's exclusive lock without waiting.
func flockNB(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// probe writes and removes a temporary file, so that a directory we may
// open but not write in is refused at Open rather than on every Put.
func (t *Tier) probe() error {
	f, path, err := createTemp(t.root)
	if err != nil {
		return err
	}
	_, werr := f.Write([]byte(magic))
	cerr := f.Close()
	rerr := os.Remove(path)
	return errors.Join(werr, cerr, rerr)
}

// createTemp creates a new temporary file in dir.
func createTemp(dir string) (*os.File, string, error) {
	for range 100 {
		path := filepath.Join(dir, fmt.Sprintf("%s%016x%s", tempStart, rand.Uint64(), entryExt))
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, path, err
	}
	return nil, "", errors.New("cannot find a free temporary name")
}

// load rebuilds the index from the entry files, removes the temporary
// files of writes that never finished (the lock says no other process
// writes here) and the entry files whose header is damaged, then evicts
// down to the bound.
func (t *Tier) load() error {
	names, err := readDirNames(t.root)
	if err != nil {
		return err
	}
	t.noteDirLocked("")
	var found []*entry
	for _, name := range names {
		switch {
		case isTempName(name):
			removeRegular(filepath.Join(t.root, name))
		case isShardDir(name):
			found = t.loadDir(name, found)
		}
	}
	// Oldest first; ties (coarse file times) broken by name, arbitrarily
	// but deterministically.
	sort.Slice(found, func(i, j int) bool {
		if found[i].modified != found[j].modified {
			return found[i].modified < found[j].modified
		}
		return found[i].name < found[j].name
	})
	for _, e := range found {
		t.touches++
		e.touched = t.touches
		t.insertLocked(e)
		if e.modified > t.stamp.Load() {
			t.stamp.Store(e.modified)
		}
	}
	for sub := range t.dirs {
		if sub != "" && t.inShard[sub] == 0 {
			t.removeDirLocked(sub)
		}
	}
	t.evictLocked(nil)
	return nil
}

// loadDir indexes the entry files of the directory sub and appends them
// to found.
func (t *Tier) loadDir(sub string, found []*entry) []*entry {
	dir := filepath.Join(t.root, sub)
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		return found
	}
	t.setDirLocked(sub, usage(fi))
	names, err := readDirNames(dir)
	if err != nil {
		return found
	}
	for _, file := range names {
		path := filepath.Join(dir, file)
		if isTempName(file) {
			removeRegular(path)
			continue
		}
		name, ok := entryName(file)
		if !ok || name[:2] != sub {
			continue
		}
		e, err := readEntryHeader(path, name)
		switch {
		case errors.Is(err, errNotOurs):
		case err != nil:
			if removeRegular(path) {
				t.corrupt++
			}
		default:
			found = append(found, e)
		}
	}
	return found
}

// errNotOurs marks a file readEntryHeader leaves alone: not a regular
// file, or unreadable.
var errNotOurs = errors.New("not an entry file")

// readEntryHeader reads the header of the entry file at path, which
// should hold the entry name.
func readEntryHeader(path, name string) (*entry, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, errNotOurs
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, errNotOurs
	}
	buf := make([]byte, 4096)
	n, err := f.ReadAt(buf, 0)
	if err != nil && err != io.EOF {
		return nil, errNotOurs
	}
	buf = buf[:n]
	hl, err := headerLen(buf)
	if err != nil {
		return nil, err
	}
	if hl > fi.Size() {
		return nil, errors.New("truncated header")
	}
	if hl > int64(len(buf)) {
		buf = make([]byte, hl)
		if _, err := f.ReadAt(buf, 0); err != nil {
			return nil, err
		}
	}
	h, err := decodeHeader(buf)
	if err != nil {
		return nil, err
	}
	if h.len+h.dataLen != fi.Size() {
		return nil, errors.New("length does not match the header")
	}
	if nameOf(h.key, h.tag) != name {
		return nil, errors.New("name does not match its key and tag")
	}
	return &entry{name: name, key: h.key, tag: h.tag, size: fi.Size(), dataLen: h.dataLen, used: usage(fi),
		modified: fi.ModTime().UnixNano()}, nil
}

// usage is what the file fi describes takes on disk, as du counts it:
// its blocks (st_blocks, in units of 512 bytes whatever the file
// system's block size), or its length where the system does not say.
func usage(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int64(st.Blocks) * 512
	}
	return fi.Size()
}

// noteDirLocked counts what the directory sub of the tier ("" for its
// root) takes on disk now: a directory grows with the entries it holds,
// and on most file systems never shrinks.
func (t *Tier) noteDirLocked(sub string) {
	if fi, err := os.Lstat(filepath.Join(t.root, sub)); err == nil && fi.IsDir() {
		t.setDirLocked(sub, usage(fi))
	}
}

func (t *Tier) setDirLocked(sub string, used int64) {
	t.dirBytes += used - t.dirs[sub]
	t.dirs[sub] = used
}

// removeDirLocked removes the shard directory sub, which holds no entry:
// unless it holds something else (a write's temporary file, or a file
// that is not the tier's), which keeps it.
func (t *Tier) removeDirLocked(sub string) {
	if os.Remove(filepath.Join(t.root, sub)) == nil {
		t.dirBytes -= t.dirs[sub]
		delete(t.dirs, sub)
	}
}

// readDirNames lists the names in dir.
func readDirNames(dir string) ([]string, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Readdirnames(-1)
}

// removeRegular removes path if it is a regular file, and reports whether
// it did.
func removeRegular(path string) bool {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	return os.Remove(path) == nil
}

// path is the file of the entry name.
func (t *Tier) path(name string) string {
	return filepath.Join(t.root, name[:2], name+entryExt)
}

// begin starts an operation; it reports false if the tier is closed.
func (t *Tier) begin() bool {
	t.life.RLock()
	if t.closed {
		t.life.RUnlock()
		return false
	}
	return true
}

func (t *Tier) end() { t.life.RUnlock() }

// Get returns the data and version stored for (key, tag). ok is false on
// a miss, including when the file turned out damaged (it is then removed
// and counted in Stats.Corrupt); err reports only failures to read.
func (t *Tier) Get(key, tag string) (data []byte, version string, ok bool, err error) {
	if !t.begin() {
		return nil, "", false, ErrClosed
	}
	defer t.end()
	name := nameOf(key, tag)
	t.mu.Lock()
	e := t.entries[name]
	t.mu.Unlock()
	if e == nil || e.key != key || e.tag != tag {
		return nil, "", false, nil
	}
	buf, err := readEntry(t.path(name), e.size)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		t.forget(e, false) // removed by hand
		return nil, "", false, nil
	case errors.Is(err, errDamaged):
		t.forget(e, true)
		return nil, "", false, nil
	case err != nil:
		return nil, "", false, fmt.Errorf("disk cache %s: reading %q: %w", t.dir, key, err)
	}
	data, version, err = decodeEntry(buf, key, tag)
	if err != nil {
		t.forget(e, true)
		return nil, "", false, nil
	}
	t.mu.Lock()
	persist := false
	if t.entries[name] == e {
		t.lru.MoveToFront(e.elem)
		t.touches++
		// Setting the file's time costs a metadata write: skip it while
		// the file's time already places the entry among the most recent
		// quarter (fewer touches since than a quarter of the entries).
		if t.touches-e.touched > uint64(len(t.entries))/4 {
			e.touched = t.touches
			persist = true
		}
	}
	t.mu.Unlock()
	if persist {
		at := t.nextStamp()
		_ = os.Chtimes(t.path(name), at, at) // best effort: recency is approximate
	}
	return data, version, true, nil
}

// errDamaged marks a file whose length is not the one indexed.
var errDamaged = errors.New("damaged")

// readEntry reads the entry file at path, which should be size bytes.
func readEntry(path string, size int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			return nil, errDamaged
		}
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() != size {
		return nil, errDamaged
	}
	buf := make([]byte, size)
	if _, err := io.ReadFull(f, buf); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, errDamaged
		}
		return nil, err
	}
	return buf, nil
}

// forget drops e if it is still the indexed entry of its name, removing
// its file; damaged counts it as corrupt.
func (t *Tier) forget(e *entry, damaged bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.entries[e.name] != e {
		return // replaced or dropped meanwhile
	}
	_ = t.removeLocked(e)
	if damaged {
		t.corrupt++
	}
}

// Put stores data as the value of (key, tag) at version, replacing what
// was stored for them. A value whose file would exceed the tier's bound
// (beside the tier's directories) is not stored (and what was stored for
// (key, tag) is dropped, so an older version is never served in its
// place); that is not an error.
func (t *Tier) Put(key, tag, version string, data []byte) error {
	if !t.begin() {
		return ErrClosed
	}
	defer t.end()
	name := nameOf(key, tag)
	hdr, err := encodeHeader(key, tag, version, data)
	size := int64(len(hdr)) + int64(len(data))
	if err != nil || size > t.max {
		return t.drop(name)
	}
	tmp, used, err := t.writeTemp(name, hdr, data)
	if err != nil {
		return errors.Join(fmt.Errorf("disk cache %s: writing %q: %w", t.dir, key, err), t.drop(name))
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := os.Rename(tmp, t.path(name)); err != nil {
		_ = os.Remove(tmp)
		var derr error
		if old := t.entries[name]; old != nil {
			derr = t.removeLocked(old)
		}
		return errors.Join(fmt.Errorf("disk cache %s: writing %q: %w", t.dir, key, err), derr)
	}
	if old := t.entries[name]; old != nil {
		t.unindexLocked(old)
	}
	if _, seen := t.dirs[name[:2]]; !seen {
		t.noteDirLocked("") // a shard directory was made
	}
	t.noteDirLocked(name[:2])
	t.touches++
	e := &entry{name: name, key: key, tag: tag, size: size, dataLen: int64(len(data)), used: used, touched: t.touches}
	t.insertLocked(e)
	if used > t.max-t.dirBytes {
		// does not fit beside the directories: not kept, nothing evicted
		return errors.Join(t.removeLocked(e), t.evictLocked(nil))
	}
	return t.evictLocked(e)
}

// writeTemp writes the entry file of name to a new temporary file beside
// its final place and returns the temporary file's path and what it takes
// on disk.
//
// The file is not synced: a cache may lose entries in a crash, and a file
// the crash left short or filled with zeros fails its length or checksum
// check and is dropped, never served. Syncing would cost a disk flush on
// every Put for nothing a cache needs.
func (t *Tier) writeTemp(name string, hdr, data []byte) (string, int64, error) {
	dir := filepath.Join(t.root, name[:2])
	f, tmp, err := createTemp(dir)
	// the directory may be missing, or removed (emptied) between our
	// Mkdir and our file
	for try := 0; try < 3 && errors.Is(err, fs.ErrNotExist); try++ {
		if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return "", 0, err
		}
		f, tmp, err = createTemp(dir)
	}
	if err != nil {
		return "", 0, err
	}
	_, err = f.Write(hdr)
	if err == nil {
		_, err = f.Write(data)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		at := t.nextStamp()
		err = os.Chtimes(tmp, at, at)
	}
	var fi fs.FileInfo
	if err == nil {
		// after Close: the blocks a file system reserves ahead of a file
		// being written are given back by then
		fi, err = os.Lstat(tmp)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return "", 0, err
	}
	return tmp, usage(fi), nil
}

// nextStamp is the time to give a file just written or read: now, or just
// after the last time given if the clock has not moved on, so that the
// order of files' times is the order of their uses (as far as the file
// system keeps nanoseconds).
func (t *Tier) nextStamp() time.Time {
	now := time.Now().UnixNano()
	for {
		last := t.stamp.Load()
		at := max(now, last+1)
		if t.stamp.CompareAndSwap(last, at) {
			return time.Unix(0, at)
		}
	}
}

// drop removes what is stored for the entry name, if anything.
func (t *Tier) drop(name string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e := t.entries[name]; e != nil {
		return t.removeLocked(e)
	}
	return nil
}

// Kept is an entry of a key as Tags lists it: its tag and the length of
// its data.
type Kept struct {
	Tag string
	Len int64
}

// Tags lists the entries kept for key, in no particular order.
func (t *Tier) Tags(key string) []Kept {
	t.mu.Lock()
	defer t.mu.Unlock()
	var kept []Kept
	for _, e := range t.keys[key] {
		kept = append(kept, Kept{Tag: e.tag, Len: e.dataLen})
	}
	return kept
}

// DropKey drops every tag of key.
func (t *Tier) DropKey(key string) error {
	if !t.begin() {
		return ErrClosed
	}
	defer t.end()
	t.mu.Lock()
	defer t.mu.Unlock()
	var errs []error
	for _, e := range t.keys[key] {
		errs = append(errs, t.removeLocked(e))
	}
	return errors.Join(errs...)
}

// Stats returns the tier's counters.
func (t *Tier) Stats() Stats {
	t.mu.Lock()
	defer t.mu.Unlock()
	return Stats{Entries: int64(len(t.entries)), Bytes: t.bytes + t.dirBytes, Evictions: t.evictions, Corrupt: t.corrupt}
}

// Close waits for the operations in flight and releases the directory's
// lock. The files stay for the next Open.
func (t *Tier) Close() error {
	t.life.Lock()
	defer t.life.Unlock()
	if t.closed {
		return nil
	}
	t.closed = true
	return t.lock.Close() // closing the descriptor releases the flock
}

// insertLocked indexes e as the most recent entry.
func (t *Tier) insertLocked(e *entry) {
	t.entries[e.name] = e
	byName := t.keys[e.key]
	if byName == nil {
		byName = map[string]*entry{}
		t.keys[e.key] = byName
	}
	byName[e.name] = e
	e.elem = t.lru.PushFront(e)
	t.bytes += e.used
	t.inShard[e.name[:2]]++
}

// unindexLocked removes e from the index, leaving its file.
func (t *Tier) unindexLocked(e *entry) {
	delete(t.entries, e.name)
	if byName := t.keys[e.key]; byName != nil {
		delete(byName, e.name)
		if len(byName) == 0 {
			delete(t.keys, e.key)
		}
	}
	t.lru.Remove(e.elem)
	t.bytes -= e.used
	if t.inShard[e.name[:2]]--; t.inShard[e.name[:2]] == 0 {
		delete(t.inShard, e.name[:2])
	}
}

// removeLocked removes e from the index and its file from the directory.
func (t *Tier) removeLocked(e *entry) error {
	t.unindexLocked(e)
	if err := os.Remove(t.path(e.name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("disk cache %s: removing an entry of %q: %w", t.dir, e.key, err)
	}
	if t.inShard[e.name[:2]] == 0 {
		t.removeDirLocked(e.name[:2])
	}
	return nil
}

// evictLocked removes least recently used entries, never keep, until the
// tier is within its bounds.
func (t *Tier) evictLocked(keep *entry) error {
	var errs []error
	for t.bytes+t.dirBytes > t.max || len(t.entries) > t.maxEntries {
		back := t.lru.Back()
		if back == nil {
			break
		}
		e := back.Value.(*entry)
		if e == keep {
			break // cannot happen: keep alone fits
		}
		errs = append(errs, t.removeLocked(e))
		t.evictions++
	}
	return errors.Join(errs...)
}
