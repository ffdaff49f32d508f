//go:build libzstd

package zstdcodec

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"sync"

	ddzstd "github.com/DataDog/zstd"
	"github.com/cespare/xxhash/v2"

	"github.com/zarrgw/zarrgw/core/codec"
)

// The libzstd build (go build -tags libzstd, cgo on): libzstd's sources,
// bundled by github.com/DataDog/zstd, encode and decode. Its one-shot calls
// fill a caller's buffer and never write past it, so the size limits hold
// as in the pure-Go build; libzstd's own allocations are its contexts
// (about 1 MiB to compress at level 3, ~100 KiB to decompress), pooled.

// Library names the zstd implementation of this build, as `zarrgw
// version` reports it: github.com/DataDog/zstd's version is that of the
// libzstd sources it bundles.
func Library() string {
	v := strings.TrimPrefix(moduleVersion("github.com/DataDog/zstd"), "v")
	return strings.Join(strings.Fields("libzstd "+v+" (cgo, github.com/DataDog/zstd)"), " ")
}

// encoders is empty: libzstd's contexts are pooled for the whole package.
type encoders struct{}

// contexts hold one libzstd compression and one decompression context
// each; a context serves one call at a time.
var contexts = sync.Pool{New: func() any { return ddzstd.NewCtx() }}

// EncodeBytes writes one frame with libzstd at the codec's level (level 0
// is libzstd's own default, 3). libzstd's one-shot compression always
// records the content size and writes single-segment frames whenever the
// input fits the level's window, which covers every small input.
func (c *Codec) EncodeBytes(_ context.Context, _ codec.Spec, b []byte) ([]byte, error) {
	cx := contexts.Get().(ddzstd.Ctx)
	out, err := cx.CompressLevel(nil, b, c.level)
	contexts.Put(cx)
	if err != nil {
		return nil, fmt.Errorf("zstd: libzstd level %d: %w", c.level, err)
	}
	if c.checksum {
		if out, err = appendChecksum(out, b); err != nil {
			return nil, err
		}
	}
	if len(out) < cap(out)/2 {
		out = bytes.Clone(out) // not the input-sized bound for the life of the chunk
	}
	return out, nil
}

// appendChecksum turns a frame without a content checksum into the same
// frame with one (RFC 8878 3.1.1: flag bit 2 of the frame header
// descriptor, and the low 32 bits of the content's XXH64 after the last
// block), which is byte for byte what libzstd writes with its checksum
// flag set: the flag changes neither the header's size nor the blocks.
// The binding has no call that sets that flag.
func appendChecksum(frame, content []byte) ([]byte, error) {
	const magic, checksumFlag = 0xFD2FB528, 1 << 2
	if len(frame) < 5 || binary.LittleEndian.Uint32(frame) != magic || frame[4]&checksumFlag != 0 {
		return nil, fmt.Errorf("zstd: libzstd wrote an unexpected frame header % x", frame[:min(len(frame), 5)])
	}
	frame[4] |= checksumFlag
	return binary.LittleEndian.AppendUint32(frame, uint32(xxhash.Sum64(content))), nil
}

// decompressInto decodes every frame of b into dst, never past len(dst):
// errOutputFull when the content needs more, ErrCorrupt for bad input.
func decompressInto(b, dst []byte) (int, error) {
	buf := dst
	if len(buf) == 0 {
		// the binding needs a byte to point at; content that fills it is
		// one byte too many
		buf = make([]byte, 1)
	}
	cx := contexts.Get().(ddzstd.Ctx)
	n, err := cx.DecompressInto(buf, b)
	contexts.Put(cx)
	switch {
	case ddzstd.IsDstSizeTooSmallError(err), err == nil && n > len(dst):
		return 0, errOutputFull
	case err != nil:
		return 0, fmt.Errorf("zstd: %w: libzstd: %v", codec.ErrCorrupt, err)
	}
	return n, nil
}
