package cache

import (
	"container/list"
	"strings"
	"time"

	"github.com/zarrgw/zarrgw/core/store"
)

// What one entry costs beyond its bytes: the memory tier's bound counts
// them, so that many empty values or remembered misses cannot outgrow it.
const (
	recordOverhead = 160 // a key's record, plus the key's length
	entryOverhead  = 96  // a cached value or range, plus its length
)

// The memory tier holds, per key, a record (what next said of the key:
// its version, when that was confirmed, its size where known, or that it
// is missing) and the key's cached ranges (the whole value is the range
// store.ByteRange{}). Records and ranges are nodes of one list, most
// recently used first; a record is touched whenever one of its ranges
// is, so it leaves after them. Everything is guarded by Cache.mu.
type memory struct {
	max       int64
	bytes     int64
	entries   int64 // ranges held (records not counted)
	evictions int64 // ranges removed to make room
	lru       list.List
	records   map[string]*record
}

// record is what the cache knows of one key.
type record struct {
	key  string
	self *node
	// version is next's version of the value, "" where next has none.
	version string
	modTime time.Time
	// size is the value's length, -1 where unknown (only ranges read).
	size int64
	// checked is when next last confirmed version (or, for a missing
	// key, that it was missing; for a value without a version, when its
	// size was read).
	checked time.Time
	missing bool
	ranges  map[store.ByteRange]*node
	// failed is the error a "cachesErrors" mutant keeps (tests only).
	failed error
}

// node is a list element: a record, or a range of one.
type node struct {
	rec  *record
	isRe bool // the record itself
	r    store.ByteRange
	data []byte    // never modified: readers get copies
	at   time.Time // when the bytes were read (values without versions)
	cost int64
	elem *list.Element
}

func newMemory(max int64) *memory {
	return &memory{max: max, records: map[string]*record{}}
}

// live reports whether rec is still the record of its key.
func (m *memory) live(rec *record) bool { return rec != nil && m.records[rec.key] == rec }

// record returns key's record, creating an empty one, and touches it.
func (m *memory) record(key string) *record {
	if rec := m.records[key]; rec != nil {
		m.lru.MoveToFront(rec.self.elem)
		return rec
	}
	rec := &record{key: key, size: -1}
	rec.self = &node{rec: rec, isRe: true, cost: recordOverhead + int64(len(key))}
	rec.self.elem = m.lru.PushFront(rec.self)
	m.records[key] = rec
	m.bytes += rec.self.cost
	m.evict()
	return rec
}

// touch marks n and its record as just used.
func (m *memory) touch(n *node) {
	m.lru.MoveToFront(n.elem)
	if !n.isRe {
		m.lru.MoveToFront(n.rec.self.elem)
	}
}

// put keeps data as the range r of rec (read at "at"), replacing what
// was kept for r. A range that cannot fit at all is not kept.
func (m *memory) put(rec *record, r store.ByteRange, data []byte, at time.Time) {
	if !m.live(rec) {
		return
	}
	cost := entryOverhead + int64(len(data))
	if cost+rec.self.cost > m.max {
		return
	}
	if old := rec.ranges[r]; old != nil {
		m.remove(old)
	}
	if rec.ranges == nil {
		rec.ranges = map[store.ByteRange]*node{}
	}
	n := &node{rec: rec, r: r, data: data, at: at, cost: cost}
	n.elem = m.lru.PushFront(n)
	rec.ranges[r] = n
	m.bytes += cost
	m.entries++
	m.lru.MoveToFront(rec.self.elem)
	m.evict()
}

// lookup returns the bytes of range r of rec's value from what is kept:
// the range itself, a part of the whole value, or a part of a bounded
// range that holds all of r.
func (rec *record) lookup(r store.ByteRange) ([]byte, *node, bool) {
	if n := rec.ranges[r]; n != nil {
		return n.data, n, true
	}
	if n := rec.ranges[store.ByteRange{}]; n != nil {
		return part(store.ByteRange{}, n.data, r), n, true
	}
	if r.Kind != store.Bounded {
		return nil, nil, false
	}
	for kr, n := range rec.ranges {
		if start, end, ok := within(kr, int64(len(n.data)), r); ok {
			return n.data[start:end], n, true
		}
	}
	return nil, nil, false
}

// dropRanges removes every range of rec, keeping the record.
func (m *memory) dropRanges(rec *record) {
	for _, n := range rec.ranges {
		m.remove(n)
	}
}

// drop removes rec and its ranges.
func (m *memory) drop(rec *record) {
	if !m.live(rec) {
		return
	}
	m.dropRanges(rec)
	m.remove(rec.self)
}

// dropPrefix removes the records of every key starting with prefix and
// returns those keys.
func (m *memory) dropPrefix(prefix string) []string {
	var keys []string
	for key, rec := range m.records {
		if strings.HasPrefix(key, prefix) {
			keys = append(keys, key)
			m.drop(rec)
		}
	}
	return keys
}

// remove takes n out of the list and its record (a record's removal
// forgets the key).
func (m *memory) remove(n *node) {
	m.lru.Remove(n.elem)
	m.bytes -= n.cost
	if n.isRe {
		delete(m.records, n.rec.key)
		return
	}
	delete(n.rec.ranges, n.r)
	m.entries--
}

// evict removes the least recently used nodes until the tier is within
// its bound. A record leaving takes its remaining ranges with it.
func (m *memory) evict() {
	for m.bytes > m.max {
		back := m.lru.Back()
		if back == nil {
			return
		}
		n := back.Value.(*node)
		if n.isRe {
			m.evictions += int64(len(n.rec.ranges))
			m.dropRanges(n.rec)
		} else {
			m.evictions++
		}
		m.remove(n)
	}
}

// clear forgets everything.
func (m *memory) clear() {
	m.lru.Init()
	m.records = map[string]*record{}
	m.bytes, m.entries = 0, 0
}
