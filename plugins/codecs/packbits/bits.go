package packbits

// bitWriter appends values to a zeroed buffer, least significant bit
// first.
type bitWriter struct {
	buf []byte
	pos uint // bits written
}

func (w *bitWriter) write(v uint64, width uint) {
	for width > 0 {
		i, off := w.pos/8, w.pos%8
		n := min(8-off, width)
		w.buf[i] |= byte(v&(1<<n-1)) << off
		v >>= n
		width -= n
		w.pos += n
	}
}

// bitReader reads values written by bitWriter.
type bitReader struct {
	buf []byte
	pos uint
}

func (r *bitReader) read(width uint) uint64 {
	var v uint64
	var got uint
	for got < width {
		i, off := r.pos/8, r.pos%8
		n := min(8-off, width-got)
		v |= uint64(r.buf[i]>>off&(1<<n-1)) << got
		got += n
		r.pos += n
	}
	return v
}
