package render

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"slices"
	"testing"

	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// A header is version 1.0 while its length fits 1.0's two bytes, and
// 2.0 beyond: the two-byte length wrapped and the document was corrupt.
func TestNPYHeaderVersions(t *testing.T) {
	small := []int{3, 1 << 40, 7}
	h := npyHeader("<f4", small)
	if h[6] != 1 || len(h)%64 != 0 {
		t.Fatalf("header of %v: version %d, %d bytes", small, h[6], len(h))
	}
	dict, size, err := readNPYHeader(bufio.NewReader(bytes.NewReader(h)))
	if err != nil || size != int64(len(h)) {
		t.Fatalf("reading the header back: %v (%d bytes of %d)", err, size, len(h))
	}
	if shape, descr, err := parseNPYHeader(dict); err != nil || descr != "<f4" || !slices.Equal(shape, small) {
		t.Errorf("parsed %v %q %v, want %v <f4", shape, descr, err, small)
	}

	huge := slices.Repeat([]int{1 << 60}, 5000) // a dictionary of about 100 KB
	h = npyHeader("<f4", huge)
	if h[6] != 2 || len(h)%64 != 0 {
		t.Fatalf("header of 5000 dimensions: version %d, %d bytes", h[6], len(h))
	}
	if n := binary.LittleEndian.Uint32(h[8:12]); int(n) != len(h)-12 {
		t.Errorf("version 2.0 header says %d bytes follow, %d do", n, len(h)-12)
	}
}

// A body's length is counted without overflow: 2^62 float64 elements
// hold 2^65 bytes, which wrapped to a body of 0 bytes; the body is
// refused and no length is promised.
func TestBodyBytesBeyondInt64(t *testing.T) {
	f64 := dtype.Named("float64")
	counts := []int{1 << 31, 1 << 31}
	if b, err := RawBody(bytes.NewReader(nil), "body", f64, counts); err == nil {
		t.Errorf("raw body of %v float64: taken, %d bytes", counts, b.Size())
	}
	doc := append(npyHeader("<f8", counts), 0)
	if b, err := NPYBody(bytes.NewReader(doc), "body", f64, counts); err == nil {
		t.Errorf("npy body of %v float64: taken, %d bytes", counts, b.Size())
	}
	if n, ok := elementBytes([]int{1 << 30, 1 << 29}, f64); !ok || n != 1<<62 {
		t.Errorf("2^59 float64: %d bytes, %v; want 2^62", n, ok)
	}
}

// NaT (numpy's int64 minimum) renders as "NaT"; other times as integers;
// a bfloat16 as its exact value (0x3fc0 is 1.5, 0x7fc0 NaN).
func TestJSONElementsNaTAndNarrowFloats(t *testing.T) {
	m8, _, err := dtype.ParseV2("<M8[s]")
	if err != nil {
		t.Fatal(err)
	}
	times := ndarray.New(m8, []int{2})
	binary.LittleEndian.PutUint64(times.Data, 1<<63)
	binary.LittleEndian.PutUint64(times.Data[8:], 86400)
	bf := ndarray.New(dtype.Named("bfloat16"), []int{3})
	copy(bf.Data, []byte{0xc0, 0x3f, 0xc0, 0x7f, 0x80, 0xff})
	for _, tc := range []struct {
		a    *ndarray.Array
		want string
	}{
		{times, `"NaT", 86400`},
		{bf, `1.5, "NaN", "-Infinity"`},
	} {
		var b bytes.Buffer
		bw := bufio.NewWriter(&b)
		writeJSONElements(bw, tc.a, true, nil)
		bw.Flush()
		if b.String() != tc.want {
			t.Errorf("%s: %s, want %s", tc.a.DType, b.String(), tc.want)
		}
	}
}
