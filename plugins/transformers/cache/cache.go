// Package cache is the cache storage transformer: a store over the next
// store of a dataset's stack that keeps what it reads, so that the second
// read of a value, or of a byte range of one, makes no call to the store.
//
// Two tiers: memory (always; bounded in bytes, least recently used out)
// and, optionally, a disk tier (package disk, bounded in the blocks it
// takes and in entries, surviving restarts). A read the memory tier
// cannot answer goes to the disk tier, then to the next store; what the
// next store returns fills both. Whole values and byte ranges are kept
// apart (a ranged Get keeps that range); a whole value, once kept,
// answers any range of it, and a bounded range answers any bounded range
// inside it (on disk, where answering means reading the entry whole, an
// entry of at most smallValue bytes).
//
// Small values are kept whole. A range asked from a value's start that
// the value ends within is kept as the whole value; a ranged read of a
// value the cache knows (from a confirmed Stat or read) to be at most
// smallValue bytes reads and keeps the whole value. So the ranges of a
// small value make one entry, whichever of them are read: an entry per
// range would cost a block on disk and an inode each, for a byte.
//
// Freshness. Every entry carries the version the next store gave it. A
// key's version is trusted for revalidate_after after the next store last
// confirmed it; a read after that revalidates it with a Stat (a round
// trip, no bytes): the same version keeps the entries, another version or
// a missing key drops them, and the read is answered anew. Writes and
// erases through the cache drop every entry of their keys (every range,
// both tiers, the remembered misses too), whatever their outcome: a
// conditional write that failed says the cached version may be old.
// Conditions go to the next store as they are: a cached version never
// decides a write. Missing keys are remembered for negative_ttl (never
// longer than revalidate_after). Values without a version (stores that
// give none) are kept in memory only, for revalidate_after after they
// were read, then read again; nothing can revalidate them, and a disk
// tier that survives a restart could not tell a kept value from a stale
// one.
//
// Entries on disk are served only under a version the next store has
// confirmed within revalidate_after (a fresh record in memory, or a Stat
// made for the purpose), so a disk entry a write could not reach (another
// replica's write, an erase of a prefix) is never served stale.
//
// Listings and the optional operations pass through to the next store;
// the cache claims exactly those the next store has, files aside.
package cache

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zarrgw/zarrgw/core/store"
)

// Name is the transformer's registered name.
const Name = "cache"

// URI is the transformer's spec URI: zarrgw's own, in the form of the
// storage transformers' spec URIs (NAME/VERSION).
const URI = "https://github.com/zarrgw/zarrgw/spec/storage-transformers/cache/1.0"

// Defaults of the configuration.
const (
	DefaultMemory          = 256 << 20
	DefaultRevalidateAfter = 30 * time.Second
	DefaultNegativeTTL     = 2 * time.Second
	// MinMemory is the smallest memory tier: a few entries' bookkeeping.
	MinMemory = 4 << 10
)

// smallValue is the largest value a ranged read reads whole, and the
// largest disk entry read to answer a range inside it: reading it costs
// about what the round trip of a read of the range does.
const smallValue = 1 << 20

// Options configure a cache.
type Options struct {
	// MemoryBytes bounds the memory tier: the bytes kept plus a little
	// bookkeeping per entry (recordOverhead, entryOverhead). At least
	// MinMemory.
	MemoryBytes int64
	// RevalidateAfter is how long a version the next store confirmed is
	// trusted; 0 revalidates on every read.
	RevalidateAfter time.Duration
	// NegativeTTL is how long a missing key is remembered (at most
	// RevalidateAfter); 0 remembers none.
	NegativeTTL time.Duration
	// Disk is the disk tier, nil for none. The cache closes it.
	Disk Tier
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// Cache is the transformer. Its methods are safe for concurrent use.
// *Cache claims the optional operations of the next store, files aside
// (Store returns it as the stack sees it).
type Cache struct {
	next    store.Store
	disk    Tier
	now     func() time.Time
	revalid time.Duration
	negTTL  time.Duration
	// wholeMax is the largest value a ranged read reads whole: smallValue,
	// or less where no tier could keep it (a quarter of the larger one).
	wholeMax int64

	mu      sync.Mutex
	mem     *memory
	pending map[string]*keyCalls

	count counters
	// defect makes a mutant of the cache, for tests only.
	defect string
}

// counters are the read outcomes Stats reports.
type counters struct {
	hits, diskHits, negHits, misses, coalesced atomic.Int64
	revalidations, stale, diskErrors           atomic.Int64
}

// New builds a cache over next with opts. The cache owns next (and the
// disk tier): its Close closes them.
func New(next store.Store, opts Options) (*Cache, error) {
	if opts.MemoryBytes < MinMemory {
		return nil, fmt.Errorf("%s: memory must be at least %d bytes, not %d", Name, MinMemory, opts.MemoryBytes)
	}
	if opts.RevalidateAfter < 0 || opts.NegativeTTL < 0 {
		return nil, fmt.Errorf("%s: durations must not be negative", Name)
	}
	c := &Cache{
		next:    next,
		disk:    opts.Disk,
		now:     opts.Now,
		revalid: opts.RevalidateAfter,
		negTTL:  min(opts.NegativeTTL, opts.RevalidateAfter),
		mem:     newMemory(opts.MemoryBytes),
		pending: map[string]*keyCalls{},
	}
	if c.now == nil {
		c.now = time.Now
	}
	room := opts.MemoryBytes
	if c.disk != nil {
		room = max(room, c.disk.Stats().MaxBytes)
	}
	c.wholeMax = min(smallValue, room/4)
	return c, nil
}

// Store is the cache as its stack sees it: with the optional operations
// (copy-free reads, sorted listings, listings with sizes) of the next
// store, and only those.
func (c *Cache) Store() store.Store { return c }

// Capabilities are the next store's, without files: a value read from a
// file of the next store would skip the cache.
func (c *Cache) Capabilities() store.Capabilities {
	caps := c.next.Capabilities()
	caps.File = false
	return caps
}

// OpenFile reports ErrUnsupported: the cache hands out no files.
func (c *Cache) OpenFile(ctx context.Context, key string, buf []byte) (*os.File, store.Info, error) {
	return store.NoOptional{}.OpenFile(ctx, key, buf)
}

// SetFrom reports ErrUnsupported without reading r: a write goes through
// Set, which drops what the cache holds of the key.
func (c *Cache) SetFrom(ctx context.Context, key string, r io.Reader, cond store.Condition) (string, error) {
	return store.NoOptional{}.SetFrom(ctx, key, r, cond)
}

// Close closes the next store and the disk tier, and forgets what the
// memory tier holds.
func (c *Cache) Close() error {
	c.mu.Lock()
	c.mem.clear()
	c.mu.Unlock()
	err := c.next.Close()
	if c.disk != nil {
		err = errors.Join(err, c.disk.Close())
	}
	return err
}

// validRange reports whether r is a range a store can answer; the others
// go to the next store, which refuses them.
func validRange(r store.ByteRange) bool {
	_, _, err := r.Resolve(0)
	return err == nil
}

func notFound(op, key string) error {
	return fmt.Errorf("%s: %s %q: %w", Name, op, key, store.ErrNotFound)
}

func wrapCtx(op, key string, err error) error {
	return fmt.Errorf("%s: %s %q: %w", Name, op, key, err)
}

// fresh reports whether range n of rec (nil: the record's information)
// may be served without asking the next store (c.mu held).
func (c *Cache) fresh(rec *record, n *node, now time.Time) bool {
	if rec.version == "" && n != nil && !n.isRe {
		return now.Sub(n.at) < c.revalid
	}
	return now.Sub(rec.checked) < c.revalid
}

// Get returns a value or a range of it: from memory, from disk, or from
// the next store, whose answer is kept.
func (c *Cache) Get(ctx context.Context, key string, r store.ByteRange) (store.Value, error) {
	if store.ValidateKey(key) != nil || !validRange(r) {
		return c.next.Get(ctx, key, r)
	}
	v, err, ok := c.cached(ctx, key, r)
	if !ok {
		read := c.readFor(key, r)
		var res result
		res, _ = c.do(ctx, key, callKey{kind: callGet, r: read}, func(ctx context.Context, f flight) result {
			return c.fetch(ctx, key, read, f)
		})
		v, err = res.val, res.err
		if err == nil && read != r {
			v.Data = part(read, v.Data, r)
		}
	}
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return store.Value{}, wrapCtx("get", key, err)
		}
		return store.Value{}, err
	}
	v.Data = bytes.Clone(v.Data)
	if v.Data == nil {
		v.Data = []byte{}
	}
	return v, nil
}

// cached answers a read from the memory tier, revalidating the entry
// first where its version is no longer trusted; ok is false when the
// next store (or the disk tier) must be asked. The value's bytes are the
// cache's own: copy them before handing them out.
func (c *Cache) cached(ctx context.Context, key string, r store.ByteRange) (v store.Value, err error, ok bool) {
	c.mu.Lock()
	rec := c.mem.records[key]
	if rec == nil {
		c.mu.Unlock()
		return store.Value{}, nil, false
	}
	now := c.now()
	switch {
	case rec.failed != nil && now.Sub(rec.checked) < c.revalid: // the cachesErrors mutant
		err := rec.failed
		c.mu.Unlock()
		return store.Value{}, err, true
	case rec.missing:
		if now.Sub(rec.checked) < c.negTTL {
			c.mem.touch(rec.self)
			c.mu.Unlock()
			c.count.negHits.Add(1)
			return store.Value{}, notFound("get", key), true
		}
		c.mem.drop(rec)
		c.mu.Unlock()
		return store.Value{}, nil, false
	}
	data, n, found := rec.lookup(r)
	if !found {
		c.mu.Unlock()
		return store.Value{}, nil, false
	}
	v = store.Value{Data: data, Version: rec.version, ModTime: rec.modTime}
	if c.fresh(rec, n, now) {
		c.mem.touch(n)
		c.mu.Unlock()
		c.count.hits.Add(1)
		return v, nil, true
	}
	if rec.version == "" {
		// nothing can revalidate it: read it again
		c.mem.remove(n)
		c.mu.Unlock()
		return store.Value{}, nil, false
	}
	c.mu.Unlock()
	info, err := c.revalidate(ctx, key, v.Version)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return store.Value{}, err, true // gone: the Stat said so
	case err != nil:
		return store.Value{}, err, true // not confirmed: never served
	case info.Version != v.Version:
		return store.Value{}, nil, false // changed: dropped, read anew
	}
	c.count.hits.Add(1)
	v.ModTime = info.ModTime
	return v, nil, true
}

// readFor is what a Get of r that the memory tier cannot answer reads
// from the disk tier or the next store: the whole value when the key's
// record holds a version and a size confirmed within revalidate_after,
// and the size is at most c.wholeMax; else r.
func (c *Cache) readFor(key string, r store.ByteRange) store.ByteRange {
	if r.Kind == store.Whole {
		return r
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	rec := c.mem.records[key]
	if rec == nil || rec.missing || rec.failed != nil || rec.version == "" || rec.size < 0 ||
		rec.size > c.wholeMax || !c.fresh(rec, nil, c.now()) {
		return r
	}
	return store.ByteRange{}
}

// revalidate asks the next store for key's version (one Stat, shared
// with every other Stat of the key in flight); the answer updates the
// key's record, dropping its entries if the version changed.
func (c *Cache) revalidate(ctx context.Context, key, version string) (store.Info, error) {
	res, led := c.do(ctx, key, callKey{kind: callStat}, func(ctx context.Context, f flight) result {
		info, err := c.next.Stat(ctx, key)
		c.noteStat(f, key, info, err)
		return result{info: info, err: err}
	})
	if led {
		c.count.revalidations.Add(1)
		if res.err == nil && res.info.Version != version || errors.Is(res.err, store.ErrNotFound) {
			c.count.stale.Add(1)
		}
	}
	return res.info, res.err
}

// fetch is the one call of a Get the memory tier could not answer: the
// disk tier, else the next store.
func (c *Cache) fetch(ctx context.Context, key string, r store.ByteRange, f flight) result {
	if c.disk != nil {
		if res, ok := c.fromDisk(ctx, key, r, f); ok {
			return res
		}
	}
	c.count.misses.Add(1)
	v, err := c.next.Get(ctx, key, r)
	kept := keptAs(r, v.Data)
	if c.noteGet(f, key, kept, v, err) && c.disk != nil {
		if perr := c.disk.Put(key, tag(kept), v.Version, v.Data); perr != nil {
			c.count.diskErrors.Add(1)
		}
	}
	return result{val: v, err: err}
}

// fromDisk answers a Get from the disk tier, under a version the next
// store has confirmed; ok is false when the next store must be read.
func (c *Cache) fromDisk(ctx context.Context, key string, r store.ByteRange, f flight) (result, bool) {
	kept, data, version, ok := c.diskLookup(key, r)
	if !ok || version == "" {
		return result{}, false
	}
	c.mu.Lock()
	rec := c.mem.records[key]
	trusted := rec != nil && !rec.missing && rec.failed == nil && c.fresh(rec, nil, c.now())
	confirmed := trusted && rec.version == version
	var modTime time.Time
	if confirmed {
		modTime = rec.modTime
	}
	c.mu.Unlock()
	switch {
	case trusted && !confirmed:
		// the next store has confirmed another version: the entry is old
		c.dropDisk(key)
		return result{}, false
	case !confirmed:
		info, err := c.revalidate(ctx, key, version)
		switch {
		case errors.Is(err, store.ErrNotFound):
			c.dropDisk(key)
			return result{err: err}, true
		case err != nil:
			return result{err: err}, true
		case info.Version != version:
			c.dropDisk(key)
			return result{}, false
		}
		modTime = info.ModTime
	}
	c.count.diskHits.Add(1)
	c.mu.Lock()
	if rec := c.mem.records[key]; f.current() && rec != nil && !rec.missing && rec.version == version {
		if kept.Kind == store.Whole {
			rec.size = int64(len(data))
		}
		c.mem.put(rec, kept, data, f.start)
	}
	c.mu.Unlock()
	return result{val: store.Value{Data: part(kept, data, r), Version: version, ModTime: modTime}}, true
}

// diskLookup finds the bytes of r in the disk tier: r's own entry, else
// an entry of the key of at most smallValue bytes that holds r. It
// returns the entry's range and all its bytes.
func (c *Cache) diskLookup(key string, r store.ByteRange) (kept store.ByteRange, data []byte, version string, ok bool) {
	if data, version, ok = c.diskGet(key, r); ok {
		return r, data, version, true
	}
	for _, e := range c.disk.Tags(key) {
		kr, known := rangeOfTag(e.Tag)
		if !known || kr == r || e.Len > smallValue {
			continue
		}
		if _, _, in := within(kr, e.Len, r); !in {
			continue
		}
		data, version, ok = c.diskGet(key, kr)
		if _, _, in := within(kr, int64(len(data)), r); ok && in {
			return kr, data, version, true
		}
	}
	return store.ByteRange{}, nil, "", false
}

// diskGet reads the disk tier's entry of (key, r); a failure to read is
// counted, and a miss.
func (c *Cache) diskGet(key string, r store.ByteRange) ([]byte, string, bool) {
	data, version, ok, err := c.disk.Get(key, tag(r))
	if err != nil {
		c.count.diskErrors.Add(1)
		return nil, "", false
	}
	return data, version, ok
}

// noteGet keeps what the next store answered to a Get of r, unless a
// write came in between; it reports whether the answer may go to disk.
func (c *Cache) noteGet(f flight, key string, r store.ByteRange, v store.Value, err error) (toDisk bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !f.current() {
		return false
	}
	switch {
	case errors.Is(err, store.ErrNotFound):
		c.noteMissing(key, f.start)
		return false
	case err != nil:
		if c.defect == defectCachesErrors {
			rec := c.mem.record(key)
			rec.failed, rec.checked = err, f.start
		}
		return false
	}
	rec := c.mem.record(key)
	if rec.missing || rec.version != v.Version {
		c.mem.dropRanges(rec)
		rec.missing, rec.size, rec.failed = false, -1, nil
	}
	rec.version, rec.modTime = v.Version, v.ModTime
	if v.Version != "" {
		rec.checked = f.start
	}
	if r.Kind == store.Whole {
		rec.size = int64(len(v.Data))
		rec.checked = f.start
	}
	c.mem.put(rec, r, v.Data, f.start)
	return v.Version != ""
}

// noteStat keeps what the next store answered to a Stat: a changed
// version drops the key's entries.
func (c *Cache) noteStat(f flight, key string, info store.Info, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !f.current() {
		return
	}
	switch {
	case errors.Is(err, store.ErrNotFound):
		c.noteMissing(key, f.start)
		return
	case err != nil:
		return
	}
	rec := c.mem.record(key)
	if rec.missing || rec.version != info.Version {
		c.mem.dropRanges(rec)
		rec.missing, rec.failed = false, nil
	}
	rec.version, rec.modTime, rec.size, rec.checked = info.Version, info.ModTime, info.Size, f.start
}

// noteMissing remembers that key is missing (c.mu held).
func (c *Cache) noteMissing(key string, at time.Time) {
	if c.negTTL <= 0 {
		if rec := c.mem.records[key]; rec != nil {
			c.mem.drop(rec)
		}
		return
	}
	rec := c.mem.record(key)
	c.mem.dropRanges(rec)
	rec.missing, rec.version, rec.size, rec.checked, rec.failed = true, "", -1, at, nil
}

// Stat returns the size and version of a value: from the key's record
// while its version is trusted and its size known, else from the next
// store.
func (c *Cache) Stat(ctx context.Context, key string) (store.Info, error) {
	if store.ValidateKey(key) != nil {
		return c.next.Stat(ctx, key)
	}
	c.mu.Lock()
	if rec := c.mem.records[key]; rec != nil {
		now := c.now()
		switch {
		case rec.missing && now.Sub(rec.checked) < c.negTTL:
			c.mem.touch(rec.self)
			c.mu.Unlock()
			c.count.negHits.Add(1)
			return store.Info{}, notFound("stat", key)
		case !rec.missing && rec.failed == nil && rec.size >= 0 && c.fresh(rec, nil, now):
			c.mem.touch(rec.self)
			info := store.Info{Size: rec.size, Version: rec.version, ModTime: rec.modTime}
			c.mu.Unlock()
			c.count.hits.Add(1)
			return info, nil
		}
	}
	c.mu.Unlock()
	res, led := c.do(ctx, key, callKey{kind: callStat}, func(ctx context.Context, f flight) result {
		info, err := c.next.Stat(ctx, key)
		c.noteStat(f, key, info, err)
		return result{info: info, err: err}
	})
	if led {
		c.count.misses.Add(1)
	}
	if res.err != nil && ctx.Err() != nil && errors.Is(res.err, ctx.Err()) {
		return store.Info{}, wrapCtx("stat", key, res.err)
	}
	return res.info, res.err
}

// GetInto reads a whole value into dst when its size is len(dst): from
// memory, else (through one call shared by concurrent readers) from disk
// or the next store's own copy-free read, with the size and version a
// Stat through the cache gives. The bytes the next store reads are kept
// with that version: a value replaced between the Stat and the read by
// one of the same size is kept under the older version until it is
// revalidated, which a conditional write then refuses, never accepts.
func (c *Cache) GetInto(ctx context.Context, key string, dst []byte) (bool, error) {
	into := store.OptionalOf(c.next).Into
	if store.ValidateKey(key) != nil {
		return store.GetInto(ctx, c.next, key, dst)
	}
	v, err, ok := c.cached(ctx, key, store.ByteRange{})
	if ok {
		if err != nil || len(v.Data) != len(dst) {
			return false, err
		}
		copy(dst, v.Data)
		return true, nil
	}
	if !into {
		v, err := c.Get(ctx, key, store.ByteRange{})
		if err != nil || len(v.Data) != len(dst) {
			return false, err
		}
		copy(dst, v.Data)
		return true, nil
	}
	info, err := c.Stat(ctx, key)
	if err != nil || info.Size != int64(len(dst)) {
		return false, err
	}
	res, _ := c.do(ctx, key, callKey{kind: callInto, r: store.Range(0, info.Size)}, func(ctx context.Context, f flight) result {
		return c.fetchInto(ctx, key, info, f)
	})
	if res.err != nil {
		if ctx.Err() != nil && errors.Is(res.err, ctx.Err()) {
			return false, wrapCtx("get", key, res.err)
		}
		return false, res.err
	}
	if !res.ok {
		return false, nil
	}
	copy(dst, res.val.Data)
	return true, nil
}

// fetchInto is the one call of GetInto: the whole value of info's size
// and version, from disk or by the next store's GetInto.
func (c *Cache) fetchInto(ctx context.Context, key string, info store.Info, f flight) result {
	if c.disk != nil && info.Version != "" {
		data, version, ok := c.diskGet(key, store.ByteRange{})
		if ok && version == info.Version && int64(len(data)) == info.Size {
			c.count.diskHits.Add(1)
			c.keepWhole(f, key, info, data)
			return result{val: store.Value{Data: data, Version: version, ModTime: info.ModTime}, ok: true}
		}
	}
	c.count.misses.Add(1)
	buf := make([]byte, info.Size)
	ok, err := c.next.GetInto(ctx, key, buf)
	switch {
	case errors.Is(err, store.ErrNotFound):
		c.mu.Lock()
		if f.current() {
			c.noteMissing(key, f.start)
		}
		c.mu.Unlock()
		return result{err: err}
	case err != nil:
		return result{err: err}
	case !ok:
		// the value changed size since the Stat: its record is old
		c.mu.Lock()
		if rec := c.mem.records[key]; f.current() && rec != nil {
			c.mem.drop(rec)
		}
		c.mu.Unlock()
		return result{}
	}
	if c.keepWhole(f, key, info, buf) && c.disk != nil && info.Version != "" {
		if err := c.disk.Put(key, "", info.Version, buf); err != nil {
			c.count.diskErrors.Add(1)
		}
	}
	return result{val: store.Value{Data: buf, Version: info.Version, ModTime: info.ModTime}, ok: true}
}

// keepWhole keeps data as the whole value of key at info's version, if
// the key's record still holds that version and no write came in
// between.
func (c *Cache) keepWhole(f flight, key string, info store.Info, data []byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	rec := c.mem.records[key]
	if !f.current() || rec == nil || rec.missing || rec.version != info.Version {
		return false
	}
	rec.size = int64(len(data))
	c.mem.put(rec, store.ByteRange{}, data, f.start)
	return true
}

// Set writes through to the next store, conditions and all, then drops
// every entry of key, whether the write succeeded or not.
func (c *Cache) Set(ctx context.Context, key string, data []byte, cond store.Condition) (string, error) {
	version, err := c.next.Set(ctx, key, data, cond)
	c.invalidate(key)
	return version, err
}

// Erase erases through to the next store, then drops every entry of key.
func (c *Cache) Erase(ctx context.Context, key string) error {
	err := c.next.Erase(ctx, key)
	c.invalidate(key)
	return err
}

// EraseMany erases through to the next store in one batch, then drops
// every entry of each key, in both tiers, as Erase does.
func (c *Cache) EraseMany(ctx context.Context, keys []string) error {
	err := c.next.EraseMany(ctx, keys)
	for _, key := range keys {
		c.invalidate(key)
	}
	return err
}

// ErasePrefix erases through to the next store, then drops the entries of
// every key under prefix that the memory tier knows of. Disk entries of
// keys it does not know stay, and are never served: a disk entry needs a
// version the next store confirms.
func (c *Cache) ErasePrefix(ctx context.Context, prefix string) error {
	err := c.next.ErasePrefix(ctx, prefix)
	if store.ValidatePrefix(prefix) != nil || c.defect == defectStaleAfterWrite {
		return err
	}
	c.mu.Lock()
	for key := range c.pending {
		if len(key) >= len(prefix) && key[:len(prefix)] == prefix {
			c.newGeneration(key)
		}
	}
	keys := c.mem.dropPrefix(prefix)
	c.mu.Unlock()
	for _, key := range keys {
		c.dropDisk(key)
	}
	return err
}

// invalidate drops every entry of key, in both tiers, and keeps the
// calls in flight for it from filling the cache.
func (c *Cache) invalidate(key string) {
	if store.ValidateKey(key) != nil {
		return
	}
	c.mu.Lock()
	switch c.defect {
	case defectStaleAfterWrite:
		c.mu.Unlock()
		return
	case defectKeepsRanges:
		// drops the whole value only, as a cache keyed by key alone would
		if rec := c.mem.records[key]; rec != nil {
			if n := rec.ranges[store.ByteRange{}]; n != nil {
				c.mem.remove(n)
			}
			rec.missing = false
		}
		c.mu.Unlock()
		return
	}
	c.newGeneration(key)
	if rec := c.mem.records[key]; rec != nil {
		c.mem.drop(rec)
	}
	c.mu.Unlock()
	c.dropDisk(key)
}

func (c *Cache) dropDisk(key string) {
	if c.disk == nil {
		return
	}
	if err := c.disk.DropKey(key); err != nil {
		c.count.diskErrors.Add(1)
	}
}

// List passes through.
func (c *Cache) List(ctx context.Context, prefix string) iter.Seq2[string, error] {
	return c.next.List(ctx, prefix)
}

// ListDir passes through.
func (c *Cache) ListDir(ctx context.Context, prefix string) (store.Dir, error) {
	return c.next.ListDir(ctx, prefix)
}

// ListSorted passes through to the next store's sorted listing.
func (c *Cache) ListSorted(ctx context.Context, prefix, startAfter string) iter.Seq2[string, error] {
	return store.ListSorted(ctx, c.next, prefix, startAfter)
}

// ListInfo passes through to the next store's listing with sizes.
func (c *Cache) ListInfo(ctx context.Context, prefix, startAfter string) iter.Seq2[store.Entry, error] {
	return store.ListInfo(ctx, c.next, prefix, startAfter)
}

// The mutants tests make of the cache (Cache.defect).
const (
	defectStaleAfterWrite = "staleAfterWrite" // writes drop nothing
	defectCachesErrors    = "cachesErrors"    // failed reads are kept
	defectNoCoalescing    = "noCoalescing"    // every reader makes its own call
	defectKeepsRanges     = "keepsRanges"     // writes drop the whole value only
)
