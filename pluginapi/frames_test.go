package pluginapi

import (
	"bytes"
	"io"
	"testing"
)

// Payloads of every size around the frame boundary split into frames of at
// most FrameSize and gather back whole; a payload in one frame is not
// copied.
func TestSplitGather(t *testing.T) {
	for _, n := range []int{0, 1, FrameSize - 1, FrameSize, FrameSize + 1, 3*FrameSize + 5} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(i * 31)
		}
		parts := split(data)
		for _, p := range parts {
			if len(p) > FrameSize {
				t.Fatalf("%d bytes: frame of %d", n, len(p))
			}
		}
		got, err := gather(int64(n), parts[0], feed(parts[1:]))
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%d bytes in %d frames: %v", n, len(parts), err)
		}
		if len(parts) == 1 && n > 0 && &got[0] != &data[0] {
			t.Errorf("%d bytes: a one-frame payload was copied", n)
		}
		dst := make([]byte, n)
		if err := gatherInto(dst, int64(n), parts[0], feed(parts[1:])); err != nil || !bytes.Equal(dst, data) {
			t.Fatalf("%d bytes into a buffer: %v", n, err)
		}
	}
}

// A payload shorter or longer than announced is an error, never a
// truncated or padded value.
func TestGatherRefusesWrongSizes(t *testing.T) {
	parts := [][]byte{[]byte("abc"), []byte("de")}
	if _, err := gather(6, parts[0], feed(parts[1:])); err == nil {
		t.Error("short payload accepted")
	}
	if _, err := gather(4, parts[0], feed(parts[1:])); err == nil {
		t.Error("long payload accepted")
	}
	if _, err := gather(2, parts[0], feed(nil)); err == nil {
		t.Error("first frame beyond the size accepted")
	}
	if err := gatherInto(make([]byte, 4), 5, parts[0], feed(parts[1:])); err == nil {
		t.Error("size other than the buffer accepted")
	}
	if err := gatherInto(make([]byte, 5), 5, parts[0], feed([][]byte{[]byte("d")})); err == nil {
		t.Error("short payload into a buffer accepted")
	}
}

func feed(parts [][]byte) func() ([]byte, error) {
	return func() ([]byte, error) {
		if len(parts) == 0 {
			return nil, io.EOF
		}
		p := parts[0]
		parts = parts[1:]
		return p, nil
	}
}
