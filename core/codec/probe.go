package codec

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/zarrgw/zarrgw/core/checked"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// Nested is implemented by array->bytes codecs that encode a chunk as
// parts through codec chains of their own (sharding_indexed: its inner
// chunks). Probe reaches those chains through it: a chunk of fill values
// never does, as a part holding only fill values is not encoded at all.
type Nested interface {
	// NestedPipelines returns the pipelines of the parts of a chunk of
	// spec in.
	NestedPipelines(ctx context.Context, in Spec) ([]*Pipeline, error)
}

// ErrFillChanged is wrapped by Probe when a chain stores a chunk of fill
// values but gives back other values (a lossy codec that cannot hold the
// fill value, such as NaN scaled to integers): what the chunks it writes
// hold where they were not written is not the fill value.
var ErrFillChanged = errors.New("a chunk of fill values decodes to other values")

// DefaultProbeBytes bounds the chunk Probe encodes: 16 MiB.
const DefaultProbeBytes = 16 << 20

// Probe encodes one chunk of fill values through the whole chain and
// decodes it back, and fails unless it comes back equal: a chain that
// cannot encode or decode its chunks (a bytes codec given no endian for a
// multi-byte type, a codec that does not take the data type) is found
// before anything is written with it, not at every chunk after the
// metadata stands. The chains nested in the array->bytes codec (Nested)
// are probed the same way. A chunk of more than maxBytes (0 =
// DefaultProbeBytes) is probed at a smaller shape of the same rank, cut
// along its largest dimensions, unless its array->bytes codec nests
// chains (their parts need the whole chunk shape): then only the nested
// chains are probed. The error names the chain, the codec that failed
// and why, or wraps ErrFillChanged.
func (p *Pipeline) Probe(ctx context.Context, maxBytes int64) error {
	if maxBytes <= 0 {
		maxBytes = DefaultProbeBytes
	}
	nested, isNested := p.ab.(Nested)
	probe, whole := p, true
	switch {
	case probeSize(p.chunk) <= maxBytes:
	case isNested:
		whole = false // too large to encode whole: the nested chains only
	default:
		// too large to encode whole: a smaller chunk of the same rank
		spec := p.chunk
		spec.Shape = probeShape(spec, maxBytes)
		var err error
		if probe, err = FromCodecs(ctx, p.Codecs(), spec, p.maxLen); err != nil {
			return fmt.Errorf("codec chain %s: %w", names(p.Codecs()), err)
		}
	}
	if whole {
		if err := probe.roundTrip(ctx); err != nil {
			return fmt.Errorf("codec chain %s cannot store chunks of %s %v: %w",
				names(p.Codecs()), probe.chunk.DataType.Name, probe.chunk.Shape, err)
		}
	}
	if !isNested {
		return nil
	}
	inner, err := nested.NestedPipelines(ctx, p.abIn)
	if err != nil {
		return fmt.Errorf("codec %s: %w", p.ab.Name(), err)
	}
	for _, q := range inner {
		if err := q.Probe(ctx, maxBytes); err != nil {
			return fmt.Errorf("codec %s: %w", p.ab.Name(), err)
		}
	}
	return nil
}

// roundTrip encodes a chunk of fill values and decodes it back.
func (p *Pipeline) roundTrip(ctx context.Context) error {
	want := ndarray.Filled(p.chunk.DataType, p.chunk.Shape, p.chunk.FillValue)
	b, err := p.Encode(ctx, want)
	if err != nil {
		return err
	}
	got, err := p.Decode(ctx, b)
	if err != nil {
		return err
	}
	if !got.IsFilled(p.chunk.FillValue) {
		return ErrFillChanged
	}
	return nil
}

// probeVariableElemBytes is what a variable-length element counts for in a
// probe chunk: a string header (16 bytes on 64-bit) holding an empty
// string, since a probe encodes empty elements.
const probeVariableElemBytes = 16

// probeSize is the in-memory size of a chunk of spec; variable-length
// elements count as probeVariableElemBytes each.
// A size beyond an int64 is math.MaxInt64: more than any bound, so such
// a chunk is probed at a smaller shape, never allocated whole.
func probeSize(s Spec) int64 {
	size := int64(s.DataType.Size)
	if s.DataType.Variable() {
		size = probeVariableElemBytes
	}
	var c checked.Calc
	return c.Mul(c.Product(s.Shape), max(size, 1))
}

// probeShape halves the largest dimension of spec's shape until a chunk
// holds at most maxBytes.
func probeShape(spec Spec, maxBytes int64) []int {
	shape := slices.Clone(spec.Shape)
	for probeSize(Spec{DataType: spec.DataType, Shape: shape}) > maxBytes {
		i := 0
		for j, d := range shape {
			if d > shape[i] {
				i = j
			}
		}
		if shape[i] <= 1 {
			break
		}
		shape[i] = (shape[i] + 1) / 2
	}
	return shape
}
