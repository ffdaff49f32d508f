package render

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// npyHeader is the header of a .npy document, C order: version 1.0, or
// 2.0 (a 4-byte header length) when the shape makes the header longer
// than 1.0's 2-byte length holds, as numpy does.
func npyHeader(descr string, shape []int) []byte {
	dims := make([]string, len(shape))
	for i, s := range shape {
		dims[i] = fmt.Sprint(s)
	}
	tuple := "(" + strings.Join(dims, ", ")
	if len(shape) == 1 {
		tuple += ","
	}
	tuple += ")"
	if !strings.HasPrefix(descr, "[") { // a structured descr is a list, not a string
		descr = "'" + descr + "'"
	}
	dict := fmt.Sprintf("{'descr': %s, 'fortran_order': False, 'shape': %s, }", descr, tuple)
	// magic(6) + version(2) + header length(2 or 4) + dict + padding + '\n'
	// is a multiple of 64.
	lenBytes, version := 2, byte(1)
	if 10+len(dict)+1+63 > math.MaxUint16 {
		lenBytes, version = 4, 2
	}
	total := 8 + lenBytes + len(dict) + 1
	pad := (64 - total%64) % 64
	dict += strings.Repeat(" ", pad) + "\n"
	h := []byte{0x93, 'N', 'U', 'M', 'P', 'Y', version, 0}
	if lenBytes == 2 {
		h = binary.LittleEndian.AppendUint16(h, uint16(len(dict)))
	} else {
		h = binary.LittleEndian.AppendUint32(h, uint32(len(dict)))
	}
	return append(h, dict...)
}

// npyDescr is the .npy type of elements of dt; variable-length strings are
// written fixed-width, width characters (bytes for dtype.Bytes) each.
func npyDescr(dt dtype.DataType, width int) string {
	switch dt.Kind {
	case dtype.Bytes:
		return fmt.Sprintf("|S%d", max(width, 1))
	case dtype.String:
		return fmt.Sprintf("<U%d", max(width, 1))
	case dtype.Raw:
		return fmt.Sprintf("|V%d", dt.Size)
	case dtype.Struct:
		return structDescr(dt, dtype.Little)
	case dtype.SubByteInt, dtype.SubByteUint, dtype.MiniFloat, dtype.MiniComplex:
		// numpy's np.save writes ml_dtypes arrays as void of their size
		// ('<V2' for bfloat16, '<V1' for int4; ml_dtypes 0.6.0, numpy
		// 2.4.6), which np.load reads back as void: .view(ml_dtypes.bfloat16)
		// restores the type. The one exception, float8_e5m2's '<f1', is a
		// descr np.load itself refuses, so it is written as '<V1' too.
		return fmt.Sprintf("<V%d", dt.Size)
	}
	return dt.V2String(dtype.Little)
}

// stringsWidth is the width the longest string of a needs: bytes for
// dtype.Bytes, characters for dtype.String.
func stringsWidth(a *ndarray.Array) int {
	width := 0
	for _, s := range a.Strings {
		if a.DType.Kind == dtype.Bytes {
			width = max(width, len(s))
		} else {
			width = max(width, utf8.RuneCountInString(s))
		}
	}
	return width
}

// fixedStrings renders the strings of a as fixed-width .npy elements
// (UTF-32LE or bytes, NUL-padded) of width characters, into buf.
func fixedStrings(buf []byte, a *ndarray.Array, width int) []byte {
	width = max(width, 1)
	unit := 4
	if a.DType.Kind == dtype.Bytes {
		unit = 1
	}
	size := unit * width * len(a.Strings)
	if cap(buf) < size {
		buf = make([]byte, size)
	}
	buf = buf[:size]
	clear(buf)
	for i, s := range a.Strings {
		off := i * width * unit
		if unit == 1 {
			copy(buf[off:], s)
			continue
		}
		for _, r := range s {
			binary.LittleEndian.PutUint32(buf[off:], uint32(r))
			off += 4
		}
	}
	return buf
}

// structDescr is numpy's descr of a struct type, as a Python literal,
// multi-byte fields in byte order e:
// [('x', '<f4'), ('coords', '<i4', (3,)), ('p', [('a', '|u1')])].
func structDescr(dt dtype.DataType, e dtype.Endian) string {
	items := make([]string, len(dt.Fields()))
	for i, f := range dt.Fields() {
		typ := "'" + f.Type.V2String(e) + "'"
		if f.Type.Kind == dtype.Raw {
			typ = fmt.Sprintf("'|V%d'", f.Type.Size)
		}
		if f.Type.Kind == dtype.Struct {
			typ = structDescr(f.Type, e)
		}
		item := "(" + pyString(f.Name) + ", " + typ
		if f.Shape != nil {
			dims := make([]string, len(f.Shape))
			for k, d := range f.Shape {
				dims[k] = fmt.Sprint(d)
			}
			item += ", (" + strings.Join(dims, ", ") + ",)"
		}
		items[i] = item + ")"
	}
	return "[" + strings.Join(items, ", ") + "]"
}

// pyString is s as a Python string literal (numpy reads the header
// with ast.literal_eval): quotes, backslashes and every character outside
// printable ASCII escaped, since headers of .npy 1.0 and 2.0 are latin-1.
func pyString(s string) string {
	var sb strings.Builder
	sb.WriteByte('\'')
	for _, r := range s {
		switch {
		case r == '\'' || r == '\\':
			sb.WriteByte('\\')
			sb.WriteRune(r)
		case r >= 0x20 && r < 0x7f:
			sb.WriteRune(r)
		case r <= 0xffff:
			fmt.Fprintf(&sb, "\\u%04x", r)
		default:
			fmt.Fprintf(&sb, "\\U%08x", r)
		}
	}
	sb.WriteByte('\'')
	return sb.String()
}
