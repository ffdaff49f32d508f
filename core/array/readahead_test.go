package array

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
)

// rawCodec is an array->bytes codec whose encoded bytes are the element
// bytes themselves (as the bytes codec's are for little-endian types).
type rawCodec struct{}

func (rawCodec) Name() string                   { return "raw" }
func (rawCodec) Configuration() json.RawMessage { return json.RawMessage(`{}`) }
func (rawCodec) RawLayout(codec.Spec) bool      { return true }
func (rawCodec) Encode(_ context.Context, _ codec.Spec, a *ndarray.Array) ([]byte, error) {
	return append([]byte(nil), a.Data...), nil
}
func (rawCodec) Decode(_ context.Context, in codec.Spec, b []byte) (*ndarray.Array, error) {
	return &ndarray.Array{DType: in.DataType, Shape: in.Shape, Data: b}, nil
}

// xorCodec is a bytes->bytes codec that decodes into the caller's buffer:
// a 4-byte length, then the bytes XOR 0x5a. It records where it decoded
// to, and hook, when set, runs before each decode with the decoded bytes'
// first element.
type xorCodec struct {
	mu   sync.Mutex
	dsts []uintptr
	hook func(first uint16)
}

func (*xorCodec) Name() string                   { return "xor" }
func (*xorCodec) Configuration() json.RawMessage { return json.RawMessage(`{}`) }
func (*xorCodec) EncodeBytes(_ context.Context, _ codec.Spec, b []byte) ([]byte, error) {
	out := binary.LittleEndian.AppendUint32(nil, uint32(len(b)))
	for _, c := range b {
		out = append(out, c^0x5a)
	}
	return out, nil
}
func (x *xorCodec) DecodeBytes(ctx context.Context, in codec.Spec, b []byte) ([]byte, error) {
	if len(b) < 4 {
		return nil, fmt.Errorf("%w: short", codec.ErrCorrupt)
	}
	dst := make([]byte, binary.LittleEndian.Uint32(b))
	return dst, x.DecodeBytesInto(ctx, in, b, dst)
}
func (x *xorCodec) DecodeBytesInto(_ context.Context, _ codec.Spec, b, dst []byte) error {
	if len(b) < 4 || int(binary.LittleEndian.Uint32(b)) != len(dst) || len(b)-4 != len(dst) {
		return fmt.Errorf("%w: length does not match", codec.ErrCorrupt)
	}
	if x.hook != nil && len(dst) >= 2 {
		x.hook(uint16(b[4]^0x5a) | uint16(b[5]^0x5a)<<8)
	}
	x.mu.Lock()
	x.dsts = append(x.dsts, uintptr(unsafe.Pointer(unsafe.SliceData(dst))))
	x.mu.Unlock()
	for i, c := range b[4:] {
		dst[i] = c ^ 0x5a
	}
	return nil
}

type testResolver map[string]codec.Codec

func (r testResolver) Codec(_ context.Context, name string, _ json.RawMessage) (codec.Codec, error) {
	if c, ok := r[name]; ok {
		return c, nil
	}
	return nil, fmt.Errorf("%w: %s", codec.ErrUnavailable, name)
}

// newXorArray creates a uint16 v3 array of shape and chunks compressed by
// x, whose element i (in C order) is i, and returns it with its store.
func newXorArray(t *testing.T, x *xorCodec, shape, chunks []int, opts Options) (*Array, *store.Memory) {
	t.Helper()
	s := store.NewMemory()
	m := &meta.ArrayMeta{
		Format: meta.V3, Shape: shape, ChunkShape: chunks, DataType: dtype.Named("uint16"),
		FillValue: []byte{0, 0}, ChunkKey: meta.ChunkKeyEncoding{Name: "default", Separator: "/"},
		Codecs:     []meta.Extension{{Name: "raw"}, {Name: "xor"}},
		Attributes: json.RawMessage(`{}`),
	}
	opts.Codecs = testResolver{"raw": rawCodec{}, "xor": x}
	a, err := New(t.Context(), s, "", m, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Write(t.Context(), grid.All(shape), iota16(shape)); err != nil {
		t.Fatal(err)
	}
	return a, s
}

func iota16(shape []int) *ndarray.Array {
	out := ndarray.New(dtype.Named("uint16"), shape)
	for i := range ndarray.NumElements(shape) {
		binary.LittleEndian.PutUint16(out.Data[2*i:], uint16(i))
	}
	return out
}

// streamAll streams the whole array and returns its elements, and the
// address ranges of the slab buffers the stream used.
func streamAll(t *testing.T, a *Array, budget int64) ([]byte, [][2]uintptr, error) {
	t.Helper()
	var got []byte
	var bufs [][2]uintptr
	err := a.Stream(t.Context(), grid.All(a.Shape()), StreamOptions{MemoryBudget: budget}, func(s *ndarray.Array) error {
		got = append(got, s.Data...)
		lo := uintptr(unsafe.Pointer(unsafe.SliceData(s.Data)))
		bufs = append(bufs, [2]uintptr{lo, lo + uintptr(cap(s.Data))})
		return nil
	})
	return got, bufs, err
}

func inside(p uintptr, ranges [][2]uintptr) bool {
	for _, r := range ranges {
		if p >= r[0] && p < r[1] {
			return true
		}
	}
	return false
}

// A compressed chunk that is one contiguous run of a slab (chunks of whole
// rows) is decoded straight into the slab; one that is not (chunks that
// split rows) goes through a scratch buffer. Either way the bytes are the
// array's.
func TestStreamDecodesStraightIntoSlabs(t *testing.T) {
	for _, c := range []struct {
		name    string
		chunks  []int
		inPlace bool
		decodes int
	}{
		{"whole rows", []int{2, 6}, true, 6},
		{"split rows", []int{2, 3}, false, 12},
	} {
		t.Run(c.name, func(t *testing.T) {
			x := &xorCodec{}
			shape := []int{12, 6}
			a, _ := newXorArray(t, x, shape, c.chunks, Options{})
			x.dsts = nil
			// 2 slabs of 48 bytes: 2 chunk rows each
			got, bufs, err := streamAll(t, a, 2*2*2*6*2)
			if err != nil {
				t.Fatal(err)
			}
			if want := iota16(shape).Data; string(got) != string(want) {
				t.Fatalf("streamed bytes differ from the array's")
			}
			if len(bufs) != 3 {
				t.Fatalf("%d slabs, want 3", len(bufs))
			}
			if len(x.dsts) != c.decodes {
				t.Fatalf("%d decodes, want %d", len(x.dsts), c.decodes)
			}
			for _, d := range x.dsts {
				if inside(d, bufs) != c.inPlace {
					t.Fatalf("decoded into a slab: %v, want %v", inside(d, bufs), c.inPlace)
				}
			}
		})
	}
}

// The same holds for Read into one output.
func TestReadDecodesStraightIntoOutput(t *testing.T) {
	x := &xorCodec{}
	shape := []int{8, 4}
	a, _ := newXorArray(t, x, shape, []int{2, 4}, Options{})
	x.dsts = nil
	out, err := a.Read(t.Context(), grid.All(shape))
	if err != nil {
		t.Fatal(err)
	}
	if string(out.Data) != string(iota16(shape).Data) {
		t.Fatal("read bytes differ from the array's")
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(out.Data)))
	for _, d := range x.dsts {
		if !inside(d, [][2]uintptr{{lo, lo + uintptr(len(out.Data))}}) {
			t.Fatal("a chunk was not decoded straight into the output")
		}
	}
}

// The chunks of the next slab are read while the last chunk of a slab is
// still being decoded: a stream does not wait for a slab to be complete
// before it starts the next. The last chunk of the first slab waits here
// until a chunk of the second has been decoded; a stream that reads one
// slab at a time never gets there.
func TestStreamReadsNextSlabWhileOneFinishes(t *testing.T) {
	x := &xorCodec{}
	shape := []int{8, 4}
	a, _ := newXorArray(t, x, shape, []int{1, 4}, Options{Concurrency: 2})
	secondSlab := make(chan struct{})
	var once sync.Once
	x.hook = func(first uint16) {
		row := int(first) / 4
		switch {
		case row == 3: // the last chunk of the first slab (rows 0-3)
			select {
			case <-secondSlab:
			case <-testDeadline(t): // a stream that reads slab by slab never gets past here
				t.Error("no chunk of the second slab was read while the first slab's last chunk was")
			}
		case row >= 4:
			once.Do(func() { close(secondSlab) })
		}
	}
	got, bufs, err := streamAll(t, a, 2*4*4*2) // slabs of 4 rows
	if err != nil {
		t.Fatal(err)
	}
	if len(bufs) != 2 || string(got) != string(iota16(shape).Data) {
		t.Fatalf("%d slabs, bytes equal %v", len(bufs), string(got) == string(iota16(shape).Data))
	}
}

// A corrupt chunk ends the stream with an error naming the array and the
// chunk's key; so does one that a codec panics on; an error of emit ends
// the stream with that error.
func TestStreamErrors(t *testing.T) {
	x := &xorCodec{}
	shape := []int{12, 6}
	a, s := newXorArray(t, x, shape, []int{2, 3}, Options{})
	if _, err := s.Set(t.Context(), "c/4/1", []byte{9, 0, 0, 0, 1}, store.Condition{}); err != nil {
		t.Fatal(err)
	}
	_, _, err := streamAll(t, a, 48)
	if !errors.Is(err, codec.ErrCorrupt) || !strings.Contains(err.Error(), "c/4/1") {
		t.Fatalf("corrupt chunk: %v", err)
	}

	x.hook = func(first uint16) {
		if first == 6*6 { // chunk c/3/0 (rows 6-7, columns 0-2)
			panic("codec bug")
		}
	}
	if err := s.Erase(t.Context(), "c/4/1"); err != nil { // reads as the fill value
		t.Fatal(err)
	}
	_, _, err = streamAll(t, a, 48)
	if err == nil || !strings.Contains(err.Error(), "codec bug") {
		t.Fatalf("panicking codec: %v", err)
	}

	x.hook = nil
	stop := errors.New("reader went away")
	slabs := 0
	err = a.Stream(t.Context(), grid.All(shape), StreamOptions{MemoryBudget: 48}, func(*ndarray.Array) error {
		slabs++
		return stop
	})
	if !errors.Is(err, stop) || slabs != 1 {
		t.Fatalf("emit's error: %v after %d slabs", err, slabs)
	}

	ctx, cancel := context.WithCancel(t.Context())
	err = a.Stream(ctx, grid.All(shape), StreamOptions{MemoryBudget: 48}, func(*ndarray.Array) error {
		cancel()
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}

// testDeadline fires shortly before go test's -timeout would end the run,
// so that a test waiting for something that never happens fails with its
// own message rather than a dump of every goroutine; it does not fire
// without a timeout.
func testDeadline(t *testing.T) <-chan time.Time {
	d, ok := t.Deadline()
	if !ok {
		return nil
	}
	return time.After(time.Until(d) * 9 / 10)
}
