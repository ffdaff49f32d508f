package hierarchy

import (
	"bytes"
	"testing"

	"github.com/zarrgw/zarrgw/core/dtype"
)

// A new array that states only its shape and type gets one chunk, the
// type's zero as fill value, "/" chunk keys, no attributes and
// zarr-python's default codecs; what it states is kept.
func TestNewArrayMetaDefaults(t *testing.T) {
	dt, err := dtype.ParseV3("int16")
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewArrayMeta(ArraySpec{Shape: []int{10, 20}, DataType: dt})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.ChunkShape) != 2 || m.ChunkShape[0] != 10 || m.ChunkShape[1] != 20 || !bytes.Equal(m.FillValue, []byte{0, 0}) ||
		m.ChunkKey.Separator != "/" || string(m.Attributes) != "{}" || m.DimensionNames != nil {
		t.Errorf("defaults: %+v", m)
	}
	if len(m.Codecs) != 2 || m.Codecs[0].Name != "bytes" || m.Codecs[1].Name != "zstd" {
		t.Errorf("default codecs: %+v", m.Codecs)
	}
	m, err = NewArrayMeta(ArraySpec{Shape: []int{4}, DataType: dt, Chunks: []int{2}, DimensionNames: []string{"x"}})
	if err != nil || m.ChunkShape[0] != 2 || len(m.DimensionNames) != 1 || *m.DimensionNames[0] != "x" {
		t.Errorf("stated: %+v, %v", m, err)
	}
	if _, err := NewArrayMeta(ArraySpec{Shape: []int{4}, DataType: dt, DimensionNames: []string{"x", "y"}}); err == nil {
		t.Error("two dimension names for one dimension were taken")
	}
}
