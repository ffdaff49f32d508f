package array

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sync"
	"sync/atomic"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
)

// A chunk longer, along a stream's slab level, than a slab (or spanning
// several indexes of a dimension before the level) is read by several
// slabs, each holding a few of its rows. Read whole by each, it would be
// read and decoded as many times. Instead, when its chain decodes as a
// stream (codec.Pipeline.Streams: raw, or zstd), the chunk is opened once
// as a stream of its decoded bytes, and each slab takes the next rows from
// it: its parts are read in the order of the slabs, and the stream is
// closed once its last part is read.
//
// The parts of one chunk are tasks of successive slabs, queued in that
// order. A part waits for the part before it (done channels), which
// cannot deadlock: workers take tasks from one FIFO queue, so every
// earlier part of the chunk was taken by a worker before the waiting one
// was; it is running or done, and it waits, if at all, only on parts
// earlier still.

// chunkStreams is the streaming state of one streamed read.
type chunkStreams struct {
	a     *Array
	level int
	sel   grid.Selection
	// allowance bounds the memory of the open streams (decoder windows
	// and encoded bytes held); held is what they hold now.
	allowance int64
	held      atomic.Int64
	// pd and inner, for a sharded array: its partial decoder and the
	// extent of its inner chunks along the level (see resident.go).
	pd    codec.PartialDecoder
	inner int

	// byKey holds, for the producer alone, the chunks whose last part is
	// still to be queued.
	byKey map[string]*chunkStream

	mu   sync.Mutex
	open map[*chunkStream]struct{} // opened and not yet closed
}

// chunkStream is one chunk read in parts. Its fields are used by one part
// at a time, in order (the done channels order them).
type chunkStream struct {
	cs     *chunkStreams
	coords []int
	key    string
	last   chan struct{} // producer: done of the last part queued

	state  streamState
	r      codec.DecodedStream
	source io.Closer // the stored value's file, when read from one
	memory int64     // counted in cs.held while open
	// resident is the decoded run of a sharded chunk's inner chunks, in
	// buf (see resident.go).
	resident *ndarray.Array
	buf      *[]byte
	pos      int64 // decoded bytes read so far
	err      error // the first failure, which later parts report too
}

type streamState int

const (
	streamNew     streamState = iota
	streamOpen                // parts read from r
	streamMissing             // not stored: parts are the fill value
	streamClosed
)

// streamPart is one slab's part of a streamed chunk.
type streamPart struct {
	st    *chunkStream
	wait  <-chan struct{} // closed once the part before is done
	done  chan struct{}
	first bool // the chunk's first part: the one that opens it
	final bool // the chunk's last part: the stream closes after it
}

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// newChunkStreams returns the streaming state of a read of sel whose slabs
// take ranges along level, or nil when its chunks are not read that way.
func (a *Array) newChunkStreams(plan slabPlan, allowance int64) *chunkStreams {
	if len(plan.sel) == 0 {
		return nil
	}
	cs := &chunkStreams{a: a, level: plan.level, sel: plan.sel, allowance: allowance,
		byKey: map[string]*chunkStream{}, open: map[*chunkStream]struct{}{}}
	if cs.pd = a.partialDecoder(); cs.pd != nil {
		cs.inner = plan.inner
		if cs.inner <= 0 || !cutsInner(plan) {
			return nil
		}
		return cs
	}
	if !a.pipe.Streams() || !a.cutsChunks(plan) {
		return nil
	}
	return cs
}

// cutsInner reports whether the slabs of plan may cut a sharded chunk's
// inner chunks along the level.
func cutsInner(plan slabPlan) bool {
	d := plan.sel[plan.level]
	perInner := 1
	if d.Step > 0 && d.Step < plan.inner {
		perInner = (plan.inner + d.Step - 1) / d.Step
	}
	return perInner > plan.rows
}

// fit estimates whether the streams a slab of plan keeps open fit the
// allowance: the first slab's chunks, each holding what the first one's
// stream holds (opened to see: its window), or, sharded, their resident
// runs. When they do not, every part would find no room and read its
// chunk whole: the caller keeps slabs as large as the budget allows.
func (cs *chunkStreams) fit(ctx context.Context, plan slabPlan) bool {
	var first grid.Selection
	plan.each(func(sub grid.Selection) bool { first = sub; return false })
	if first == nil {
		return true // no slab at all
	}
	projections := cs.a.grid.Project(first)
	if len(projections) == 0 {
		return true
	}
	var need int64
	if cs.pd != nil {
		for _, p := range projections {
			run, _ := cs.innerRun(p)
			n := int64(run.Count) * cs.a.ElemBytes()
			for _, s := range p.InChunk[cs.level+1:] {
				n *= int64(s.Count)
			}
			need += n
		}
		return need <= cs.allowance
	}
	p := projections[0]
	st := &chunkStream{cs: cs, coords: p.Chunk, key: cs.a.ChunkKey(p.Chunk)}
	allowance := cs.allowance
	cs.allowance = math.MaxInt64 // nothing else is open yet
	err := st.openStream(ctx)
	cs.allowance = allowance
	if err != nil || st.state != streamOpen {
		return true // a missing or bad chunk says nothing of the others
	}
	st.close()
	return st.memory*int64(len(projections)) <= cs.allowance
}

// cutsChunks reports whether the slabs of plan may cut a chunk: a chunk
// holds more than one selected index along a dimension before the level,
// or more than a slab's rows along it.
func (a *Array) cutsChunks(plan slabPlan) bool {
	for d := 0; d <= plan.level; d++ {
		dim, longest := plan.sel[d], a.grid.Axis(d).Longest()
		perChunk := 1
		if dim.Step > 0 && dim.Step < longest {
			perChunk = (longest + dim.Step - 1) / dim.Step
		}
		if d < plan.level && perChunk > 1 && dim.Count > 1 || d == plan.level && perChunk > plan.rows {
			return true
		}
	}
	return false
}

// part returns the streamed part of projection p (of the next slab), or
// nil when the slab holds the chunk's whole part of the selection. Only
// the producer calls it, in slab order.
func (cs *chunkStreams) part(p grid.Projection) *streamPart {
	first, final := true, true
	if cs.pd != nil {
		first, final = cs.innerEnds(p)
	} else {
		for d := 0; d <= cs.level; d++ {
			f, l := cs.ends(d, p.Chunk[d], p.InChunk[d])
			first, final = first && f, final && l
		}
	}
	if first && final {
		return nil
	}
	key := cs.a.ChunkKey(p.Chunk)
	st := cs.byKey[key]
	if st == nil {
		st = &chunkStream{cs: cs, coords: p.Chunk, key: key, last: closedChan}
		cs.byKey[key] = st
	}
	sp := &streamPart{st: st, wait: st.last, done: make(chan struct{}), first: first, final: final}
	st.last = sp.done
	if final {
		delete(cs.byKey, key)
	}
	return sp
}

// ends reports whether span s (chunk-local, in chunk c along d) starts at
// the first index the selection holds in the chunk and ends at its last.
func (cs *chunkStreams) ends(d, c int, s grid.Span) (first, last bool) {
	dim, x := cs.sel[d], cs.a.grid.Axis(d)
	start, n := x.Start(c), x.Len(c)
	lo := start + s.Start
	hi := lo + max(s.Count-1, 0)*max(s.Step, 1)
	selLast, _ := dim.Last()
	step := max(dim.Step, 1)
	return lo == dim.Start || lo-step < start, hi == selLast || hi+step >= start+n
}

// closeAll closes the streams still open once a read ends (after a
// failure or cancel, their last parts never ran).
func (cs *chunkStreams) closeAll() {
	cs.mu.Lock()
	open := cs.open
	cs.open = nil
	cs.mu.Unlock()
	for st := range open {
		st.release()
	}
}

// read reads part sp of the chunk, projection p of a slab, into out;
// whole reads the chunk's part as an unstreamed read does.
func (sp *streamPart) read(ctx context.Context, out *ndarray.Array, p grid.Projection, whole chunkRead) error {
	defer close(sp.done)
	select {
	case <-sp.wait:
	case <-ctx.Done():
		return ctx.Err()
	}
	st := sp.st
	if st.err == nil && st.cs.pd != nil {
		st.err = st.readResident(ctx, out, p, whole)
	} else if st.err == nil {
		st.err = st.readPart(ctx, out, p, whole)
	}
	if sp.final && st.err == nil {
		st.err = st.checkEnd()
	}
	if sp.final || st.err != nil {
		st.close()
	}
	return st.err
}

func (st *chunkStream) readPart(ctx context.Context, out *ndarray.Array, p grid.Projection, whole chunkRead) error {
	a := st.cs.a
	if st.state == streamNew {
		if err := st.openStream(ctx); err != nil {
			return fmt.Errorf("array %s: chunk %s: %w", a.Name(), st.key, err)
		}
	}
	if st.state != streamOpen {
		return st.readUnopened(ctx, out, p, whole)
	}
	view, spans, start, end := st.partView(p)
	if start < st.pos {
		return fmt.Errorf("array %s: chunk %s: internal error: part at byte %d read after byte %d", a.Name(), st.key, start, st.pos)
	}
	if _, err := io.CopyN(io.Discard, st.r, start-st.pos); err != nil {
		return st.readErr(err)
	}
	buf := takeBuffer(&a.scratch, int(end-start))
	defer a.scratch.Put(buf)
	view.Data = (*buf)[:end-start]
	if _, err := io.ReadFull(st.r, view.Data); err != nil {
		return st.readErr(err)
	}
	st.pos = end
	return ndarray.CopyRegion(out, p.Out, view, spans)
}

// readUnopened reads part p of a chunk that is not open: whole when
// there was no room to open it (the next part tries again), or the fill
// value when it is not stored.
func (st *chunkStream) readUnopened(ctx context.Context, out *ndarray.Array, p grid.Projection, whole chunkRead) error {
	a := st.cs.a
	switch st.state {
	case streamNew:
		return whole(ctx, out, p)
	case streamMissing:
		ndarray.FillRegion(out, p.Out, a.fill())
		return nil
	}
	return fmt.Errorf("array %s: chunk %s: internal error: part read after its chunk was closed", a.Name(), st.key)
}

// checkEnd makes sure a stream read to the chunk's end ends there (a
// stream read only in part is not decoded further to find out).
func (st *chunkStream) checkEnd() error {
	if st.state != streamOpen || st.pos != rawBytes(st.cs.a, st.coords) {
		return nil
	}
	var probe [1]byte
	if _, err := io.ReadFull(st.r, probe[:]); err != io.EOF {
		if err == nil {
			err = fmt.Errorf("%w: the stream holds more than the chunk", codec.ErrCorrupt)
		}
		return fmt.Errorf("array %s: chunk %s: %w", st.cs.a.Name(), st.key, err)
	}
	return nil
}

func (st *chunkStream) readErr(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		err = fmt.Errorf("%w: the chunk ends early", codec.ErrCorrupt)
	}
	return fmt.Errorf("array %s: chunk %s: %w", st.cs.a.Name(), st.key, err)
}

// partView is the part of the chunk p reads: its bytes [start, end) in
// the chunk's C order (whole rows along the level, from the first the
// part selects to its last), an array of their shape to read them into
// (Data not set), and p.InChunk within it.
func (st *chunkStream) partView(p grid.Projection) (*ndarray.Array, []grid.Span, int64, int64) {
	a, level := st.cs.a, st.cs.level
	shape := a.grid.ChunkShapeAt(p.Chunk)
	lead := 0 // flat index of the part's indexes before level
	for d := 0; d < level; d++ {
		lead = lead*shape[d] + p.InChunk[d].Start
	}
	s := p.InChunk[level]
	lo, hi := s.Start, s.Start+max(s.Count-1, 0)*max(s.Step, 1)
	row := int64(a.meta.DataType.Size)
	for _, n := range shape[level+1:] {
		row *= int64(n)
	}
	base := int64(lead) * int64(shape[level])
	start, end := (base+int64(lo))*row, (base+int64(hi)+1)*row

	vshape := make([]int, len(shape))
	spans := make([]grid.Span, len(shape))
	for d := range shape {
		switch {
		case d < level:
			vshape[d], spans[d] = 1, grid.Span{Start: 0, Step: 1, Count: 1}
		case d == level:
			vshape[d], spans[d] = hi-lo+1, grid.Span{Start: 0, Step: s.Step, Count: s.Count}
		default:
			vshape[d], spans[d] = shape[d], p.InChunk[d]
		}
	}
	return &ndarray.Array{DType: a.meta.DataType, Shape: vshape}, spans, start, end
}

// openStream opens the stored chunk as a decoded stream, or finds it
// missing, or, when the open streams would hold more than their
// allowance, leaves it unopened: the part is read as a whole chunk, and
// the next part tries again (streams of chunks before it close
// meanwhile; the stream then skips what earlier parts read).
func (st *chunkStream) openStream(ctx context.Context) error {
	a := st.cs.a
	pipe, err := a.pipeAt(ctx, st.coords)
	if err != nil {
		return err
	}
	src, source, held, err := st.openStored(ctx, pipe)
	if errors.Is(err, store.ErrNotFound) {
		st.state = streamMissing
		return nil
	}
	if err != nil {
		return err
	}
	r, err := pipe.DecodeStream(ctx, src)
	if err != nil {
		closeSource(source)
		return err
	}
	st.memory = held + r.Memory()
	if st.cs.held.Add(st.memory) > st.cs.allowance {
		st.cs.held.Add(-st.memory)
		r.Close()
		closeSource(source)
		return nil
	}
	st.r, st.source, st.state = r, source, streamOpen
	st.track()
	return nil
}

// track records an opened stream, for closeAll.
func (st *chunkStream) track() {
	st.cs.mu.Lock()
	if st.cs.open != nil {
		st.cs.open[st] = struct{}{}
	}
	st.cs.mu.Unlock()
}

func closeSource(c io.Closer) {
	if c != nil {
		c.Close()
	}
}

// openStored opens the stored bytes of the chunk: as a file where the
// store's values are files (read as the stream goes: nothing held), else
// through ranged reads for a raw chunk (each part reads its own bytes),
// else whole (held: its length). A raw chunk of the wrong size is
// corrupt.
func (st *chunkStream) openStored(ctx context.Context, pipe *codec.Pipeline) (src io.Reader, source io.Closer, held int64, err error) {
	a := st.cs.a
	_, raw := pipe.Direct()
	want := rawBytes(a, st.coords)
	checkRaw := func(size int64) error {
		if raw && size != want {
			return fmt.Errorf("%w: %d bytes, want %d", codec.ErrCorrupt, size, want)
		}
		return nil
	}
	if store.OptionalOf(a.data).File {
		f, info, err := store.OpenFile(ctx, a.data, st.key, nil)
		if err != nil {
			return nil, nil, 0, err
		}
		if err := checkRaw(info.Size); err != nil {
			closeFile(f)
			return nil, nil, 0, err
		}
		if f == nil { // an empty value
			return bytes.NewReader(nil), nil, 0, nil
		}
		return f, f, 0, nil
	}
	if raw {
		info, err := a.data.Stat(ctx, st.key)
		if err != nil {
			return nil, nil, 0, err
		}
		if err := checkRaw(info.Size); err != nil {
			return nil, nil, 0, err
		}
		return io.NewSectionReader(rangedReader{ctx, a.data, st.key}, 0, info.Size), nil, 0, nil
	}
	v, err := a.data.Get(ctx, st.key, store.ByteRange{})
	if err != nil {
		return nil, nil, 0, err
	}
	return bytes.NewReader(v.Data), nil, int64(len(v.Data)), nil
}

func closeFile(f *os.File) {
	if f != nil {
		f.Close()
	}
}

// rawBytes is the in-memory size of the chunk at coords.
func rawBytes(a *Array, coords []int) int64 {
	return int64(ndarray.NumElements(a.grid.ChunkShapeAt(coords))) * int64(a.meta.DataType.Size)
}

// rangedReader reads a stored value through ranged gets.
type rangedReader struct {
	ctx context.Context
	s   store.Store
	key string
}

func (r rangedReader) ReadAt(b []byte, off int64) (int, error) {
	v, err := r.s.Get(r.ctx, r.key, store.Range(off, int64(len(b))))
	if err != nil {
		return 0, err
	}
	n := copy(b, v.Data)
	if n < len(b) {
		return n, io.ErrUnexpectedEOF
	}
	return n, nil
}

// close ends the stream after its last part, or after a failure.
func (st *chunkStream) close() {
	if st.state != streamOpen {
		st.state = streamClosed
		return
	}
	st.cs.mu.Lock()
	_, open := st.cs.open[st]
	delete(st.cs.open, st)
	st.cs.mu.Unlock()
	if open {
		st.release()
	}
	st.state = streamClosed
}

// release closes the decoder and the source, or drops the resident run,
// and gives back the memory.
func (st *chunkStream) release() {
	if st.r != nil {
		st.r.Close()
	}
	closeSource(st.source)
	if st.buf != nil {
		st.cs.a.scratch.Put(st.buf)
		st.buf, st.resident = nil, nil
	}
	st.cs.held.Add(-st.memory)
}
