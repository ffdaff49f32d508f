package blosc

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"
)

// params are the settings of one encode, resolved from the configuration
// and the data.
type params struct {
	cname     string
	clevel    int
	typeSize  int
	shuffle   Shuffle // never AutoShuffle
	blockSize int
	flags     uint8
}

func newParams(cfg Config, typeSize, nbytes int) params {
	if typeSize < 1 || typeSize > 255 {
		typeSize = 1 // c-blosc treats wider types as bytes
	}
	p := params{cname: cfg.CName, clevel: cfg.CLevel, typeSize: typeSize, shuffle: cfg.Shuffle.resolve(typeSize)}
	p.blockSize = computeBlockSize(p.cname, p.clevel, typeSize, nbytes, cfg.BlockSize)
	p.flags = uint8(cnames[p.cname]) << 5
	switch p.shuffle {
	case ByteShuffle:
		p.flags |= flagShuffle
	case BitShuffle:
		p.flags |= flagBitShuffle
	}
	if !splittable(p.cname, typeSize, p.blockSize) {
		p.flags |= flagDontSplit
	}
	return p
}

func (p params) header(nbytes, cbytes int, memcpyed bool) Header {
	h := Header{Version: 2, VersionLZ: 1, Flags: p.flags, TypeSize: p.typeSize, NBytes: nbytes, BlockSize: p.blockSize, CBytes: cbytes}
	if memcpyed {
		h.Flags |= flagMemcpyed
	}
	return h
}

// memcpyedFrame stores src raw after the header. The shuffle bits stay set
// (as in c-blosc) but do not apply to a memcpyed payload.
func memcpyedFrame(p params, src []byte) []byte {
	out := make([]byte, headerSize+len(src))
	p.header(len(src), len(out), true).put(out)
	copy(out[headerSize:], src)
	return out
}

// encodeFrame compresses src into a blosc1 frame.
func encodeFrame(ctx context.Context, cfg Config, typeSize int, src []byte, par int) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(src) > maxBufferSize {
		return nil, fmt.Errorf("blosc: %d bytes exceed the format's limit of %d", len(src), maxBufferSize)
	}
	p := newParams(cfg, typeSize, len(src))
	if p.clevel == 0 || len(src) < minBufferSize {
		return memcpyedFrame(p, src), nil
	}
	e := frameEncoder{p: p, src: src, lay: newLayout(len(src), p.blockSize)}
	par = e.parallelism(par)
	work := getBuf(e.workSize(par))
	defer putBuf(work)
	var n int
	var err error
	if par > 1 {
		n, err = e.runParallel(ctx, *work, par)
	} else {
		n, err = e.runSequential(ctx, *work)
	}
	if err != nil {
		return nil, err
	}
	// c-blosc gives up once the frame is no smaller than a raw copy.
	if n == 0 || n >= headerSize+len(src) {
		return memcpyedFrame(p, src), nil
	}
	p.header(len(src), n, false).put(*work)
	return append([]byte(nil), (*work)[:n]...), nil
}

// frameEncoder compresses the blocks of one frame.
type frameEncoder struct {
	p   params
	src []byte
	lay layout
}

// maxBlockOut is the most bytes block encoding can write: raw streams plus
// one size field per split.
func (e *frameEncoder) maxBlockOut() int { return e.p.blockSize + 4*e.p.typeSize }

func (e *frameEncoder) dataFrom() int { return headerSize + 4*e.lay.nblocks }

func (e *frameEncoder) workSize(par int) int {
	if par > 1 {
		return e.dataFrom() + e.lay.nblocks*e.maxBlockOut()
	}
	return e.dataFrom() + len(e.src) + e.lay.nblocks*4*e.p.typeSize
}

// parallelism bounds par by the blocks and by what pays: measured like
// the decoder's, with lower floors as compressing is slower.
func (e *frameEncoder) parallelism(par int) int {
	slow := e.p.cname == "zstd" || e.p.cname == "zlib" || e.p.cname == "lz4hc"
	if !worthParallel(slow, len(e.src), 512<<10, 64<<10) {
		return 1
	}
	return max(1, min(par, e.lay.nblocks))
}

// runSequential writes the block offsets and compresses block after block
// straight into place. It returns the frame length, or 0 as soon as the
// output reaches the size of a memcpyed frame.
func (e *frameEncoder) runSequential(ctx context.Context, work []byte) (int, error) {
	w := getWorker(min(e.p.blockSize, len(e.src)))
	defer putWorker(w)
	pos, limit := e.dataFrom(), headerSize+len(e.src)
	for j := range e.lay.nblocks {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		binary.LittleEndian.PutUint32(work[headerSize+4*j:], uint32(pos))
		pos += e.encodeBlock(w, j, work[pos:])
		if pos >= limit {
			return 0, nil
		}
	}
	return pos, nil
}

// runParallel compresses blocks into fixed slots, then closes the gaps and
// writes the block offsets; it returns the frame length.
func (e *frameEncoder) runParallel(ctx context.Context, work []byte, par int) (int, error) {
	sizes := make([]int, e.lay.nblocks)
	slot := e.maxBlockOut()
	err := runBlocks(ctx, e.lay.nblocks, par, min(e.p.blockSize, len(e.src)), func(w *worker, j int) error {
		at := e.dataFrom() + j*slot
		sizes[j] = e.encodeBlock(w, j, work[at:at+slot])
		return nil
	})
	if err != nil {
		return 0, err
	}
	pos := e.dataFrom()
	for j, n := range sizes {
		binary.LittleEndian.PutUint32(work[headerSize+4*j:], uint32(pos))
		at := e.dataFrom() + j*slot
		pos += copy(work[pos:], work[at:at+n])
	}
	return pos, nil
}

// encodeBlock filters and compresses block j into dst and returns the
// bytes written (at most maxBlockOut).
func (e *frameEncoder) encodeBlock(w *worker, j int, dst []byte) int {
	bl := e.lay.blockLen(j)
	src := e.src[j*e.p.blockSize : j*e.p.blockSize+bl]
	ts := e.p.typeSize
	switch {
	case e.p.shuffle == ByteShuffle && ts > 1:
		shuffle(ts, src, w.tmp[:bl])
		src = w.tmp[:bl]
	case e.p.shuffle == BitShuffle:
		bitshuffle(ts, src, w.tmp[:bl], w.scratch(bl))
		src = w.tmp[:bl]
	}
	short := j == e.lay.nblocks-1 && e.lay.leftover > 0
	ns := nsplits(e.p.flags, ts, e.p.blockSize, short)
	part := bl / ns
	comp := w.compressorFor(e.p.cname, e.p.clevel)
	pos := 0
	for s := range ns {
		in, out := src[s*part:(s+1)*part], dst[pos+4:pos+4+part]
		n := comp.compress(in, out)
		if n == 0 {
			n = copy(out, in) // raw: its size equals the split length
		}
		binary.LittleEndian.PutUint32(dst[pos:], uint32(n))
		pos += 4 + n
	}
	return pos
}

// Work buffers for frames being built are pooled: they are as large as the
// input, and only the finished frame is copied out.
var bufs sync.Pool

func getBuf(n int) *[]byte {
	b, _ := bufs.Get().(*[]byte)
	if b == nil {
		b = new([]byte)
	}
	*b = growBuf(*b, n)
	return b
}

func putBuf(b *[]byte) { bufs.Put(b) }
