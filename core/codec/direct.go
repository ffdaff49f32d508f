package codec

import (
	"context"
	"fmt"
)

// Reading a chunk whose elements land in one contiguous run of the output
// can skip a copy: the last decode step writes straight into the output.
// These optional interfaces let the pipeline see when that is possible.

// RawLayout is implemented by array->bytes codecs whose encoded bytes are,
// for some specs, exactly the in-memory bytes (the bytes codec in
// little-endian order, or for 1-byte types).
type RawLayout interface {
	RawLayout(in Spec) bool
}

// DecoderInto is implemented by bytes->bytes codecs that can decode into a
// caller's buffer of exactly the decoded size.
type DecoderInto interface {
	// DecodeBytesInto fills dst with the decoded bytes of src; decoding to
	// any other length is an error wrapping ErrCorrupt.
	DecodeBytesInto(ctx context.Context, in Spec, src, dst []byte) error
}

// Direct reports whether DecodeInto can decode this pipeline's chunks
// straight into a buffer of in-memory element bytes, and whether the stored
// bytes are the element bytes themselves (no bytes->bytes codecs at all).
func (p *Pipeline) Direct() (ok, raw bool) {
	if len(p.aa) != 0 || p.abIn.DataType.Variable() {
		return false, false
	}
	rl, isRaw := p.ab.(RawLayout)
	if !isRaw || !rl.RawLayout(p.abIn) {
		return false, false
	}
	if len(p.bb) == 0 {
		return true, true
	}
	_, into := p.bb[0].(DecoderInto)
	return into, false
}

// DecodeInto decodes a stored chunk into dst, which must be exactly the
// chunk's in-memory size. Only valid when Direct reports ok.
func (p *Pipeline) DecodeInto(ctx context.Context, b []byte, dst []byte) error {
	if want := rawSize(p.abIn); int64(len(dst)) != want {
		return fmt.Errorf("decode into a buffer of %d bytes, chunk needs %d", len(dst), want)
	}
	var err error
	for i := len(p.bb) - 1; i >= 1; i-- {
		c, s := p.bb[i], p.bbIn[i]
		if b, err = c.DecodeBytes(ctx, s, b); err != nil {
			return fmt.Errorf("decode %s: %w", c.Name(), err)
		}
		if err := checkSize(c, s, b); err != nil {
			return err
		}
	}
	if len(p.bb) == 0 {
		if len(b) != len(dst) {
			return fmt.Errorf("decode %s: %w: %d bytes, want %d", p.ab.Name(), ErrCorrupt, len(b), len(dst))
		}
		copy(dst, b)
		return nil
	}
	c := p.bb[0].(DecoderInto)
	if err := c.DecodeBytesInto(ctx, p.bbIn[0], b, dst); err != nil {
		return fmt.Errorf("decode %s: %w", p.bb[0].Name(), err)
	}
	return nil
}

// checkSize enforces a stage's exact and maximum decoded sizes.
func checkSize(c Codec, s Spec, b []byte) error {
	if s.DecodedSize >= 0 && int64(len(b)) != s.DecodedSize {
		return fmt.Errorf("decode %s: %w: %d bytes, want %d", c.Name(), ErrCorrupt, len(b), s.DecodedSize)
	}
	if s.MaxDecodedSize > 0 && int64(len(b)) > s.MaxDecodedSize {
		return fmt.Errorf("decode %s: %w: %d bytes exceeds the limit of %d", c.Name(), ErrCorrupt, len(b), s.MaxDecodedSize)
	}
	return nil
}
