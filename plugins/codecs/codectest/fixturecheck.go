package codectest

import (
	"context"
	"fmt"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// DecodeChunk reads chunk key of a fixture array and decodes it with c,
// giving the exact decoded size n as the pipeline would.
func DecodeChunk(t testing.TB, c codec.BytesBytes, arrayPath, key string, n int) []byte {
	t.Helper()
	raw := ReadFixture(t, arrayPath+"/"+key)
	out, err := c.DecodeBytes(context.Background(), BytesSpec(int64(n), int64(n)), raw)
	if err != nil {
		t.Fatalf("%s/%s: %v", arrayPath, key, err)
	}
	// and once more with only a bound, as for a chunk of unknown size
	out2, err := c.DecodeBytes(context.Background(), BytesSpec(-1, int64(n)), raw)
	if err != nil || string(out2) != string(out) {
		t.Fatalf("%s/%s with a bound only: %v", arrayPath, key, err)
	}
	return out
}

// CheckArangeChunk decodes one chunk of an "arange" fixture array (stored
// little-endian, C order) and compares it with the expected values.
func CheckArangeChunk(t testing.TB, c codec.BytesBytes, arrayPath, key string, dt dtype.DataType, chunk, idx []int) {
	t.Helper()
	e := Expected(t, arrayPath)
	data := DecodeChunk(t, c, arrayPath, key, ndarray.NumElements(chunk)*dt.Size)
	a := &ndarray.Array{DType: dt, Shape: chunk, Data: data}
	CompareFloats(t, Floats(t, a), ArangeChunk(e, chunk, idx), 0)
}

// CheckDigest1D decodes every chunk of a 1-D fixture array of fixed-size
// elements (chunk keys "0", "1", ...) and compares the whole array with the
// digest in expected.json.
func CheckDigest1D(t testing.TB, c codec.BytesBytes, arrayPath string, itemsize int) {
	t.Helper()
	e := Expected(t, arrayPath)
	n := e.ChunkShape[0] * itemsize
	var all []byte
	for i := 0; i*e.ChunkShape[0] < e.Shape[0]; i++ {
		all = append(all, DecodeChunk(t, c, arrayPath, fmt.Sprint(i), n)...)
	}
	if got := BytesSHA256(all[:e.Shape[0]*itemsize]); got != e.Expect.SHA256 {
		t.Errorf("%s: sha256 %s, want %s", arrayPath, got, e.Expect.SHA256)
	}
}
