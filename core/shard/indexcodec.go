package shard

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// IndexCodec turns an index into its stored bytes and back.
type IndexCodec interface {
	// Size is the length of the encoded index, which is also how many
	// bytes a reader fetches from the shard's start or end.
	Size() int64
	Encode(ctx context.Context, ix *Index) ([]byte, error)
	// Decode reads the index from b, the first (loc Start) or last (loc
	// End) Size() bytes of a shard, or the whole shard if it is shorter.
	// It returns the length of the index region it used.
	Decode(ctx context.Context, b []byte, loc Location) (*Index, int64, error)
}

// corrupt makes sure a decode failure of an index reads as corruption.
func corrupt(err error) error {
	if errors.Is(err, codec.ErrCorrupt) {
		return fmt.Errorf("shard index: %w", err)
	}
	return fmt.Errorf("%w: shard index: %w", codec.ErrCorrupt, err)
}

// RawIndex is the index of the sharding storage transformer: 16 bytes per
// entry, nothing else.
type RawIndex struct{ cps []int }

// NewRawIndex returns the raw index codec for cps chunks per shard.
func NewRawIndex(cps []int) RawIndex { return RawIndex{cps: cps} }

func (r RawIndex) Size() int64 { return RawSize(r.cps) }

func (r RawIndex) Encode(_ context.Context, ix *Index) ([]byte, error) {
	return ix.AppendRaw(make([]byte, 0, r.Size())), nil
}

func (r RawIndex) Decode(_ context.Context, b []byte, _ Location) (*Index, int64, error) {
	if int64(len(b)) != r.Size() {
		return nil, 0, fmt.Errorf("%w: truncated shard: %d bytes, the index alone needs %d", codec.ErrCorrupt, len(b), r.Size())
	}
	ix, err := DecodeRaw(b, r.cps)
	return ix, r.Size(), err
}

// PipelineIndex encodes the index as a uint64 array of shape cps+[2]
// through a codec chain (sharding_indexed's index_codecs).
type PipelineIndex struct {
	cps  []int
	pipe *codec.Pipeline
	size int64
}

// NewPipelineIndex builds the index codec of a chain. Every codec must
// know its encoded size in advance (no compression), so that readers can
// fetch the index without knowing anything else about the shard.
func NewPipelineIndex(ctx context.Context, codecs []codec.Codec, cps []int) (*PipelineIndex, error) {
	spec := IndexSpec(cps)
	size, err := fixedSize(ctx, codecs, spec)
	if err != nil {
		return nil, err
	}
	pipe, err := codec.FromCodecs(ctx, codecs, spec, size)
	if err != nil {
		return nil, fmt.Errorf("index codecs: %w", err)
	}
	return &PipelineIndex{cps: cps, pipe: pipe, size: size}, nil
}

// IndexSpec is the spec of the index array: uint64 of shape cps+[2].
func IndexSpec(cps []int) codec.Spec {
	shape := append(append([]int(nil), cps...), 2)
	return codec.Spec{DataType: dtype.Named("uint64"), Shape: shape, DecodedSize: -1}
}

// fixedSize is the encoded size of the index through codecs, or an error
// if a codec cannot say it in advance.
func fixedSize(ctx context.Context, codecs []codec.Codec, spec codec.Spec) (int64, error) {
	size := RawSize(spec.Shape[:len(spec.Shape)-1])
	for _, c := range codecs {
		sc, ok := c.(codec.SizedCodec)
		if !ok {
			return 0, fmt.Errorf("index codec %s: the index must have a fixed size, and %s does not", c.Name(), c.Name())
		}
		next, ok := sc.EncodedSize(ctx, spec, size)
		if !ok {
			return 0, fmt.Errorf("index codec %s: encoded size is not fixed", c.Name())
		}
		if aa, ok := c.(codec.ArrayArray); ok && codec.KindOf(c) == codec.ArrayToArray {
			out, err := aa.OutputSpec(ctx, spec)
			if err != nil {
				return 0, fmt.Errorf("index codec %s: %w", c.Name(), err)
			}
			spec = out
		}
		size = next
	}
	return size, nil
}

func (p *PipelineIndex) Size() int64 { return p.size }

func (p *PipelineIndex) Encode(ctx context.Context, ix *Index) ([]byte, error) {
	a := &ndarray.Array{DType: dtype.Named("uint64"), Shape: IndexSpec(p.cps).Shape, Data: ix.AppendRaw(nil)}
	b, err := p.pipe.Encode(ctx, a)
	if err != nil {
		return nil, fmt.Errorf("shard index: %w", err)
	}
	if int64(len(b)) != p.size {
		return nil, fmt.Errorf("shard index: encoded to %d bytes, the codecs promised %d", len(b), p.size)
	}
	return b, nil
}

func (p *PipelineIndex) Decode(ctx context.Context, b []byte, _ Location) (*Index, int64, error) {
	if int64(len(b)) != p.size {
		return nil, 0, fmt.Errorf("%w: truncated shard: %d bytes, the index alone needs %d", codec.ErrCorrupt, len(b), p.size)
	}
	a, err := p.pipe.Decode(ctx, b)
	if err != nil {
		return nil, 0, corrupt(err)
	}
	ix, err := DecodeRaw(a.Data, p.cps)
	return ix, p.size, err
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// crc32cSize is the length of the CRC-32C that follows a legacy index.
const crc32cSize = crc32.Size

// LegacyIndex reads shards written before index_codecs existed: raw pairs
// followed by a CRC-32C (May-July 2023 drafts) or raw pairs alone (March-May
// 2023). The checksum decides; new shards get the checksum.
type LegacyIndex struct{ cps []int }

// NewLegacyIndex returns the index codec for configurations without
// index_codecs.
func NewLegacyIndex(cps []int) LegacyIndex { return LegacyIndex{cps: cps} }

func (l LegacyIndex) Size() int64 { return RawSize(l.cps) + crc32cSize }

func (l LegacyIndex) Encode(_ context.Context, ix *Index) ([]byte, error) {
	b := ix.AppendRaw(make([]byte, 0, l.Size()))
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli)), nil
}

func (l LegacyIndex) Decode(_ context.Context, b []byte, loc Location) (*Index, int64, error) {
	raw := RawSize(l.cps)
	if int64(len(b)) == raw+crc32cSize {
		payload := b[:raw]
		if binary.LittleEndian.Uint32(b[raw:]) == crc32.Checksum(payload, castagnoli) {
			ix, err := DecodeRaw(payload, l.cps)
			return ix, raw + crc32cSize, err
		}
	}
	if int64(len(b)) < raw {
		return nil, 0, fmt.Errorf("%w: truncated shard: %d bytes, the index alone needs %d", codec.ErrCorrupt, len(b), raw)
	}
	plain := b[:raw]
	if loc == End {
		plain = b[int64(len(b))-raw:]
	}
	ix, err := DecodeRaw(plain, l.cps)
	return ix, raw, err
}
