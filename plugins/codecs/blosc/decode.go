package blosc

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/zarrgw/zarrgw/core/codec"
)

// worthParallel reports whether spreading the blocks of n decoded bytes
// over goroutines pays: measured on 1-4 MiB float32 frames, the fast
// codecs decode a 512 KiB block in about 50 us, too little to gain from a
// hand-off at 1 MiB, while zstd and zlib gain from 256 KiB on.
func worthParallel(slow bool, n, fastMin, slowMin int) bool {
	if slow {
		return n >= slowMin
	}
	return n >= fastMin
}

func slowDecoder(c Compressor) bool { return c == Zlib || c == Zstd }

// decodeFrame decodes one blosc1 frame within the limits of spec, into
// dst when it is large enough.
func decodeFrame(ctx context.Context, dst, frame []byte, spec codec.Spec, par int) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	h, err := ParseHeader(frame)
	if err != nil {
		return nil, err
	}
	if err := checkLimits(h.NBytes, spec); err != nil {
		return nil, err
	}
	frame = frame[:h.CBytes]
	if h.Memcpyed() {
		return append(dst[:0], frame[headerSize:]...), nil
	}
	if h.NBytes == 0 {
		return dst[:0], nil
	}
	d, err := newFrameDecoder(h, frame)
	if err != nil {
		return nil, err
	}
	out := dst[:0]
	if cap(out) < h.NBytes {
		out = make([]byte, h.NBytes)
	}
	out = out[:h.NBytes]
	if !worthParallel(slowDecoder(h.Compressor()), h.NBytes, 2<<20, 256<<10) {
		par = 1
	}
	// Block buffers are sized by the real block length: a header may claim a
	// block size far beyond nbytes.
	if err := runBlocks(ctx, d.lay.nblocks, par, min(h.BlockSize, h.NBytes), func(w *worker, j int) error {
		return d.decodeBlock(w, j, out)
	}); err != nil {
		return nil, err
	}
	return out, nil
}

// checkLimits compares the header's decoded size with what the caller
// expects, before anything of that size is allocated.
func checkLimits(n int, spec codec.Spec) error {
	if spec.DecodedSize >= 0 && int64(n) != spec.DecodedSize {
		return fmt.Errorf("%w: blosc frame decodes to %d bytes, want %d", codec.ErrCorrupt, n, spec.DecodedSize)
	}
	if spec.MaxDecodedSize > 0 && int64(n) > spec.MaxDecodedSize {
		return fmt.Errorf("%w: blosc frame decodes to %d bytes, more than the limit of %d", codec.ErrCorrupt, n, spec.MaxDecodedSize)
	}
	return nil
}

// frameDecoder decodes the blocks of one compressed (not memcpyed) frame.
type frameDecoder struct {
	h        Header
	frame    []byte // exactly CBytes long
	lay      layout
	dataFrom int // first byte after the block offsets
}

func newFrameDecoder(h Header, frame []byte) (*frameDecoder, error) {
	lay := newLayout(h.NBytes, h.BlockSize)
	if lay.nblocks > (h.CBytes-headerSize)/4 {
		return nil, fmt.Errorf("%w: blosc frame of %d bytes cannot hold %d block offsets", codec.ErrCorrupt, h.CBytes, lay.nblocks)
	}
	d := &frameDecoder{h: h, frame: frame, lay: lay, dataFrom: headerSize + 4*lay.nblocks}
	payload := h.CBytes - d.dataFrom
	if float64(h.NBytes) > maxExpansion(h.Compressor())*float64(payload)+(1<<17) {
		return nil, fmt.Errorf("%w: %d compressed bytes cannot hold %d bytes of %s data", codec.ErrCorrupt, payload, h.NBytes, h.Compressor())
	}
	return d, nil
}

// maxExpansion bounds how many output bytes one input byte of an inner
// stream can produce (length bytes of 255 for the LZ77 codecs, deflate's
// 1032:1, a 4-byte zstd RLE block standing for 128 KiB), with a margin.
func maxExpansion(c Compressor) float64 {
	switch c {
	case BloscLZ, LZ4:
		return 260
	case Snappy:
		return 64
	case Zlib:
		return 1040
	case Zstd:
		return 32800
	}
	return math.Inf(1)
}

// decodeBlock decodes block j into its place in out.
func (d *frameDecoder) decodeBlock(w *worker, j int, out []byte) error {
	start := int(binary.LittleEndian.Uint32(d.frame[headerSize+4*j:]))
	if start < d.dataFrom || start > len(d.frame) {
		return fmt.Errorf("%w: blosc block %d starts at %d, outside %d..%d", codec.ErrCorrupt, j, start, d.dataFrom, len(d.frame))
	}
	bl := d.lay.blockLen(j)
	dst := out[j*d.lay.blockSize : j*d.lay.blockSize+bl]
	ts, flags := d.h.TypeSize, d.h.Flags
	byteShuf := flags&flagShuffle != 0 && ts > 1
	bitShuf := !byteShuf && flags&flagBitShuffle != 0
	short := j == d.lay.nblocks-1 && d.lay.leftover > 0
	ns := nsplits(flags, ts, d.h.BlockSize, short)
	if bl%ns != 0 {
		return fmt.Errorf("%w: blosc block of %d bytes does not split into %d streams", codec.ErrCorrupt, bl, ns)
	}
	// Unfiltered blocks decode in place. Filtered ones decode into tmp,
	// except streams stored raw, which the filter reads from the frame.
	target := dst
	if byteShuf || bitShuf {
		target = w.tmp[:bl]
	}
	parts := w.parts[:ns]
	defer clear(parts) // do not keep the frame alive from the pool
	if err := d.decodeSplits(j, start, target, parts, byteShuf || bitShuf); err != nil {
		return err
	}
	switch {
	case byteShuf && ns == ts:
		interleave(parts, bl/ts, dst)
	case byteShuf:
		unshuffle(ts, parts[0], dst)
	case bitShuf && ns == ts:
		e := bl / ts
		if e%8 != 0 {
			for s, p := range parts {
				copy(dst[s*e:], p)
			}
			return nil
		}
		bitunshufflePlanes(parts, e, dst, w.scratch(bl))
	case bitShuf:
		bitunshuffle(ts, parts[0], dst, w.scratch(bl))
	}
	return nil
}

// decodeSplits decodes the streams of block j, starting at frame offset
// pos, into target (the block's length) and records in parts where each
// stream's bytes are: in target, or, with rawInFrame, in the frame itself
// for a stream stored raw.
func (d *frameDecoder) decodeSplits(j, pos int, target []byte, parts [][]byte, rawInFrame bool) error {
	part := len(target) / len(parts)
	for s := range parts {
		if len(d.frame)-pos < 4 {
			return fmt.Errorf("%w: blosc block %d stream %d: size field beyond the frame", codec.ErrCorrupt, j, s)
		}
		csize := int(int32(binary.LittleEndian.Uint32(d.frame[pos:])))
		pos += 4
		if csize < 0 || csize > len(d.frame)-pos {
			return fmt.Errorf("%w: blosc block %d stream %d: %d compressed bytes at %d overrun the frame of %d", codec.ErrCorrupt, j, s, csize, pos, len(d.frame))
		}
		src, dst := d.frame[pos:pos+csize], target[s*part:(s+1)*part]
		pos += csize
		parts[s] = dst
		switch {
		case csize == part && rawInFrame:
			parts[s] = src // stored raw: compression did not help
		case csize == part:
			copy(dst, src)
		default:
			if err := decompress(d.h.Compressor(), src, dst); err != nil {
				return fmt.Errorf("blosc block %d stream %d: %w", j, s, err)
			}
		}
	}
	return nil
}
