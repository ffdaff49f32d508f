package storetest

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
)

// testOptionalAgree checks that each optional operation the store claims
// gives what the ordinary operations give: GetInto and OpenFile the bytes
// of Get, ListSorted the keys of List in order, ListInfo the sizes of
// Stat, SetFrom a value Get reads back. Every store has the methods, so a
// wrapper that embeds the store below and changes Get (decrypts, say) but
// not GetInto would hand out the stored bytes unchanged through it, and
// claim so by forwarding Capabilities: wrong data this check catches.
func testOptionalAgree(t *testing.T, s store.Store) {
	opt := s.Capabilities().Optional
	values := map[string][]byte{"o/a": []byte("alpha"), "o/b/c": []byte("a longer value, the second"), "o/d": {}}
	for key, v := range values {
		mustSet(t, s, key, v)
	}
	if opt.Into {
		agreeInto(t, s, values)
	}
	if opt.Sorted || opt.Info {
		agreeListing(t, s, opt)
	}
	if opt.File {
		agreeFile(t, s, values)
	}
}

func agreeInto(t *testing.T, s store.Store, values map[string][]byte) {
	for key := range values {
		want := mustGet(t, s, key, store.ByteRange{}).Data
		dst := make([]byte, len(want))
		ok, err := s.GetInto(t.Context(), key, dst)
		if err != nil || !ok || !bytes.Equal(dst, want) {
			t.Errorf("GetInto(%q) = %v, %v, %q: Get gives %q", key, ok, err, dst, want)
		}
		if ok, err := s.GetInto(t.Context(), key, make([]byte, len(want)+1)); err != nil || ok {
			t.Errorf("GetInto(%q) into a buffer one byte too long = %v, %v: want false, <nil>", key, ok, err)
		}
	}
}

func agreeListing(t *testing.T, s store.Store, opt store.Optional) {
	want := listAll(t, s, "o/")
	slices.Sort(want)
	if opt.Sorted {
		var got []string
		for key, err := range s.ListSorted(t.Context(), "o/", "") {
			if err != nil {
				t.Fatalf("ListSorted(o/): %v", err)
			}
			got = append(got, key)
		}
		wantStrings(t, "ListSorted(o/)", got, want)
	}
	if opt.Info {
		var got []string
		for e, err := range s.ListInfo(t.Context(), "o/", "") {
			if err != nil {
				t.Fatalf("ListInfo(o/): %v", err)
			}
			got = append(got, e.Key)
			info, err := s.Stat(t.Context(), e.Key)
			if err != nil || info.Size != e.Info.Size {
				t.Errorf("ListInfo(o/) gives %q size %d; Stat gives %d, %v", e.Key, e.Info.Size, info.Size, err)
			}
		}
		wantStrings(t, "ListInfo(o/) keys", got, want)
	}
}

func agreeFile(t *testing.T, s store.Store, values map[string][]byte) {
	for key := range values {
		want := mustGet(t, s, key, store.ByteRange{}).Data
		f, info, err := s.OpenFile(t.Context(), key, nil)
		if err != nil {
			t.Errorf("OpenFile(%q): %v", key, err)
			continue
		}
		var got []byte // a value read into buf (nil here) comes with no file
		if f != nil {
			got, err = io.ReadAll(f)
			f.Close()
		}
		if err != nil || !bytes.Equal(got, want) || info.Size != int64(len(want)) {
			t.Errorf("OpenFile(%q) reads %q (size %d, %v): Get gives %q", key, got, info.Size, err, want)
		}
	}
	const streamed = "written from a stream"
	if _, err := s.SetFrom(t.Context(), "o/streamed", strings.NewReader(streamed), store.Condition{}); err != nil {
		t.Fatalf("SetFrom(o/streamed): %v", err)
	}
	if got := mustGet(t, s, "o/streamed", store.ByteRange{}).Data; string(got) != streamed {
		t.Errorf("Get(o/streamed) after SetFrom = %q, want %q", got, streamed)
	}
}
