// Package store defines the Zarr abstract store (digest §1.10) as one Go
// interface with declared capabilities, and a memory implementation.
//
// A store may run in another process, so the interface carries only plain
// values and errors that survive serialisation: a missing key is always
// ErrNotFound (checked with errors.Is), and every other failure is a
// different error. The array layer never turns a failed read into fill
// values.
package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"time"
)

var (
	// ErrNotFound means the key does not exist. Nothing else may wrap it.
	ErrNotFound = errors.New("key not found")
	// ErrConflict means a conditional Set found a different version.
	ErrConflict = errors.New("version conflict")
	// ErrUnsupported means the store lacks the capability asked for.
	ErrUnsupported = errors.New("operation not supported by store")
	// ErrInvalidKey means the key is malformed or escapes the store.
	ErrInvalidKey = errors.New("invalid key")
	// ErrAccessDenied means the store refused the credentials or the
	// permission to reach a key. It never wraps ErrNotFound: a forbidden
	// read reported as missing would become fill values.
	ErrAccessDenied = errors.New("access denied")
)

// Capabilities says what a store can do; the engine asks, never guesses.
type Capabilities struct {
	Read  bool
	Write bool
	Erase bool
	List  bool
	// Ranges: Get honours byte ranges natively (otherwise the store reads
	// whole values and slices them).
	Ranges bool
	// SuffixRanges: Get accepts Suffix ranges without knowing the size.
	SuffixRanges bool
	// ConditionalWrite: Set honours Condition and Get/Stat return versions.
	ConditionalWrite bool
	// MD5Versions: a version of 32 hex digits is the MD5 of the value's
	// bytes (S3's ETags of single-part uploads), so it checks a write.
	// Versions of other forms say nothing of the bytes.
	MD5Versions bool
	// Optional says which of the optional operations (GetInto,
	// ListSorted, ListInfo, OpenFile and SetFrom) the store does by its
	// own means; the helpers of the same names fall back where it does
	// not. A wrapper that takes its Capabilities from the store below
	// carries them along.
	Optional
}

// IsMD5Hex reports whether v is 32 hex digits, the form of an MD5 and of
// what S3 clients take for one.
func IsMD5Hex(v string) bool {
	if len(v) != 32 {
		return false
	}
	for _, c := range []byte(v) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// RangeKind selects the form of a ByteRange.
type RangeKind uint8

const (
	Whole      RangeKind = iota // the whole value
	Bounded                     // Length bytes from Offset
	FromOffset                  // from Offset to the end
	Suffix                      // the last Length bytes
)

// ByteRange is a part of a value. The zero value is the whole value.
type ByteRange struct {
	Kind   RangeKind
	Offset int64
	Length int64
}

// Range returns the bounded range [offset, offset+length).
func Range(offset, length int64) ByteRange {
	return ByteRange{Kind: Bounded, Offset: offset, Length: length}
}

// From returns the range from offset to the end.
func From(offset int64) ByteRange { return ByteRange{Kind: FromOffset, Offset: offset} }

// Last returns the range of the last n bytes.
func Last(n int64) ByteRange { return ByteRange{Kind: Suffix, Length: n} }

func (r ByteRange) String() string {
	switch r.Kind {
	case Bounded:
		return fmt.Sprintf("bytes=%d-%d", r.Offset, r.Offset+r.Length-1)
	case FromOffset:
		return fmt.Sprintf("bytes=%d-", r.Offset)
	case Suffix:
		return fmt.Sprintf("bytes=-%d", r.Length)
	}
	return "whole"
}

// Resolve returns the [start, end) of r within a value of the given size,
// clipped to the value as HTTP does. Negative offsets or lengths are errors.
func (r ByteRange) Resolve(size int64) (start, end int64, err error) {
	switch r.Kind {
	case Whole:
		return 0, size, nil
	case Bounded:
		if r.Offset < 0 || r.Length < 0 {
			return 0, 0, fmt.Errorf("invalid byte range %s", r)
		}
		start, end = r.Offset, r.Offset+r.Length
	case FromOffset:
		if r.Offset < 0 {
			return 0, 0, fmt.Errorf("invalid byte range %s", r)
		}
		start, end = r.Offset, size
	case Suffix:
		if r.Length < 0 {
			return 0, 0, fmt.Errorf("invalid byte range %s", r)
		}
		start, end = size-r.Length, size
		if start < 0 {
			start = 0
		}
	default:
		return 0, 0, fmt.Errorf("invalid byte range kind %d", r.Kind)
	}
	if start > size {
		start = size
	}
	if end > size {
		end = size
	}
	if end < start {
		end = start
	}
	return start, end, nil
}

// Value is what Get returns: the bytes asked for and, where the store
// supports conditional writes, the version of the whole value they came from.
type Value struct {
	Data    []byte
	Version string
	// ModTime is when the value was written, the zero time where the
	// store does not know (as Info.ModTime): one read tells what an HTTP
	// or S3 answer reports as Last-Modified.
	ModTime time.Time
}

// Info describes a stored value without its bytes.
type Info struct {
	Size    int64
	Version string
	// ModTime is when the value was last written, the zero time where a
	// store does not know (the S3 API reports it as Last-Modified).
	ModTime time.Time
}

// Condition guards a Set. The zero value writes unconditionally.
type Condition struct {
	// IfMatch writes only if the current version equals it.
	IfMatch string
	// IfNoneMatch writes only if the key does not exist.
	IfNoneMatch bool
}

// Dir is the result of ListDir: keys directly under the prefix, and child
// prefixes (each ending in "/"), both sorted.
type Dir struct {
	Keys     []string
	Prefixes []string
}

// Store is the Zarr abstract store. Operations a store lacks (see
// Capabilities) return an error wrapping ErrUnsupported.
type Store interface {
	Capabilities() Capabilities
	// Get returns a value or part of it; ErrNotFound if the key is absent.
	Get(ctx context.Context, key string, r ByteRange) (Value, error)
	// Stat returns the size and version of a value; ErrNotFound if absent.
	Stat(ctx context.Context, key string) (Info, error)
	// Set stores a value, subject to cond, and returns the new version
	// (empty where versions are not supported). A failed condition returns
	// an error wrapping ErrConflict and changes nothing.
	Set(ctx context.Context, key string, data []byte, cond Condition) (string, error)
	// Erase removes a key; erasing a missing key is not an error.
	Erase(ctx context.Context, key string) error
	// EraseMany removes keys, in as few calls to the service as it has
	// (S3's DeleteObjects takes 1000 keys a call): array resizes and
	// deletions drop thousands of chunks at once. Missing keys are not
	// errors; a failure names the keys that failed. A store without a
	// batch delete of its own implements it with EraseEach. It is part of
	// Store, as the optional operations are, so that the compiler makes every
	// wrapper forward it: one that did not would turn a batch back into a
	// request per key.
	EraseMany(ctx context.Context, keys []string) error
	// ErasePrefix removes every key starting with prefix.
	ErasePrefix(ctx context.Context, prefix string) error
	// List yields every key starting with prefix, in no particular order.
	List(ctx context.Context, prefix string) iter.Seq2[string, error]
	// ListDir lists the keys and child prefixes directly under prefix
	// (prefix is "" or ends in "/").
	ListDir(ctx context.Context, prefix string) (Dir, error)
	// Close releases resources.
	Close() error

	// The optional operations. Every store has the methods, so that the
	// compiler makes every wrapper forward them, as it does EraseMany;
	// Capabilities().Optional says which the store does by its own means.
	// A store without one embeds NoOptional, whose methods report
	// ErrUnsupported, and callers go through the helpers GetInto,
	// ListSorted, ListInfo, OpenFile and SetFrom, which fall back.

	// GetInto reads the value of key into dst when its size is exactly
	// len(dst) and reports true; when the size differs it reads nothing
	// and reports false: a copy saved on the hot read path
	// (Optional.Into). A missing key is ErrNotFound.
	GetInto(ctx context.Context, key string, dst []byte) (bool, error)
	// ListSorted yields the keys starting with prefix that sort after
	// startAfter ("" for all), in byte order, without walking the keys
	// before it: what a paged listing needs to fetch each page at the
	// cost of that page (Optional.Sorted).
	ListSorted(ctx context.Context, prefix, startAfter string) iter.Seq2[string, error]
	// ListInfo lists keys as ListSorted does, with their sizes, versions
	// and times, in one go as S3's listing does (Optional.Info).
	ListInfo(ctx context.Context, prefix, startAfter string) iter.Seq2[Entry, error]
	// OpenFile and SetFrom are the operations of a store whose values are
	// files (the fs store), or of a wrapper that passes such a store's
	// bytes through unchanged (Optional.File); see file.go.
	OpenFile(ctx context.Context, key string, buf []byte) (*os.File, Info, error)
	SetFrom(ctx context.Context, key string, r io.Reader, cond Condition) (string, error)
}
