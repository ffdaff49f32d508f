package blosc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/zarrgw/zarrgw/core/codec"
)

// Header flag bits of a blosc1 frame.
const (
	flagShuffle    = 0x01 // byte shuffle applied
	flagMemcpyed   = 0x02 // payload stored raw after the header
	flagBitShuffle = 0x04 // bit shuffle applied
	flagReserved   = 0x08 // must be 0 in blosc1 (delta filter in c-blosc2)
	flagDontSplit  = 0x10 // blocks are not split by byte planes
)

const (
	headerSize = 16
	// minBufferSize is c-blosc's MIN_BUFFERSIZE: smaller buffers are always
	// memcpyed, and a block is split only if it holds at least this many
	// elements.
	minBufferSize = 128
	// maxSplits is c-blosc's MAX_SPLITS: wider types are never split.
	maxSplits = 16
	// maxBufferSize is c-blosc's BLOSC_MAX_BUFFERSIZE: sizes are int32
	// inside the library.
	maxBufferSize = math.MaxInt32 - headerSize
)

// ErrUnsupported is wrapped when a frame is well formed but uses a feature
// this package does not implement (c-blosc2 extended headers and filters,
// unknown inner compressors).
var ErrUnsupported = errors.New("unsupported blosc frame")

// unsupported is an error wrapping ErrUnsupported and codec.ErrCorrupt: a
// frame this decoder cannot read is, to the engine, a chunk it cannot
// decode, and garbage can look like a frame of an unknown version.
func unsupported(format string, args ...any) error {
	return unsupportedError(fmt.Sprintf(format, args...))
}

type unsupportedError string

func (e unsupportedError) Error() string   { return ErrUnsupported.Error() + ": " + string(e) }
func (e unsupportedError) Unwrap() []error { return []error{ErrUnsupported, codec.ErrCorrupt} }

// Header is the fixed 16-byte header of a blosc1 frame.
type Header struct {
	Version   uint8
	VersionLZ uint8
	Flags     uint8
	TypeSize  int
	NBytes    int // decoded length
	BlockSize int
	CBytes    int // frame length including the header
}

// Compressor is the inner compressor named by the top three flag bits.
func (h Header) Compressor() Compressor { return Compressor(h.Flags >> 5) }

// Memcpyed reports whether the payload is stored raw after the header.
func (h Header) Memcpyed() bool { return h.Flags&flagMemcpyed != 0 }

// ParseHeader reads and validates the header of frame: the sizes must be
// consistent with each other and with len(frame), so that callers can size
// buffers from them.
func ParseHeader(frame []byte) (Header, error) {
	if len(frame) < headerSize {
		return Header{}, fmt.Errorf("%w: blosc frame of %d bytes is shorter than its header", codec.ErrCorrupt, len(frame))
	}
	// Sizes are int32 in c-blosc; refusing larger ones keeps every size
	// and sum of sizes below an int's range, on 32-bit platforms too.
	nbytes, blocksize, cbytes := binary.LittleEndian.Uint32(frame[4:]), binary.LittleEndian.Uint32(frame[8:]), binary.LittleEndian.Uint32(frame[12:])
	if nbytes > maxBufferSize || blocksize > maxBufferSize || cbytes > math.MaxInt32 {
		return Header{}, fmt.Errorf("%w: blosc sizes (nbytes %d, blocksize %d, cbytes %d) exceed the format's limit", codec.ErrCorrupt, nbytes, blocksize, cbytes)
	}
	h := Header{
		Version:   frame[0],
		VersionLZ: frame[1],
		Flags:     frame[2],
		TypeSize:  int(frame[3]),
		NBytes:    int(nbytes),
		BlockSize: int(blocksize),
		CBytes:    int(cbytes),
	}
	if err := h.checkFormat(); err != nil {
		return Header{}, err
	}
	if err := h.checkSizes(len(frame)); err != nil {
		return Header{}, err
	}
	return h, nil
}

// checkFormat rejects versions and flags this decoder cannot honour.
func (h Header) checkFormat() error {
	if h.Version == 0 || h.Version > 4 {
		return unsupported("blosc format version %d", h.Version)
	}
	// c-blosc2 marks its 32-byte extended header by setting both shuffle
	// bits, a combination blosc1 never writes.
	if h.Flags&(flagShuffle|flagBitShuffle) == flagShuffle|flagBitShuffle {
		return unsupported("c-blosc2 extended header (format version %d); only blosc1 frames are supported", h.Version)
	}
	if h.Flags&flagReserved != 0 {
		return unsupported("flag 0x08 (c-blosc2 delta filter) is set")
	}
	if c := h.Compressor(); !c.known() {
		return unsupported("inner compressor code %d", uint8(c))
	}
	return nil
}

// checkSizes validates the size fields against each other and the frame.
func (h Header) checkSizes(frameLen int) error {
	switch {
	case h.TypeSize == 0:
		return fmt.Errorf("%w: blosc typesize 0", codec.ErrCorrupt)
	case h.CBytes < headerSize:
		return fmt.Errorf("%w: blosc cbytes %d is shorter than the header", codec.ErrCorrupt, h.CBytes)
	case h.CBytes > frameLen:
		return fmt.Errorf("%w: blosc frame truncated: header says %d bytes, have %d", codec.ErrCorrupt, h.CBytes, frameLen)
	case h.NBytes > 0 && h.BlockSize == 0:
		return fmt.Errorf("%w: blosc blocksize 0", codec.ErrCorrupt)
	case h.Memcpyed() && h.CBytes != h.NBytes+headerSize:
		return fmt.Errorf("%w: memcpyed blosc frame: cbytes %d != nbytes %d + %d", codec.ErrCorrupt, h.CBytes, h.NBytes, headerSize)
	}
	return nil
}

// put writes h into the first 16 bytes of b.
func (h Header) put(b []byte) {
	b[0], b[1], b[2], b[3] = h.Version, h.VersionLZ, h.Flags, uint8(h.TypeSize)
	binary.LittleEndian.PutUint32(b[4:], uint32(h.NBytes))
	binary.LittleEndian.PutUint32(b[8:], uint32(h.BlockSize))
	binary.LittleEndian.PutUint32(b[12:], uint32(h.CBytes))
}

// layout describes how the blocks of a compressed frame are cut.
type layout struct {
	nblocks   int
	blockSize int
	leftover  int // length of the short last block, 0 if all are full
}

func newLayout(nbytes, blockSize int) layout {
	l := layout{nblocks: nbytes / blockSize, blockSize: blockSize, leftover: nbytes % blockSize}
	if l.leftover > 0 {
		l.nblocks++
	}
	return l
}

// blockLen is the decoded length of block j.
func (l layout) blockLen(j int) int {
	if j == l.nblocks-1 && l.leftover > 0 {
		return l.leftover
	}
	return l.blockSize
}

// nsplits is how many independently compressed streams block j holds: a
// full block of a narrow enough type with enough elements is split into
// one stream per byte plane unless the frame says otherwise. The test uses
// the header block size, exactly as c-blosc does.
func nsplits(flags uint8, typeSize, blockSize int, short bool) int {
	if flags&flagDontSplit == 0 && !short && typeSize <= maxSplits && blockSize/typeSize >= minBufferSize {
		return typeSize
	}
	return 1
}
