package byterange

import (
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
)

func TestFor(t *testing.T) {
	for _, c := range []struct {
		r      store.ByteRange
		header string
		empty  bool
		bad    bool
	}{
		{store.ByteRange{}, "", false, false},
		{store.Range(10, 5), "bytes=10-14", false, false},
		{store.Range(10, 0), "", true, false},
		{store.From(0), "", false, false},
		{store.From(7), "bytes=7-", false, false},
		{store.Last(3), "bytes=-3", false, false},
		{store.Last(0), "", true, false},
		{store.Range(-1, 2), "", false, true},
		{store.Range(1<<62, 1<<62), "", false, true},
		{store.From(-1), "", false, true},
		{store.Last(-1), "", false, true},
		{store.ByteRange{Kind: 9}, "", false, true},
	} {
		req, err := For(c.r)
		if (err != nil) != c.bad || req.Header != c.header || req.Empty != c.empty {
			t.Errorf("For(%+v) = %+v, %v", c.r, req, err)
		}
	}
}

func TestContentRange(t *testing.T) {
	for h, want := range map[string]ContentRange{
		"bytes 0-9/100": {0, 10, 100},
		"bytes 90-99/*": {90, 100, -1},
		"bytes 0--1/0":  {0, 0, 0},
		"bytes 5-5/6":   {5, 6, 6},
	} {
		if got, err := ParseContentRange(h); err != nil || got != want {
			t.Errorf("ParseContentRange(%q) = %+v, %v", h, got, err)
		}
	}
	for _, h := range []string{"", "bytes */10", "bytes 9-0/10", "bytes 0-10/5", "items 0-1/2"} {
		if _, err := ParseContentRange(h); err == nil {
			t.Errorf("ParseContentRange(%q) accepted", h)
		}
	}
	if err := Check(store.Last(10), ContentRange{90, 100, 100}); err != nil {
		t.Error(err)
	}
	if err := Check(store.Range(10, 5), ContentRange{0, 5, 100}); err == nil {
		t.Error("Check accepted the wrong bytes")
	}
}
