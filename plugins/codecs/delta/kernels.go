package delta

import (
	"encoding/binary"

	"github.com/zarrgw/zarrgw/plugins/codecs/internal/numeric"
)

// sameIntegers reports whether both types are integers of one width: then
// differences and sums are plain wrapping arithmetic on the bits,
// whatever the signedness.
func sameIntegers(a, b numeric.Type) bool {
	return !a.IsFloat() && !b.IsFloat() && a.Size == b.Size
}

func diffInts(dst, src []byte, size int) {
	switch size {
	case 1:
		var prev byte
		for i, x := range src {
			dst[i] = x - prev
			prev = x
		}
	case 2:
		var prev uint16
		for i := 0; i+2 <= len(src); i += 2 {
			x := binary.LittleEndian.Uint16(src[i:])
			binary.LittleEndian.PutUint16(dst[i:], x-prev)
			prev = x
		}
	case 4:
		var prev uint32
		for i := 0; i+4 <= len(src); i += 4 {
			x := binary.LittleEndian.Uint32(src[i:])
			binary.LittleEndian.PutUint32(dst[i:], x-prev)
			prev = x
		}
	default:
		var prev uint64
		for i := 0; i+8 <= len(src); i += 8 {
			x := binary.LittleEndian.Uint64(src[i:])
			binary.LittleEndian.PutUint64(dst[i:], x-prev)
			prev = x
		}
	}
}

func sumInts(dst, src []byte, size int) {
	switch size {
	case 1:
		var acc byte
		for i, x := range src {
			acc += x
			dst[i] = acc
		}
	case 2:
		var acc uint16
		for i := 0; i+2 <= len(src); i += 2 {
			acc += binary.LittleEndian.Uint16(src[i:])
			binary.LittleEndian.PutUint16(dst[i:], acc)
		}
	case 4:
		var acc uint32
		for i := 0; i+4 <= len(src); i += 4 {
			acc += binary.LittleEndian.Uint32(src[i:])
			binary.LittleEndian.PutUint32(dst[i:], acc)
		}
	default:
		var acc uint64
		for i := 0; i+8 <= len(src); i += 8 {
			acc += binary.LittleEndian.Uint64(src[i:])
			binary.LittleEndian.PutUint64(dst[i:], acc)
		}
	}
}

// diffValues handles floats and mixed widths one element at a time.
func diffValues(dst, src []byte, dt, as numeric.Type, n int) {
	var prev numeric.Value
	for i := range n {
		x := dt.Load(src[i*dt.Size:])
		d := x
		if i > 0 {
			d = dt.Sub(x, prev)
		}
		as.Store(dst[i*as.Size:], d)
		prev = x
	}
}

func sumValues(dst, src []byte, dt, as numeric.Type, n int) {
	var acc numeric.Value
	for i := range n {
		e := dt.Cast(as.Load(src[i*as.Size:]))
		if i == 0 {
			acc = e
		} else {
			acc = dt.Add(acc, e)
		}
		dt.Store(dst[i*dt.Size:], acc)
	}
}
