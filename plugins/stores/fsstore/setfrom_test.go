package fsstore

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
)

// A value written from a stream reads back byte for byte, with the
// version Stat reports, whatever its size against the copy buffer.
func TestSetFromStreams(t *testing.T) {
	s := newTestStore(t, WithDirSync(false))
	for _, size := range []int64{0, 1, 256 << 10, 3<<20 + 7} {
		want := make([]byte, size)
		rand.NewChaCha8([32]byte{byte(size)}).Read(want)
		// a reader that hands out a few bytes at a time, as a network does
		version, err := s.SetFrom(t.Context(), "a/b/value", &trickle{r: bytes.NewReader(want)}, store.Condition{})
		if err != nil {
			t.Fatalf("SetFrom of %d bytes: %v", size, err)
		}
		v, err := s.Get(t.Context(), "a/b/value", store.ByteRange{})
		if err != nil || !bytes.Equal(v.Data, want) {
			t.Fatalf("read back %d bytes (%v), want the %d written", len(v.Data), err, size)
		}
		if info, err := s.Stat(t.Context(), "a/b/value"); err != nil || info.Version != version {
			t.Fatalf("Stat: version %q (%v), SetFrom returned %q", info.Version, err, version)
		}
	}
}

// A stream that fails part way stores nothing: the key keeps its value,
// the error is the reader's, and no temporary file is left behind.
func TestSetFromKeepsTheValueWhenTheStreamFails(t *testing.T) {
	s := newTestStore(t, WithDirSync(false))
	mustSetKey(t, s, "d/k", "old")
	cut := errors.New("the client went away")
	r := io.MultiReader(strings.NewReader(strings.Repeat("new", 200000)), &failing{cut})
	_, err := s.SetFrom(t.Context(), "d/k", r, store.Condition{})
	if !errors.Is(err, cut) {
		t.Fatalf("SetFrom with a failing stream: %v, want the stream's error", err)
	}
	if v, err := s.Get(t.Context(), "d/k", store.ByteRange{}); err != nil || string(v.Data) != "old" {
		t.Fatalf("after the failed write the key holds %.20q (%v), want \"old\"", v.Data, err)
	}
	entries, err := os.ReadDir(filepath.Join(s.Root(), "d"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tempPrefix) {
			t.Errorf("a temporary file was left behind: %s", e.Name())
		}
	}
}

// A write whose condition fails is refused before the stream is read: a
// refused upload costs no transfer and no disk.
func TestSetFromChecksTheConditionFirst(t *testing.T) {
	s := newTestStore(t, WithDirSync(false))
	version := mustSetKey(t, s, "k", "old")
	for _, cond := range []store.Condition{{IfNoneMatch: true}, {IfMatch: "not-" + version}} {
		r := &counted{r: strings.NewReader("new")}
		if _, err := s.SetFrom(t.Context(), "k", r, cond); !errors.Is(err, store.ErrConflict) {
			t.Errorf("SetFrom under %+v: %v, want ErrConflict", cond, err)
		}
		if r.n > 0 {
			t.Errorf("SetFrom under %+v read %d bytes of a refused value", cond, r.n)
		}
	}
	if _, err := s.SetFrom(t.Context(), "k", strings.NewReader("new"), store.Condition{IfMatch: version}); err != nil {
		t.Fatalf("SetFrom If-Match the current version: %v", err)
	}
	if v, _ := s.Get(t.Context(), "k", store.ByteRange{}); string(v.Data) != "new" {
		t.Fatalf("the key holds %q after a conditional write of \"new\"", v.Data)
	}
}

// trickle reads at most 1000 bytes at a time.
type trickle struct{ r io.Reader }

func (t *trickle) Read(p []byte) (int, error) { return t.r.Read(p[:min(len(p), 1000)]) }

type failing struct{ err error }

func (f *failing) Read([]byte) (int, error) { return 0, f.err }

type counted struct {
	r io.Reader
	n int
}

func (c *counted) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}
