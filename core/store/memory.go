package store

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Memory is a concurrency-safe in-memory store with every capability and
// the optional operations GetInto, ListSorted and ListInfo.
//
// Stored values are never mutated in place: Set copies its input, and Get
// returns a fresh copy that the caller owns and may modify, as every other
// store's Get does. Versions are decimal strings of a counter that grows
// with every write, so no two writes ever share a version.
type Memory struct {
	NoOptional // no files: OpenFile and SetFrom report ErrUnsupported
	mu         sync.RWMutex
	values     map[string]memValue
	seq        uint64 // last version handed out
}

type memValue struct {
	data    []byte
	version string
	at      time.Time
}

var _ Store = (*Memory)(nil)

// NewMemory returns an empty memory store.
func NewMemory() *Memory {
	return &Memory{values: make(map[string]memValue)}
}

// Capabilities reports every capability.
func (m *Memory) Capabilities() Capabilities {
	return Capabilities{Read: true, Write: true, Erase: true, List: true,
		Ranges: true, SuffixRanges: true, ConditionalWrite: true,
		Optional: Optional{Into: true, Sorted: true, Info: true}}
}

func (m *Memory) lookup(ctx context.Context, key string) (memValue, error) {
	if err := ctx.Err(); err != nil {
		return memValue{}, fmt.Errorf("memory: %q: %w", key, err)
	}
	if err := ValidateKey(key); err != nil {
		return memValue{}, fmt.Errorf("memory: %w", err)
	}
	m.mu.RLock()
	v, ok := m.values[key]
	m.mu.RUnlock()
	if !ok {
		return memValue{}, fmt.Errorf("memory: %q: %w", key, ErrNotFound)
	}
	return v, nil
}

// Get returns a copy of the value or of the part r selects.
func (m *Memory) Get(ctx context.Context, key string, r ByteRange) (Value, error) {
	v, err := m.lookup(ctx, key)
	if err != nil {
		return Value{}, err
	}
	// v.data is never written after Set stored it, so copying outside the
	// lock is safe.
	part, err := SliceRange(v.data, r)
	if err != nil {
		return Value{}, fmt.Errorf("memory: get %q: %w", key, err)
	}
	data := make([]byte, len(part))
	copy(data, part) // make+copy skips zeroing the new slice
	return Value{Data: data, Version: v.version, ModTime: v.at}, nil
}

// Stat returns the size and version of a value.
func (m *Memory) Stat(ctx context.Context, key string) (Info, error) {
	v, err := m.lookup(ctx, key)
	if err != nil {
		return Info{}, err
	}
	return Info{Size: int64(len(v.data)), Version: v.version, ModTime: v.at}, nil
}

// Set stores a copy of data if cond holds and returns the new version.
func (m *Memory) Set(ctx context.Context, key string, data []byte, cond Condition) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("memory: set %q: %w", key, err)
	}
	if err := ValidateKey(key); err != nil {
		return "", fmt.Errorf("memory: %w", err)
	}
	owned := make([]byte, len(data))
	copy(owned, data)
	m.mu.Lock()
	defer m.mu.Unlock()
	cur, exists := m.values[key]
	if err := checkCondition(cond, exists, cur.version); err != nil {
		return "", fmt.Errorf("memory: set %q: %w", key, err)
	}
	m.seq++
	version := strconv.FormatUint(m.seq, 10)
	m.values[key] = memValue{data: owned, version: version, at: time.Now()}
	return version, nil
}

// checkCondition returns an error wrapping ErrConflict unless cond holds
// for a key that exists (or not) with version current.
func checkCondition(cond Condition, exists bool, current string) error {
	if cond.IfNoneMatch && exists {
		return fmt.Errorf("%w: key exists", ErrConflict)
	}
	if cond.IfMatch != "" && (!exists || current != cond.IfMatch) {
		return fmt.Errorf("%w: version is not %q", ErrConflict, cond.IfMatch)
	}
	return nil
}

// Erase removes a key; a missing key is not an error.
func (m *Memory) Erase(ctx context.Context, key string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("memory: erase %q: %w", key, err)
	}
	if err := ValidateKey(key); err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	m.mu.Lock()
	delete(m.values, key)
	m.mu.Unlock()
	return nil
}

// EraseMany removes keys under one lock; missing keys are not errors. An
// invalid key fails the call before anything is erased.
func (m *Memory) EraseMany(ctx context.Context, keys []string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("memory: erase %d keys: %w", len(keys), err)
	}
	for _, key := range keys {
		if err := ValidateKey(key); err != nil {
			return fmt.Errorf("memory: %w", err)
		}
	}
	m.mu.Lock()
	for _, key := range keys {
		delete(m.values, key)
	}
	m.mu.Unlock()
	return nil
}

// ErasePrefix removes every key starting with prefix ("" removes all).
func (m *Memory) ErasePrefix(ctx context.Context, prefix string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("memory: erase prefix %q: %w", prefix, err)
	}
	if err := ValidatePrefix(prefix); err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for key := range m.values {
		if strings.HasPrefix(key, prefix) {
			delete(m.values, key)
		}
	}
	return nil
}

// List yields the keys starting with prefix as they were when listing
// began; the lock is not held while yielding, so the loop body may use the
// store.
func (m *Memory) List(ctx context.Context, prefix string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		if err := ValidatePrefix(prefix); err != nil {
			yield("", fmt.Errorf("memory: %w", err))
			return
		}
		for _, key := range m.snapshot(prefix) {
			if err := ctx.Err(); err != nil {
				yield("", fmt.Errorf("memory: list %q: %w", prefix, err))
				return
			}
			if !yield(key, nil) {
				return
			}
		}
	}
}

func (m *Memory) snapshot(prefix string) []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	keys := make([]string, 0, len(m.values))
	for key := range m.values {
		if strings.HasPrefix(key, prefix) {
			keys = append(keys, key)
		}
	}
	return keys
}

// ListDir lists the keys and child prefixes directly under prefix.
func (m *Memory) ListDir(ctx context.Context, prefix string) (Dir, error) {
	return ListDirFromList(ctx, m, prefix)
}

// Close does nothing; a memory store holds no outside resources.
func (m *Memory) Close() error { return nil }

// GetInto copies the value of key into dst when its size is len(dst).
func (m *Memory) GetInto(ctx context.Context, key string, dst []byte) (bool, error) {
	v, err := m.lookup(ctx, key)
	if err != nil {
		return false, err
	}
	if len(v.data) != len(dst) {
		return false, nil
	}
	copy(dst, v.data)
	return true, nil
}

// ListSorted yields the keys starting with prefix after startAfter in byte
// order, as they were when listing began.
func (m *Memory) ListSorted(ctx context.Context, prefix, startAfter string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		for e, err := range m.ListInfo(ctx, prefix, startAfter) {
			if !yield(e.Key, err) || err != nil {
				return
			}
		}
	}
}

// ListInfo yields the keys starting with prefix after startAfter in byte
// order with their sizes and versions, all as they were at one moment when
// listing began: one listing, where a Stat per key would see each key at
// a different moment and take the lock once per key.
func (m *Memory) ListInfo(ctx context.Context, prefix, startAfter string) iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		if err := ValidatePrefix(prefix); err != nil {
			yield(Entry{}, fmt.Errorf("memory: %w", err))
			return
		}
		for _, e := range m.sortedSnapshot(prefix, startAfter) {
			if err := ctx.Err(); err != nil {
				yield(Entry{}, fmt.Errorf("memory: list %q: %w", prefix, err))
				return
			}
			if !yield(e, nil) {
				return
			}
		}
	}
}

// sortedSnapshot is the entries starting with prefix after startAfter, in
// byte order; sorting happens outside the lock.
func (m *Memory) sortedSnapshot(prefix, startAfter string) []Entry {
	m.mu.RLock()
	entries := make([]Entry, 0, len(m.values))
	for key, v := range m.values {
		if strings.HasPrefix(key, prefix) && key > startAfter {
			entries = append(entries, Entry{Key: key, Info: Info{Size: int64(len(v.data)), Version: v.version, ModTime: v.at}})
		}
	}
	m.mu.RUnlock()
	slices.SortFunc(entries, func(a, b Entry) int { return strings.Compare(a.Key, b.Key) })
	return entries
}
