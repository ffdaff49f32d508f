// Package stream holds what the codecs that store a chunk as one
// compressed stream (gzip, zlib, bz2) share: compressing through pooled
// writers into one buffer, and decompressing through pooled readers within
// the size limits of a codec.Spec.
package stream

import (
	"bytes"
	"fmt"
	"io"
	"sync"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/plugins/codecs/internal/bounded"
)

// Writer is a compressing writer that can be pointed at a new output.
type Writer interface {
	io.WriteCloser
	Reset(w io.Writer)
}

// Writers pools the compressing writers of one codec configuration;
// writers are costly to set up and a codec compresses many chunks.
type Writers struct {
	pool sync.Pool
	// New returns a writer compressing into w.
	New func(w io.Writer) (Writer, error)
}

// Encode compresses b into one stream.
func (ws *Writers) Encode(b []byte) ([]byte, error) {
	var out bytes.Buffer
	out.Grow(len(b)/2 + 64)
	w, _ := ws.pool.Get().(Writer)
	if w == nil {
		var err error
		if w, err = ws.New(&out); err != nil {
			return nil, err
		}
	} else {
		w.Reset(&out)
	}
	if _, err := w.Write(b); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	ws.pool.Put(w) // only a writer that closed cleanly is reused
	return out.Bytes(), nil
}

// Readers pools the decompressing readers of one format.
type Readers struct {
	pool sync.Pool
	// New returns a reader decompressing src; an error means src does not
	// start as the format does.
	New func(src io.Reader) (io.Reader, error)
	// Reset points a pooled reader at src; nil for readers that cannot be
	// reused (each decode gets a New one).
	Reset func(r, src io.Reader) error
	// Expansion is how many times its input a decode may first allocate
	// (the output then grows as needed, within the spec's limits).
	Expansion int
}

// Decode decompresses b within in's size limits. Malformed input is an
// error wrapping codec.ErrCorrupt.
func (rs *Readers) Decode(in codec.Spec, b []byte) ([]byte, error) {
	src := bytes.NewReader(b)
	r, _ := rs.pool.Get().(io.Reader)
	var err error
	if r == nil || rs.Reset == nil {
		r, err = rs.New(src)
	} else {
		err = rs.Reset(r, src)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: header: %v", codec.ErrCorrupt, err)
	}
	if rs.Reset != nil {
		defer rs.pool.Put(r)
	}
	return bounded.ReadAll(r, in, rs.Expansion*len(b))
}
