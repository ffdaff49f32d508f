package array

import (
	"bytes"
	"context"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
)

// staleStat reports a size other than the value's, as when the value is
// replaced between the Stat and the read.
type staleStat struct {
	*store.Memory
	size int64
}

func (s staleStat) Stat(ctx context.Context, key string) (store.Info, error) {
	info, err := s.Memory.Stat(ctx, key)
	info.Size = s.size
	return info, err
}

func TestReadWhole(t *testing.T) {
	ctx := context.Background()
	m := store.NewMemory()
	value := []byte("0123456789")
	if _, err := m.Set(ctx, "c/0", value, store.Condition{}); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 0, 64)
	for _, c := range []struct {
		name   string
		st     store.Store
		inBuf  bool
		buffer []byte
	}{
		{"into the buffer", m, true, buf},
		{"buffer too small", m, false, make([]byte, 0, 4)},
		{"size changed after Stat", staleStat{m, 12}, false, buf},
	} {
		got, ver, err := newChunkRanges(c.st, "c/0").ReadWhole(ctx, c.buffer)
		if err != nil || !bytes.Equal(got, value) || ver == "" {
			t.Fatalf("%s: %q, version %q, %v", c.name, got, ver, err)
		}
		if shared := cap(c.buffer) > 0 && &got[:1][0] == &c.buffer[:1][0]; shared != c.inBuf {
			t.Errorf("%s: read into the buffer = %v, want %v", c.name, shared, c.inBuf)
		}
	}
	if _, _, err := (newChunkRanges(m, "c/1")).ReadWhole(ctx, buf); err == nil {
		t.Fatal("missing value read without error")
	}
}
