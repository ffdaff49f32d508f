package cache

import (
	"math"
	"strconv"
	"strings"

	"github.com/zarrgw/zarrgw/core/store"
)

// tag names a range in the disk tier: "" for the whole value, else the
// range as HTTP writes it (bytes=0-99, bytes=100-, bytes=-10).
func tag(r store.ByteRange) string {
	if r.Kind == store.Whole {
		return ""
	}
	return r.String()
}

// rangeOfTag reads back the tag of a whole value or of a bounded range;
// known is false for the others (which answer only themselves).
func rangeOfTag(t string) (r store.ByteRange, known bool) {
	if t == "" {
		return store.ByteRange{}, true
	}
	rest, ok := strings.CutPrefix(t, "bytes=")
	if !ok {
		return store.ByteRange{}, false
	}
	first, last, ok := strings.Cut(rest, "-")
	if !ok || first == "" || last == "" {
		return store.ByteRange{}, false // bytes=-N, bytes=N-
	}
	a, errA := strconv.ParseInt(first, 10, 64)
	b, errB := strconv.ParseInt(last, 10, 64)
	if errA != nil || errB != nil || a < 0 || b < a-1 || b == math.MaxInt64 {
		return store.ByteRange{}, false
	}
	return store.Range(a, b-a+1), true
}

// within reports where the bytes of r are in the n bytes kept for range
// kept, when all of them are: a whole value holds every range of it; a
// bounded range holds the bounded ranges inside the bytes it kept
// (known whether or not it was clipped at the value's end).
func within(kept store.ByteRange, n int64, r store.ByteRange) (start, end int64, ok bool) {
	switch {
	case kept.Kind == store.Whole:
		start, end, err := r.Resolve(n)
		return start, end, err == nil
	case kept.Kind == store.Bounded && r.Kind == store.Bounded && r.Offset >= kept.Offset &&
		r.Length >= 0 && r.Length <= n-(r.Offset-kept.Offset):
		start = r.Offset - kept.Offset
		return start, start + r.Length, true
	}
	return 0, 0, false
}

// part returns the bytes of r from data, the bytes kept for range kept,
// which hold them.
func part(kept store.ByteRange, data []byte, r store.ByteRange) []byte {
	if kept == r {
		return data
	}
	start, end, _ := within(kept, int64(len(data)), r)
	return data[start:end]
}

// keptAs is the range the bytes a store answered to a read of r are
// kept as: the whole value when r reads from the value's start to its
// end (a bounded range the value ends within, clipped), else r.
func keptAs(r store.ByteRange, data []byte) store.ByteRange {
	if r.Offset == 0 && (r.Kind == store.FromOffset || r.Kind == store.Bounded && int64(len(data)) < r.Length) {
		return store.ByteRange{}
	}
	return r
}
