package render

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// NPY writes a in the NumPy .npy format (version 1.0, C order). Variable-
// length strings become fixed-width UTF-32 ('<U<n>') of the longest one.
func NPY(w io.Writer, a *ndarray.Array) error {
	descr, data, err := npyBody(a)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.Write(npyHeader(descr, a.Shape))
	bw.Write(data)
	return bw.Flush()
}

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
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, tuple)
	// magic(6) + version(2) + header length(2) + dict + padding + '\n' is a multiple of 64.
	total := 10 + len(dict) + 1
	pad := (64 - total%64) % 64
	dict += strings.Repeat(" ", pad) + "\n"
	h := []byte("\x93NUMPY\x01\x00")
	h = binary.LittleEndian.AppendUint16(h, uint16(len(dict)))
	return append(h, dict...)
}

func npyBody(a *ndarray.Array) (string, []byte, error) {
	dt := a.DType
	switch dt.Kind {
	case dtype.String, dtype.Bytes:
		return stringsBody(a)
	case dtype.Raw:
		return fmt.Sprintf("|V%d", dt.Size), a.Data, nil
	}
	return dt.V2String(dtype.Little), a.Data, nil
}

func stringsBody(a *ndarray.Array) (string, []byte, error) {
	if a.DType.Kind == dtype.Bytes {
		width := 1
		for _, s := range a.Strings {
			width = max(width, len(s))
		}
		out := make([]byte, width*len(a.Strings))
		for i, s := range a.Strings {
			copy(out[i*width:], s)
		}
		return fmt.Sprintf("|S%d", width), out, nil
	}
	width := 1
	for _, s := range a.Strings {
		width = max(width, utf8.RuneCountInString(s))
	}
	out := make([]byte, 4*width*len(a.Strings))
	for i, s := range a.Strings {
		off := i * width * 4
		for _, r := range s {
			binary.LittleEndian.PutUint32(out[off:], uint32(r))
			off += 4
		}
	}
	return fmt.Sprintf("<U%d", width), out, nil
}
