package interop

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
)

func ext(name, config string) meta.Extension {
	return meta.Extension{Name: name, Configuration: rawJSON(config), MustUnderstand: true}
}

// bytesCodec is the "bytes" codec with the given order, without
// configuration for types that have no byte order.
func bytesCodec(dt dtype.DataType, endian string) meta.Extension {
	if !dt.HasEndian() {
		return ext("bytes", "")
	}
	return ext("bytes", fmt.Sprintf(`{"endian":%q}`, endian))
}

// outCase is an array zarrgw writes for a foreign client to read.
type outCase struct {
	path          string
	dt            dtype.DataType
	shape, chunks []int
	codecs        []meta.Extension
	fill          []byte // one element in memory form
	sep           string // chunk key separator ("" = the format's default)
	attrs         string // JSON object ("" = none)
	missing       bool   // leave chunk 0 all fill; it must not be stored
	// data overrides the generated elements (nil = random data).
	data func(i int) any

	// What the foreign client must report (v2 only).
	v2dtype    string   // numpy type string, e.g. ">i4"
	order      string   // "C" or "F"
	compressor string   // numcodecs id or ""
	filters    []string // numcodecs ids
	// consolidated also reads the array through consolidated metadata.
	consolidated bool
	// checkCRC32C verifies the trailing CRC32C of every stored chunk.
	checkCRC32C bool

	written *ndarray.Array // what zarrgw wrote (after write)
	werr    error          // the write's failure
}

// options are the array options of every zarrgw array in these tests.
func options() array.Options {
	return array.Options{Codecs: registry.Codecs(), Concurrency: 4}
}

// write creates the array in s (rooted at dir) and writes every element.
func (c *outCase) write(ctx context.Context, s store.Store, dir string, f meta.Format, seed int64) error {
	sep := c.sep
	m := &meta.ArrayMeta{Format: f, Shape: c.shape, ChunkShape: c.chunks, DataType: c.dt, FillValue: c.fill, Codecs: c.codecs}
	if f == meta.V3 {
		m.ChunkKey = meta.ChunkKeyEncoding{Name: "default", Separator: "/"}
	} else {
		if sep == "" {
			sep = "."
		}
		m.ChunkKey = meta.ChunkKeyEncoding{Name: "v2", Separator: sep}
	}
	if c.attrs != "" {
		m.Attributes = json.RawMessage(c.attrs)
	}
	a, err := hierarchy.CreateArray(ctx, s, c.path, m, options())
	if err != nil {
		return fmt.Errorf("create: %w", err)
	}
	data := ndarray.New(c.dt, c.shape)
	if c.data != nil {
		for i := range data.Len() {
			setElement(data, i, c.data(i))
		}
	} else {
		randomFill(rand.New(rand.NewSource(seed)), data)
	}
	if c.missing {
		forEachIndex(c.shape, func(i int, idx []int) {
			for d, k := range idx {
				if k >= c.chunks[d] {
					return
				}
			}
			copy(elementSlot(data, i), c.fill)
			if c.dt.Variable() {
				data.Strings[i] = string(c.fill)
			}
		})
	}
	if err := a.Write(ctx, grid.All(c.shape), data); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	c.written = data
	if c.missing {
		key := a.ChunkKey(make([]int, len(c.shape)))
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(key))); !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("chunk %s holds only fill values, so it must not be stored (stat: %v)", key, err)
		}
	}
	return nil
}

// forEachIndex calls fn with every flat C-order index and its N-d index.
func forEachIndex(shape []int, fn func(i int, idx []int)) {
	idx := make([]int, len(shape))
	for i := range numElements(shape) {
		fn(i, idx)
		for d := len(shape) - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
	}
}

func elementSlot(a *ndarray.Array, i int) []byte {
	if a.DType.Variable() {
		return nil
	}
	return a.Data[i*a.DType.Size : (i+1)*a.DType.Size]
}

// setElement stores a Go value (int64, uint64, float64, bool, string) as
// element i.
func setElement(a *ndarray.Array, i int, v any) {
	if a.DType.Variable() {
		a.Strings[i] = v.(string)
		return
	}
	copy(elementSlot(a, i), scalarBytes(a.DType, v))
}

// scalarBytes is the in-memory (little-endian) form of one element.
func scalarBytes(dt dtype.DataType, v any) []byte {
	b := make([]byte, dt.Size)
	switch dt.Kind {
	case dtype.Bool:
		if v.(bool) {
			b[0] = 1
		}
	case dtype.Int, dtype.Uint:
		var u uint64
		switch x := v.(type) {
		case int64:
			u = uint64(x)
		case uint64:
			u = x
		case int:
			u = uint64(x)
		}
		for k := range b {
			b[k] = byte(u >> (8 * k))
		}
	case dtype.Float:
		f := v.(float64)
		switch dt.Size {
		case 2:
			binary.LittleEndian.PutUint16(b, float16Bits(f))
		case 4:
			binary.LittleEndian.PutUint32(b, math.Float32bits(float32(f)))
		default:
			binary.LittleEndian.PutUint64(b, math.Float64bits(f))
		}
	case dtype.String, dtype.Bytes:
		return []byte(v.(string))
	case dtype.FixedBytes:
		copy(b, v.(string))
	case dtype.FixedUnicode:
		k := 0
		for _, r := range v.(string) {
			if k+4 <= len(b) {
				binary.LittleEndian.PutUint32(b[k:], uint32(r))
			}
			k += 4
		}
	}
	return b
}

// float16Bits converts a value binary16 holds exactly (NaN, ±Inf, zero,
// normal numbers with an 11-bit significand); it panics otherwise.
func float16Bits(f float64) uint16 {
	switch {
	case math.IsNaN(f):
		return 0x7e00
	case math.IsInf(f, 1):
		return 0x7c00
	case math.IsInf(f, -1):
		return 0xfc00
	}
	var sign uint16
	if math.Signbit(f) {
		sign, f = 0x8000, -f
	}
	if f == 0 {
		return sign
	}
	frac, exp := math.Frexp(f) // f = frac * 2^exp, frac in [0.5, 1)
	m := frac * 2048           // 11 significant bits
	if m != math.Trunc(m) || exp-1 < -14 || exp-1 > 15 {
		panic(fmt.Sprintf("%v is not a normal binary16 value", f))
	}
	return sign | uint16(exp-1+15)<<10 | uint16(m)&0x3ff
}

// quietNaN is the canonical quiet NaN (math.NaN() carries a payload bit).
var quietNaN = math.Float64frombits(0x7ff8000000000000)

// fillValue is a fill value of a type; variant 1 picks another one (NaN
// for floats, the most negative value for signed integers).
func fillValue(dt dtype.DataType, variant int) any {
	switch dt.Kind {
	case dtype.Bool:
		return true
	case dtype.Int:
		if variant == 1 {
			return int64(-1) << (8*dt.Size - 1)
		}
		return int64(-7)
	case dtype.Uint:
		if variant == 1 {
			return uint64(1) << (8*dt.Size - 1)
		}
		return uint64(7)
	case dtype.Float:
		if variant == 1 {
			return quietNaN
		}
		return -1.5
	case dtype.String:
		return "fill-é"
	case dtype.FixedBytes:
		s := "fill"
		return s[:min(len(s), dt.Size)]
	case dtype.FixedUnicode:
		return string([]rune("fé")[:min(2, dt.Size/4)])
	}
	panic("no fill value for " + dt.Name)
}

// randomFill sets every element to a random value of the type, starting
// with the type's extreme and special values.
func randomFill(r *rand.Rand, a *ndarray.Array) {
	dt := a.DType
	n := a.Len()
	switch dt.Kind {
	case dtype.Bool:
		for i := range n {
			a.Data[i] = byte(r.Intn(2))
		}
	case dtype.Int, dtype.Uint:
		r.Read(a.Data)
		if n >= 2 {
			lo, hi := elementSlot(a, 0), elementSlot(a, 1)
			clear(lo)
			for k := range hi {
				hi[k] = 0xff
			}
			if dt.Kind == dtype.Int {
				lo[dt.Size-1] = 0x80
				hi[dt.Size-1] = 0x7f
			}
		}
	case dtype.Float:
		for i := range n {
			copy(elementSlot(a, i), randomFloat(r, dt.Size, i))
		}
	case dtype.String:
		for i := range n {
			a.Strings[i] = randomString(r, 0, 9)
		}
	case dtype.FixedBytes:
		for i := range n {
			b := elementSlot(a, i)
			for k := range r.Intn(len(b) + 1) {
				b[k] = byte(1 + r.Intn(255))
			}
			if i%7 == 3 && len(b) > 2 {
				b[1] = 0 // an interior NUL is kept, a trailing one is padding
			}
		}
	case dtype.FixedUnicode:
		for i := range n {
			b := elementSlot(a, i)
			for k := 0; k+4 <= len(b) && r.Intn(5) > 0; k += 4 {
				binary.LittleEndian.PutUint32(b[k:], uint32(randomRune(r)))
			}
		}
	default:
		panic("no random values for " + dt.Name)
	}
}

var alphabet = []rune("abcXYZ019 -_/.\"\\\té漢字🙂ü\u00a0")

func randomRune(r *rand.Rand) rune {
	switch r.Intn(4) {
	case 0:
		return rune(0x20 + r.Intn(0x5f))
	case 1:
		return rune(0xa0 + r.Intn(0xd000)) // below the surrogates
	case 2:
		return rune(0x10000 + r.Intn(0xf0000))
	}
	return alphabet[r.Intn(len(alphabet))]
}

func randomString(r *rand.Rand, lo, hi int) string {
	var sb strings.Builder
	for range lo + r.Intn(hi-lo+1) {
		sb.WriteRune(randomRune(r))
	}
	return sb.String()
}

// randomFloat returns element i of a float array of the given size: special
// values first, then a mix of scaled normal samples and random bit patterns
// (never a NaN with a payload, which clients may canonicalise).
func randomFloat(r *rand.Rand, size, i int) []byte {
	b := make([]byte, size)
	switch size {
	case 2:
		specials := []uint16{0x0000, 0x8000, 0x3c00, 0xbc00, 0x7e00, 0x7c00, 0xfc00, 0x7bff, 0x0001, 0x0400, 0x2e66}
		h := uint16(0x7e00)
		if i < len(specials) {
			h = specials[i]
		} else {
			for h&0x7c00 == 0x7c00 { // no NaN or Inf from random bits
				h = uint16(r.Intn(1 << 16))
			}
		}
		binary.LittleEndian.PutUint16(b, h)
	case 4:
		specials := []float32{0, float32(math.Copysign(0, -1)), 1, -1, float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)),
			math.MaxFloat32, math.SmallestNonzeroFloat32, 1.1754944e-38, 0.1}
		var v float32
		switch {
		case i < len(specials):
			v = specials[i]
		case r.Intn(2) == 0:
			v = float32(r.NormFloat64() * math.Pow(10, float64(r.Intn(16)-8)))
		default:
			v = float32(math.NaN())
			for v != v || math.IsInf(float64(v), 0) {
				v = math.Float32frombits(r.Uint32())
			}
		}
		binary.LittleEndian.PutUint32(b, math.Float32bits(v))
	default:
		specials := []float64{0, math.Copysign(0, -1), 1, -1, quietNaN, math.Inf(1), math.Inf(-1),
			math.MaxFloat64, math.SmallestNonzeroFloat64, 2.2250738585072014e-308, 0.1}
		var v float64
		switch {
		case i < len(specials):
			v = specials[i]
		case r.Intn(2) == 0:
			v = r.NormFloat64() * math.Pow(10, float64(r.Intn(40)-20))
		default:
			v = math.NaN()
			for v != v || math.IsInf(v, 0) {
				v = math.Float64frombits(r.Uint64())
			}
		}
		binary.LittleEndian.PutUint64(b, math.Float64bits(v))
	}
	return b
}

// fillElement is the fill value as a Go value (ndarray.At's types).
func fillElement(dt dtype.DataType, fill []byte) any {
	return ndarray.Filled(dt, []int{1}, fill).At(0)
}
