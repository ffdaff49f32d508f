package storetest

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
)

// testRangeEdges reads every range with offsets and lengths from 0 to one
// past the end of values of 0 to 3 bytes: empty values, ranges ending at
// or past the end, starting at or past it, suffixes longer than the value.
// HTTP cannot ask for zero bytes and answers ranges past the end with 416,
// so these are where remote stores go wrong.
func testRangeEdges(t *testing.T, s store.Store) {
	caps := s.Capabilities()
	for size := range 4 {
		key := fmt.Sprintf("edge/%d", size)
		data := pattern(size, byte(size)+5)
		version := mustSet(t, s, key, data)
		for _, r := range edgeRanges(int64(size)) {
			start, end, _ := r.Resolve(int64(size))
			got, err := s.Get(t.Context(), key, r)
			if err != nil {
				if r.Kind == store.Suffix && !caps.SuffixRanges && errors.Is(err, store.ErrUnsupported) {
					continue
				}
				t.Errorf("Get(%s) of a %d-byte value: %v", r, size, err)
				continue
			}
			if !bytes.Equal(got.Data, data[start:end]) {
				t.Errorf("Get(%s) of a %d-byte value = %q, want %q", r, size, got.Data, data[start:end])
			}
			if caps.ConditionalWrite && got.Version != version {
				t.Errorf("Get(%s) of a %d-byte value: version %q, want %q", r, size, got.Version, version)
			}
		}
	}
}

// edgeRanges lists the ranges testRangeEdges reads from a value of size
// bytes.
func edgeRanges(size int64) []store.ByteRange {
	rs := []store.ByteRange{{}}
	for off := int64(0); off <= size+1; off++ {
		rs = append(rs, store.From(off), store.Last(off))
		for n := int64(0); n <= size+1; n++ {
			rs = append(rs, store.Range(off, n))
		}
	}
	return rs
}
