//go:build unix

package pluginapi

import (
	"bytes"
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
)

// bufferReader is a memory store that reads into a lent buffer, counting
// the values that landed in it and the plain Gets.
type bufferReader struct {
	*store.Memory
	inBuffer, gets atomic.Int64
}

func (b *bufferReader) Get(ctx context.Context, key string, r store.ByteRange) (store.Value, error) {
	b.gets.Add(1)
	return b.Memory.Get(ctx, key, r)
}

func (b *bufferReader) GetBuffer(ctx context.Context, key string, buf []byte) (store.Value, error) {
	v, err := b.Memory.Get(ctx, key, store.ByteRange{})
	if err != nil || len(v.Data) > len(buf) {
		return v, err
	}
	b.inBuffer.Add(1)
	v.Data = buf[:copy(buf, v.Data)]
	return v, nil
}

// A whole read of a store.BufferReader is one GetBuffer into the host's
// shared memory, when the value fits a slot, and comes back whole with its
// version; a value too large for a slot comes in frames, a missing one is
// ErrNotFound, and a range is read with Get.
func TestWholeReadsIntoSharedMemory(t *testing.T) {
	inner := &bufferReader{Memory: store.NewMemory()}
	s := serveStore(t, inner)
	small, large := bytes.Repeat([]byte("s"), 1<<20), bytes.Repeat([]byte("L"), arenaSlotSize+1)
	for key, data := range map[string][]byte{"small": small, "large": large} {
		if _, err := s.Set(t.Context(), key, data, store.Condition{}); err != nil {
			t.Fatal(err)
		}
	}
	if conn, err := s.(*remoteStore).c.connect(t.Context()); err != nil || conn.sharedArena(t.Context()) == nil {
		t.Fatal("no shared memory on a unix system:", err)
	}
	for key, want := range map[string][]byte{"small": small, "large": large} {
		v, err := s.Get(t.Context(), key, store.ByteRange{})
		if err != nil || !bytes.Equal(v.Data, want) || v.Version == "" {
			t.Fatalf("Get(%s) = %d bytes, version %q, %v; want %d bytes and a version", key, len(v.Data), v.Version, err, len(want))
		}
	}
	if n, g := inner.inBuffer.Load(), inner.gets.Load(); n != 1 || g != 0 {
		t.Fatalf("%d values read into the slot and %d Gets; want 1 (the small one; the large one read whole too) and 0", n, g)
	}
	if _, err := s.Get(t.Context(), "missing", store.ByteRange{}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get of a missing key: %v", err)
	}
	if v, err := s.Get(t.Context(), "small", store.Range(1, 2)); err != nil || string(v.Data) != "ss" || inner.gets.Load() != 1 {
		t.Fatalf("a range: %q, %v, %d Gets", v.Data, err, inner.gets.Load())
	}
}
