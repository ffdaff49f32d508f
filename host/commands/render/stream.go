package render

import (
	"bufio"
	"context"
	"fmt"
	"io"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// Format is a form in which array elements are written out.
type Format string

const (
	FormatJSON Format = "json" // {"zarr_format", "shape", "data_type", "data"}
	FormatNPY  Format = "npy"  // a NumPy .npy document
	FormatRaw  Format = "raw"  // the elements' little-endian bytes, C order
)

// ParseFormat checks a format name.
func ParseFormat(name string) (Format, error) {
	switch f := Format(name); f {
	case FormatJSON, FormatNPY, FormatRaw:
		return f, nil
	}
	return "", fmt.Errorf("format %q: use json, npy or raw", name)
}

// Stream writes the selected elements of a to w in format f, slab by slab
// as they are read (see array.Array.Stream), so memory stays within the
// stream's budget however large the selection. An error after the first
// bytes leaves w with a truncated document: the caller must report the
// failure (a non-zero exit, a broken response), never success.
func Stream(ctx context.Context, w io.Writer, a *array.Array, sel grid.Selection, f Format, opts array.StreamOptions) error {
	if err := sel.Check(a.Meta().Shape); err != nil {
		return fmt.Errorf("array %s: %w", a.Name(), err)
	}
	switch f {
	case FormatNPY:
		return streamNPY(ctx, w, a, sel, opts)
	case FormatRaw:
		if a.Meta().DataType.Variable() {
			return fmt.Errorf("array %s: raw output needs a fixed-size data type, not %s (use npy or json)", a.Name(), a.Meta().DataType.Name)
		}
		return a.Stream(ctx, sel, opts, func(s *ndarray.Array) error {
			_, err := w.Write(s.Data)
			return err
		})
	case FormatJSON:
		return streamJSON(ctx, w, a, sel, opts)
	}
	return fmt.Errorf("format %q: use json, npy or raw", f)
}

// streamNPY writes the .npy header (the shape is known before any element
// is read) and then each slab's elements. Variable-length strings become
// fixed-width elements as wide as the longest one, which takes a first
// pass over the selection to learn.
func streamNPY(ctx context.Context, w io.Writer, a *array.Array, sel grid.Selection, opts array.StreamOptions) error {
	width := 0
	if a.Meta().DataType.Variable() {
		err := a.Stream(ctx, sel, opts, func(s *ndarray.Array) error {
			width = max(width, stringsWidth(s))
			return nil
		})
		if err != nil {
			return err
		}
	}
	// the header goes out with the first slab: a selection whose first
	// slab cannot be read has written nothing, and a server can still
	// answer with an error status
	header := npyHeader(npyDescr(a.Meta().DataType, width), sel.Shape())
	var buf []byte
	err := a.Stream(ctx, sel, opts, func(s *ndarray.Array) error {
		if header != nil {
			if _, err := w.Write(header); err != nil {
				return err
			}
			header = nil
		}
		body := s.Data
		if s.DType.Variable() {
			buf = fixedStrings(buf, s, width)
			body = buf
		}
		_, err := w.Write(body)
		return err
	})
	if err == nil && header != nil {
		_, err = w.Write(header) // no elements at all
	}
	return err
}

// streamJSON writes the document's head, every element as it arrives and
// the tail, through one buffer. A failure before the first slab writes
// nothing.
func streamJSON(ctx context.Context, w io.Writer, a *array.Array, sel grid.Selection, opts array.StreamOptions) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	m := *a.Meta()
	m.Shape = sel.Shape()
	writeJSONHead(bw, &m)
	first := true
	var scratch []byte
	err := a.Stream(ctx, sel, opts, func(s *ndarray.Array) error {
		scratch = writeJSONElements(bw, s, first, scratch)
		first = false
		return nil
	})
	if err != nil {
		if !first {
			bw.Flush() // what was read so far, so the failure shows where it is
		}
		// else nothing was written: a server can still answer with an
		// error status
		return err
	}
	bw.WriteString("]}\n")
	return bw.Flush()
}

// Size is the length of what Stream writes in format f, when it is known
// before reading: .npy and raw output of fixed-size elements.
func Size(a *array.Array, sel grid.Selection, f Format) (int64, bool) {
	dt := a.Meta().DataType
	if dt.Variable() || f == FormatJSON {
		return 0, false
	}
	n, ok := elementBytes(sel.Counts(), dt)
	if !ok {
		return 0, false
	}
	if f == FormatNPY {
		n += int64(len(npyHeader(npyDescr(dt, 0), sel.Shape())))
	}
	return n, true
}
