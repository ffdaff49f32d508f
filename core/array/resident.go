package array

import (
	"context"
	"errors"
	"fmt"

	"github.com/zarrgw/zarrgw/core/checked"
	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
)

// A sharded chunk's inner chunks longer than a slab along its level are
// cut across slabs too. Each is decoded once: the first slab that reads
// from a run of inner chunks (a shard's inner chunks along the level, for
// the selection's extent of the later dimensions) decodes the run through
// the partial decoder and keeps it resident; the following slabs copy
// their rows from it, and the last gives it up. The parts of one run are
// ordered as a stream's are (see chunkStream); a run that does not fit
// the allowance is left to each part to decode for itself, as an
// unstreamed read does, until one finds room.

// innerEnds reports whether p's span along the level starts at the first
// index the selection holds in its inner chunk and ends at the last.
func (cs *chunkStreams) innerEnds(p grid.Projection) (first, last bool) {
	lo, hi := cs.innerRun(p)
	s := p.InChunk[cs.level]
	return s.Start == lo.Start, s.Start+(s.Count-1)*max(s.Step, 1) == hi
}

// innerRun is the span, chunk-local along the level, of the indexes the
// selection holds in the inner chunk where p's span starts, and the last
// of them.
func (cs *chunkStreams) innerRun(p grid.Projection) (grid.Span, int) {
	d, s := cs.sel[cs.level], p.InChunk[cs.level]
	start, n := cs.a.grid.Axis(cs.level).Start(p.Chunk[cs.level]), cs.a.grid.Axis(cs.level).Len(p.Chunk[cs.level])
	ilo := s.Start / cs.inner * cs.inner
	ihi := min(ilo+cs.inner, n)
	step := max(d.Step, 1)
	// the selection's indexes k0..k1 are those in [start+ilo, start+ihi);
	// its index of p's span start is one of them, so k1 >= k0 >= 0
	k0 := 0
	if from := start + ilo - d.Start; from > 0 {
		k0 = checked.CeilDiv(from, step)
	}
	k1 := min(d.Count-1, (start+ihi-1-d.Start)/step)
	first := d.Start + k0*step - start
	return grid.Span{Start: first, Step: step, Count: k1 - k0 + 1}, first + (k1-k0)*step
}

// readResident reads part p from the resident run of its inner chunks,
// decoding the run first when no part before it did.
func (st *chunkStream) readResident(ctx context.Context, out *ndarray.Array, p grid.Projection, whole chunkRead) error {
	cs := st.cs
	a := cs.a
	run, _ := cs.innerRun(p)
	if st.state == streamNew {
		found, err := st.decodeRun(ctx, p, run)
		if err != nil {
			return fmt.Errorf("array %s: chunk %s: %w", a.Name(), st.key, err)
		}
		if !found {
			st.state = streamMissing
		}
	}
	if st.state != streamOpen {
		return st.readUnopened(ctx, out, p, whole)
	}
	spans := grid.WholeSpans(st.resident.Shape)
	s := p.InChunk[cs.level]
	spans[cs.level] = grid.Span{Start: (s.Start - run.Start) / run.Step, Step: 1, Count: s.Count}
	return ndarray.CopyRegion(out, p.Out, st.resident, spans)
}

// decodeRun decodes the run of inner chunks p's part is in, when the
// allowance has room for it; false when the chunk is not stored.
func (st *chunkStream) decodeRun(ctx context.Context, p grid.Projection, run grid.Span) (bool, error) {
	cs := st.cs
	a := cs.a
	region := append([]grid.Span(nil), p.InChunk...)
	region[cs.level] = run
	counts := make([]int, len(region))
	for d, s := range region {
		counts[d] = s.Count
	}
	n := int64(ndarray.NumElements(counts)) * int64(a.meta.DataType.Size)
	if cs.held.Add(n) > cs.allowance {
		cs.held.Add(-n)
		return true, nil
	}
	pipe, err := a.pipeAt(ctx, p.Chunk)
	if err != nil {
		cs.held.Add(-n)
		return false, err
	}
	buf := takeBuffer(&a.scratch, int(n))
	st.resident = &ndarray.Array{DType: a.meta.DataType, Shape: counts, Data: (*buf)[:n]}
	st.buf, st.memory, st.state = buf, n, streamOpen
	st.track()
	ranges := newChunkRanges(a.data, st.key)
	if pdi, ok := cs.pd.(codec.PartialDecoderInto); ok {
		err = pdi.DecodeRegionInto(ctx, pipe.Spec(), ranges, region, st.resident, grid.WholeSpans(counts))
	} else {
		var part *ndarray.Array
		if part, err = cs.pd.DecodeRegion(ctx, pipe.Spec(), ranges, region); err == nil {
			err = ndarray.CopyRegion(st.resident, grid.WholeSpans(counts), part, grid.WholeSpans(part.Shape))
		}
	}
	if errors.Is(err, store.ErrNotFound) {
		st.close()
		return false, nil
	}
	return true, err
}
