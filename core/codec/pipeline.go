package codec

import (
	"context"
	"fmt"

	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// DefaultMaxChunkBytes bounds any decoded chunk whose size is not known in
// advance (variable-length types): 2 GiB.
const DefaultMaxChunkBytes = 2 << 30

// Pipeline runs a codec chain for chunks of one spec. It holds no
// per-chunk state and is safe for concurrent use.
type Pipeline struct {
	aa     []ArrayArray
	aaIn   []Spec // input spec of each array->array codec
	ab     ArrayBytes
	abIn   Spec
	bb     []BytesBytes
	bbIn   []Spec // spec for each bytes->bytes codec; DecodedSize = its decoded length
	chunk  Spec
	maxLen int64
}

// NewPipeline resolves a codec chain and derives every stage's spec from
// the chunk spec. maxChunkBytes bounds decoded sizes that are not known in
// advance (0 = DefaultMaxChunkBytes).
func NewPipeline(ctx context.Context, exts []meta.Extension, r Resolver, chunk Spec, maxChunkBytes int64) (*Pipeline, error) {
	if maxChunkBytes <= 0 {
		maxChunkBytes = DefaultMaxChunkBytes
	}
	codecs := make([]Codec, len(exts))
	for i, e := range exts {
		c, err := r.Codec(ctx, e.Name, e.Configuration)
		if err != nil {
			return nil, err
		}
		codecs[i] = c
	}
	return FromCodecs(ctx, codecs, chunk, maxChunkBytes)
}

// FromCodecs builds a pipeline from resolved codecs.
func FromCodecs(ctx context.Context, codecs []Codec, chunk Spec, maxChunkBytes int64) (*Pipeline, error) {
	p := &Pipeline{chunk: chunk, maxLen: maxChunkBytes}
	spec := chunk
	spec.DecodedSize, spec.MaxDecodedSize = -1, 0
	i := 0
	for _, c := range codecs {
		if KindOf(c) == 0 {
			return nil, fmt.Errorf("codec %s implements none or several of array->array, array->bytes and bytes->bytes", c.Name())
		}
	}
	for ; i < len(codecs) && KindOf(codecs[i]) == ArrayToArray; i++ {
		aa := codecs[i].(ArrayArray)
		out, err := aa.OutputSpec(ctx, spec)
		if err != nil {
			return nil, fmt.Errorf("codec %s: %w", aa.Name(), err)
		}
		p.aa, p.aaIn = append(p.aa, aa), append(p.aaIn, spec)
		spec = out
	}
	if i == len(codecs) || KindOf(codecs[i]) != ArrayToBytes {
		return nil, fmt.Errorf("codec chain %s: needs exactly one array->bytes codec after the array->array codecs", names(codecs))
	}
	ab := codecs[i].(ArrayBytes)
	p.ab, p.abIn = ab, spec
	size, known := encodedSize(ctx, ab, spec, rawSize(spec))
	for i++; i < len(codecs); i++ {
		bb, ok := codecs[i].(BytesBytes)
		if !ok {
			return nil, fmt.Errorf("codec chain %s: %s must be bytes->bytes at position %d", names(codecs), codecs[i].Name(), i)
		}
		s := spec
		s.DecodedSize, s.MaxDecodedSize = -1, p.bound(size, known)
		if known {
			s.DecodedSize = size
		}
		p.bb, p.bbIn = append(p.bb, bb), append(p.bbIn, s)
		size, known = encodedSize(ctx, bb, s, size)
	}
	return p, nil
}

// A compressor's output on incompressible input exceeds it by a few bytes
// per block plus a header; raw/incompressibleSlackDivisor +
// incompressibleSlackBytes is far above that for every bundled compressor
// and still small next to the chunk, so an honest stage always fits and a
// lying one is stopped early.
const (
	incompressibleSlackDivisor = 8
	incompressibleSlackBytes   = 64 << 10
)

// bound is the most a bytes->bytes decode may produce when its exact size is
// unknown: a compressed stage may exceed its raw input by a little.
func (p *Pipeline) bound(size int64, known bool) int64 {
	if known {
		return size
	}
	if raw := rawSize(p.abIn); raw >= 0 {
		return min(p.maxLen, raw+raw/incompressibleSlackDivisor+incompressibleSlackBytes)
	}
	return p.maxLen
}

func rawSize(s Spec) int64 {
	if s.DataType.Variable() {
		return -1
	}
	return int64(ndarray.NumElements(s.Shape)) * int64(s.DataType.Size)
}

func encodedSize(ctx context.Context, c Codec, in Spec, decoded int64) (int64, bool) {
	sc, ok := c.(SizedCodec)
	if !ok || decoded < 0 {
		return -1, false
	}
	return sc.EncodedSize(ctx, in, decoded)
}

func names(cs []Codec) string {
	s := "["
	for i, c := range cs {
		if i > 0 {
			s += ", "
		}
		s += c.Name()
	}
	return s + "]"
}

// Codecs returns the chain in order.
func (p *Pipeline) Codecs() []Codec {
	out := make([]Codec, 0, len(p.aa)+1+len(p.bb))
	for _, c := range p.aa {
		out = append(out, c)
	}
	out = append(out, p.ab)
	for _, c := range p.bb {
		out = append(out, c)
	}
	return out
}

// ArrayBytes returns the chain's array->bytes codec and whether it is the
// only codec (so it may decode parts of a chunk on its own, as sharding does).
func (p *Pipeline) ArrayBytes() (ArrayBytes, bool) {
	return p.ab, len(p.aa) == 0 && len(p.bb) == 0
}

// MaxChunkBytes bounds decoded sizes not known in advance.
func (p *Pipeline) MaxChunkBytes() int64 { return p.maxLen }

// Spec is the chunk spec the pipeline was built for.
func (p *Pipeline) Spec() Spec { return p.chunk }

// Encode encodes one chunk (an array of the pipeline's chunk spec).
func (p *Pipeline) Encode(ctx context.Context, a *ndarray.Array) ([]byte, error) {
	var err error
	for i, c := range p.aa {
		if a, err = c.EncodeArray(ctx, p.aaIn[i], a); err != nil {
			return nil, fmt.Errorf("encode %s: %w", c.Name(), err)
		}
	}
	b, err := p.ab.Encode(ctx, p.abIn, a)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", p.ab.Name(), err)
	}
	for i, c := range p.bb {
		if b, err = c.EncodeBytes(ctx, p.bbIn[i], b); err != nil {
			return nil, fmt.Errorf("encode %s: %w", c.Name(), err)
		}
	}
	return b, nil
}

// Decode decodes one stored chunk into an array of the chunk spec.
func (p *Pipeline) Decode(ctx context.Context, b []byte) (*ndarray.Array, error) {
	var err error
	for i := len(p.bb) - 1; i >= 0; i-- {
		c, s := p.bb[i], p.bbIn[i]
		if b, err = c.DecodeBytes(ctx, s, b); err != nil {
			return nil, fmt.Errorf("decode %s: %w", c.Name(), err)
		}
		if err := checkSize(c, s, b); err != nil {
			return nil, err
		}
	}
	a, err := p.ab.Decode(ctx, p.abIn, b)
	if err != nil {
		return nil, fmt.Errorf("decode %s: %w", p.ab.Name(), err)
	}
	if err := checkArray(a, p.abIn); err != nil {
		return nil, fmt.Errorf("decode %s: %w", p.ab.Name(), err)
	}
	for i := len(p.aa) - 1; i >= 0; i-- {
		c := p.aa[i]
		if a, err = c.DecodeArray(ctx, p.aaIn[i], a); err != nil {
			return nil, fmt.Errorf("decode %s: %w", c.Name(), err)
		}
		if err := checkArray(a, p.aaIn[i]); err != nil {
			return nil, fmt.Errorf("decode %s: %w", c.Name(), err)
		}
	}
	return a, nil
}

// checkArray makes sure a codec returned what its spec promised, so a
// misbehaving (or out-of-process) codec cannot hand wrong-sized data on.
func checkArray(a *ndarray.Array, s Spec) error {
	if a == nil {
		return fmt.Errorf("%w: codec returned no array", ErrCorrupt)
	}
	if !a.DType.Equal(s.DataType) || len(a.Shape) != len(s.Shape) {
		return fmt.Errorf("%w: got %s%v, want %s%v", ErrCorrupt, a.DType, a.Shape, s.DataType, s.Shape)
	}
	for i := range a.Shape {
		if a.Shape[i] != s.Shape[i] {
			return fmt.Errorf("%w: got shape %v, want %v", ErrCorrupt, a.Shape, s.Shape)
		}
	}
	if err := a.Check(); err != nil {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return nil
}
