package storetest

import (
	"bytes"
	"errors"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
)

type rangeCase struct {
	r          store.ByteRange
	start, end int // expected slice of the 100-byte value
}

func testRanges(t *testing.T, s store.Store) {
	data := pattern(100, 1)
	version := mustSet(t, s, "r", data)
	cases := []rangeCase{
		{store.ByteRange{}, 0, 100},
		{store.Range(0, 100), 0, 100},
		{store.Range(10, 5), 10, 15},
		{store.Range(0, 1), 0, 1},
		{store.Range(99, 1), 99, 100},
		{store.Range(95, 10), 95, 100},  // past the end: clipped
		{store.Range(0, 1000), 0, 100},  // longer than the value
		{store.Range(100, 5), 100, 100}, // starts at the end
		{store.Range(250, 5), 100, 100}, // starts past the end
		{store.Range(10, 0), 10, 10},    // zero length
		{store.From(0), 0, 100},
		{store.From(90), 90, 100},
		{store.From(100), 100, 100},
		{store.From(150), 100, 100},
	}
	for _, c := range cases {
		got := mustGet(t, s, "r", c.r)
		if !bytes.Equal(got.Data, data[c.start:c.end]) {
			t.Errorf("Get(%s) = %s, want bytes [%d,%d) %s", c.r, show(got.Data), c.start, c.end, show(data[c.start:c.end]))
		}
		if s.Capabilities().ConditionalWrite && got.Version != version {
			t.Errorf("Get(%s).Version = %q, want the whole value's %q", c.r, got.Version, version)
		}
	}
}

// testSuffixRanges checks suffix ranges where claimed; elsewhere a suffix
// range must either work or fail with ErrUnsupported, never give wrong bytes.
func testSuffixRanges(t *testing.T, s store.Store) {
	data := pattern(100, 2)
	mustSet(t, s, "r", data)
	cases := []rangeCase{
		{store.Last(10), 90, 100},
		{store.Last(1), 99, 100},
		{store.Last(100), 0, 100},
		{store.Last(150), 0, 100}, // longer than the value: whole value
		{store.Last(0), 100, 100},
	}
	claimed := s.Capabilities().SuffixRanges
	for _, c := range cases {
		got, err := s.Get(t.Context(), "r", c.r)
		if err != nil {
			if !claimed && errors.Is(err, store.ErrUnsupported) {
				continue
			}
			t.Fatalf("Get(%s): %v", c.r, err)
		}
		if !bytes.Equal(got.Data, data[c.start:c.end]) {
			t.Errorf("Get(%s) = %s, want %s", c.r, show(got.Data), show(data[c.start:c.end]))
		}
	}
	if claimed {
		mustSet(t, s, "empty", nil)
		if got := mustGet(t, s, "empty", store.Last(5)).Data; len(got) != 0 {
			t.Errorf("Last(5) of an empty value = %q", got)
		}
	}
}

// testInvalidRanges checks that malformed ranges fail, and not as
// ErrNotFound.
func testInvalidRanges(t *testing.T, s store.Store) {
	mustSet(t, s, "r", pattern(10, 3))
	for _, r := range []store.ByteRange{
		store.Range(-1, 5), store.Range(2, -1), store.From(-3),
		store.Last(-1), {Kind: 99},
	} {
		_, err := s.Get(t.Context(), "r", r)
		if err == nil {
			t.Errorf("Get(%s) succeeded, want an error", r)
		} else if errors.Is(err, store.ErrNotFound) {
			t.Errorf("Get(%s) = %v: a bad range must not look like a missing key", r, err)
		}
	}
}
