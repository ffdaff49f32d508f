package n5default_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/plugins/builtin"
)

const raw = `{"codecs":[{"name":"transpose","configuration":{"order":[1,0]}},{"name":"bytes","configuration":{"endian":"big"}}]}`

func build(t *testing.T, cfg string) codec.ArrayBytes {
	t.Helper()
	c, err := builtin.Registry().Codec(context.Background(), "n5_default", json.RawMessage(cfg))
	if err != nil {
		t.Fatalf("%s: %v", cfg, err)
	}
	return c.(codec.ArrayBytes)
}

// n5Block is an N5 default-mode block by the N5 spec: mode 0, ndim, the
// shape, then the elements in F order, big-endian uint16.
func n5Block(shape []int, at func(i, j int) uint16) []byte {
	b := binary.BigEndian.AppendUint16(nil, 0)
	b = binary.BigEndian.AppendUint16(b, uint16(len(shape)))
	for _, d := range shape {
		b = binary.BigEndian.AppendUint32(b, uint32(d))
	}
	for j := 0; j < shape[1]; j++ {
		for i := 0; i < shape[0]; i++ {
			b = binary.BigEndian.AppendUint16(b, at(i, j))
		}
	}
	return b
}

// A whole block encodes to exactly the N5 form and decodes back; a
// truncated edge block decodes into a chunk of fill values.
func TestBlocks(t *testing.T) {
	c := build(t, raw)
	spec := codec.Spec{DataType: dtype.Named("uint16"), Shape: []int{2, 3}, FillValue: []byte{7, 0}}
	a := ndarray.New(spec.DataType, spec.Shape)
	val := func(i, j int) uint16 { return uint16(10*i + j) }
	for i := range 2 {
		for j := range 3 {
			binary.LittleEndian.PutUint16(a.Data[2*(3*i+j):], val(i, j))
		}
	}
	enc, err := c.Encode(context.Background(), spec, a)
	if err != nil {
		t.Fatal(err)
	}
	if want := n5Block([]int{2, 3}, val); string(enc) != string(want) {
		t.Fatalf("encoded % x, want % x", enc, want)
	}
	dec, err := c.Decode(context.Background(), spec, enc)
	if err != nil || string(dec.Data) != string(a.Data) {
		t.Fatalf("decode: %v", err)
	}
	dec, err = c.Decode(context.Background(), spec, n5Block([]int{1, 2}, val))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		for j := range 3 {
			want := uint16(7)
			if i < 1 && j < 2 {
				want = val(i, j)
			}
			if got := binary.LittleEndian.Uint16(dec.Data[2*(3*i+j):]); got != want {
				t.Errorf("truncated block [%d,%d] = %d, want %d", i, j, got, want)
			}
		}
	}
	for _, bad := range [][]byte{n5Block([]int{3, 3}, val), {0, 1, 0, 2}, append([]byte{0, 1}, n5Block([]int{2, 3}, val)[2:]...), n5Block([]int{2, 3}, val)[:20]} {
		if _, err := c.Decode(context.Background(), spec, bad); err == nil {
			t.Errorf("% x decoded", bad)
		}
	}
}

// The chain must be the spec's: full transpose, big-endian bytes, one
// optional bytes->bytes codec; types must be N5's.
func TestRefusals(t *testing.T) {
	r := builtin.Registry()
	for cfg, want := range map[string]string{
		``: "codecs",
		`{"codecs":[{"name":"transpose","configuration":{"order":[0,1]}},{"name":"bytes","configuration":{"endian":"big"}}]}`:        "full reversal",
		`{"codecs":[{"name":"transpose","configuration":{"order":[1,0]}},{"name":"bytes","configuration":{"endian":"little"}}]}`:     "big-endian",
		`{"codecs":[{"name":"bytes","configuration":{"endian":"big"}}]}`:                                                             "1 codecs",
		`{"codecs":[{"name":"transpose","configuration":{"order":[0]}},"bytes","gzip","zstd"]}`:                                      "at most one",
		`{"codecs":[{"name":"transpose","configuration":{"order":[0]}},"bytes",{"name":"transpose","configuration":{"order":[0]}}]}`: "not a bytes->bytes",
	} {
		if _, err := r.Codec(context.Background(), "n5_default", json.RawMessage(cfg)); err == nil || !strings.Contains(err.Error(), "n5_default") || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", cfg, err)
		}
	}
	c := build(t, raw)
	for _, s := range []codec.Spec{{DataType: dtype.Named("complex64"), Shape: []int{2, 2}}, {DataType: dtype.Named("uint8"), Shape: []int{4}}} {
		if _, err := c.Encode(context.Background(), s, ndarray.New(s.DataType, s.Shape)); err == nil {
			t.Errorf("%s%v accepted", s.DataType, s.Shape)
		}
	}
}
