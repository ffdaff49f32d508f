package blosc

import (
	"errors"
	"runtime"
	"sync"

	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// compressor holds one goroutine's compression state for one cname and
// level; it is reused through a worker, never shared.
type compressor struct {
	cname  string
	clevel int
	lz4    *lz4.CompressorCCompat
	lz4hc  *lz4.CompressorHC
	blz    *blzEncoder
	zlib   *zlib.Writer
	zout   limitedWriter
	spare  []byte // output scratch for codecs that cannot write in place
}

func newCompressor(cname string, clevel int) *compressor {
	c := &compressor{cname: cname, clevel: clevel}
	switch cname {
	case "lz4":
		// c-blosc's acceleration for lz4: faster and lighter at low levels.
		c.lz4 = &lz4.CompressorCCompat{Acceleration: 10 - clevel}
	case "lz4hc":
		c.lz4hc = &lz4.CompressorHC{Level: lz4.CompressionLevel(1 << (clevel + 3))}
	case "blosclz":
		c.blz = &blzEncoder{}
	}
	return c
}

// blzBudget mirrors c-blosc's blosclz give-up points: at low levels a split
// that does not shrink to this fraction of its size is stored raw, which
// keeps the fast levels fast on noisy data.
var blzBudget = [10]float64{0, .1, .2, .3, .4, .6, .9, .95, 1, 1}

// compress writes src compressed into dst and returns the length, or 0 if
// the result would not be shorter than len(dst) (the caller stores src
// raw, as c-blosc does). len(dst) <= len(src).
func (c *compressor) compress(src, dst []byte) int {
	var n int
	switch c.cname {
	case "lz4":
		n, _ = c.lz4.CompressBlock(src, dst)
	case "lz4hc":
		var err error
		if n, err = c.lz4hc.CompressBlock(src, dst); err != nil {
			n = 0
		}
	case "blosclz":
		budget := min(len(dst), int(float64(len(src))*blzBudget[c.clevel]))
		n = c.blz.compress(src, dst[:budget], uint(3+c.clevel/2))
	case "snappy":
		c.spare = growBuf(c.spare, snappy.MaxEncodedLen(len(src)))
		n = c.copyIfShorter(snappy.Encode(c.spare, src), dst)
	case "zlib":
		n = c.zlibCompress(src, dst)
	case "zstd":
		n = c.zstdCompress(src, dst)
	}
	if n >= len(dst) {
		return 0
	}
	return n
}

func (c *compressor) copyIfShorter(out, dst []byte) int {
	if len(out) >= len(dst) {
		return 0
	}
	return copy(dst, out)
}

func growBuf(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}

// limitedWriter writes into a fixed buffer and fails once it is full, so
// an incompressible split is abandoned early.
type limitedWriter struct {
	buf []byte
	n   int
}

var errFull = errors.New("output full")

func (w *limitedWriter) Write(p []byte) (int, error) {
	if len(p) > len(w.buf)-w.n {
		return 0, errFull
	}
	w.n += copy(w.buf[w.n:], p)
	return len(p), nil
}

func (c *compressor) zlibCompress(src, dst []byte) int {
	c.zout = limitedWriter{buf: dst}
	if c.zlib == nil {
		var err error
		if c.zlib, err = zlib.NewWriterLevel(&c.zout, c.clevel); err != nil {
			return 0
		}
	} else {
		c.zlib.Reset(&c.zout)
	}
	if _, err := c.zlib.Write(src); err != nil {
		return 0
	}
	if err := c.zlib.Close(); err != nil {
		return 0
	}
	return c.zout.n
}

func (c *compressor) zstdCompress(src, dst []byte) int {
	enc, err := zstdEncoder(zstdLevel(c.clevel))
	if err != nil {
		return 0
	}
	c.spare = enc.EncodeAll(src, c.spare[:0])
	return c.copyIfShorter(c.spare, dst)
}

// zstdLevel maps a blosc clevel as c-blosc does (2*clevel-1, and the
// maximum for 9) onto the encoder's speed classes.
func zstdLevel(clevel int) zstd.EncoderLevel {
	if clevel >= 9 {
		return zstd.SpeedBestCompression
	}
	return zstd.EncoderLevelFromZstd(2*clevel - 1)
}

var (
	zstdEncodersMu sync.Mutex
	zstdEncoders   = map[zstd.EncoderLevel]*zstd.Encoder{}
)

// zstdEncoder returns the shared encoder of a level; EncodeAll is safe for
// concurrent use. Frames carry their content size and no checksum, like
// c-blosc's.
func zstdEncoder(level zstd.EncoderLevel) (*zstd.Encoder, error) {
	zstdEncodersMu.Lock()
	defer zstdEncodersMu.Unlock()
	if e, ok := zstdEncoders[level]; ok {
		return e, nil
	}
	e, err := zstd.NewWriter(nil,
		zstd.WithEncoderLevel(level),
		zstd.WithEncoderCRC(false),
		zstd.WithEncoderConcurrency(runtime.GOMAXPROCS(0)),
		zstd.WithZeroFrames(true))
	if err != nil {
		return nil, err
	}
	zstdEncoders[level] = e
	return e, nil
}
