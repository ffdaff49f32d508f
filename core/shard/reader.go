package shard

import (
	"context"
	"errors"
	"fmt"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/store"
)

// Reader reads inner chunks of shards with as few requests as it can: the
// index (from the cache when its version is confirmed by the bytes read
// next), then the wanted chunks, nearby ones in one request.
//
// Entries are validated against the shard's size when a read tells it
// (whole reads, and index reads on stores without suffix ranges). A
// suffix read of an end index does not: an entry past the end then shows
// up as a short read (corrupt), but one pointing into the index itself
// cannot be told from data without an extra request, and is left to the
// inner codecs (checksums) to catch.
type Reader struct {
	Format     *Format
	Cache      *Cache // nil = no cache
	Coalescing Coalescing
}

// maxAttempts bounds the re-reads when a shard changes while being read.
const maxAttempts = 16

// Request is part of one inner chunk: Range within the chunk's bytes.
type Request struct {
	Chunk int // flat position in the shard
	Range store.ByteRange
}

// Whole reads a whole shard in one request and returns it with its
// validated index and version. The shard lands in buf when src is a
// codec.WholeReader and buf's capacity holds it.
func (r *Reader) Whole(ctx context.Context, src codec.RangeReader, buf []byte) ([]byte, *Index, string, error) {
	var b []byte
	var ver string
	var err error
	if ws, ok := src.(codec.WholeReader); ok {
		b, ver, err = ws.ReadWhole(ctx, buf)
	} else {
		var got [][]byte
		got, ver, err = src.ReadRanges(ctx, []store.ByteRange{{}})
		if err == nil {
			b = got[0]
		}
	}
	if err != nil {
		return nil, nil, "", err
	}
	ix, err := r.Format.Parse(ctx, b)
	if err != nil {
		return nil, nil, "", err
	}
	r.Cache.Put(src.Key(), ver, ix)
	return b, ix, ver, nil
}

// Index reads the shard's index afresh (one request, two for an end index
// on stores without suffix ranges), validates it and caches it.
func (r *Reader) Index(ctx context.Context, src codec.RangeReader) (*Index, string, error) {
	ix, ver, _, err := r.index(ctx, src, false)
	return ix, ver, err
}

// Chunks returns the encoded bytes of the inner chunks at flat positions
// want, nil for those not stored, all from one version of the shard.
func (r *Reader) Chunks(ctx context.Context, src codec.RangeReader, want []int) ([][]byte, error) {
	reqs := make([]Request, len(want))
	for i, w := range want {
		reqs[i] = Request{Chunk: w}
	}
	out, _, err := r.Read(ctx, src, reqs)
	return out, err
}

// Read returns the bytes of each request (nil when its chunk is not
// stored) and the version of the shard they came from.
func (r *Reader) Read(ctx context.Context, src codec.RangeReader, reqs []Request) ([][]byte, string, error) {
	useCache := true
	for range maxAttempts {
		ix, ver, cached, err := r.index(ctx, src, useCache)
		if err != nil {
			return nil, "", err
		}
		out, ok, err := r.readPlanned(ctx, src, ix, ver, cached, reqs)
		if err != nil || ok {
			return out, ver, err
		}
		// The cached index was stale or the shard changed: start over
		// with a freshly read index.
		r.Cache.Forget(src.Key())
		useCache = false
	}
	return nil, "", fmt.Errorf("shard changed on every one of %d attempts to read it: %w", maxAttempts, store.ErrConflict)
}

// readPlanned reads the requests located by ix. ok is false when the
// reads must be retried with a fresh index.
func (r *Reader) readPlanned(ctx context.Context, src codec.RangeReader, ix *Index, ver string, cached bool, reqs []Request) ([][]byte, bool, error) {
	out := make([][]byte, len(reqs))
	spans := make([]Span, 0, len(reqs))
	which := make([]int, 0, len(reqs))
	for i, q := range reqs {
		e := ix.At(q.Chunk)
		if e.Empty() {
			if cached {
				return nil, false, nil // a cached "not stored" cannot be confirmed by a read
			}
			continue
		}
		start, end, err := q.Range.Resolve(int64(e.Length))
		if err != nil {
			return nil, false, err
		}
		if end == start {
			out[i] = []byte{}
			continue
		}
		spans = append(spans, Span{int64(e.Offset) + start, end - start})
		which = append(which, i)
	}
	if len(spans) == 0 {
		return out, true, nil
	}
	data, ok, err := r.fetch(ctx, src, spans, ver, cached)
	if err != nil || !ok {
		return nil, ok, err
	}
	for k, i := range which {
		out[i] = data[k]
	}
	return out, true, nil
}

// fetch reads spans, coalesced, and checks they came from version ver.
func (r *Reader) fetch(ctx context.Context, src codec.RangeReader, spans []Span, ver string, cached bool) ([][]byte, bool, error) {
	merged, pieces := r.Coalescing.Coalesce(spans)
	ranges := make([]store.ByteRange, len(merged))
	for i, m := range merged {
		ranges[i] = store.Range(m.Offset, m.Length)
	}
	got, gotVer, err := src.ReadRanges(ctx, ranges)
	switch {
	case errors.Is(err, store.ErrConflict) || (err != nil && cached && errors.Is(err, store.ErrNotFound)):
		return nil, false, nil
	case err != nil:
		return nil, false, err
	case ver != "" && gotVer != "" && gotVer != ver:
		return nil, false, nil
	}
	for i, m := range merged {
		if int64(len(got[i])) != m.Length {
			if cached {
				return nil, false, nil
			}
			return nil, false, fmt.Errorf("%w: inner chunk bytes %d-%d reach past the end of the shard (%d of %d bytes read)",
				codec.ErrCorrupt, m.Offset, m.Offset+m.Length, len(got[i]), m.Length)
		}
	}
	out := make([][]byte, len(spans))
	for i, p := range pieces {
		b := got[p.Merged]
		out[i] = b[p.Offset : p.Offset+spans[i].Length : p.Offset+spans[i].Length]
	}
	return out, true, nil
}

// index returns the shard's index, its version, and whether it came from
// the cache (unconfirmed).
func (r *Reader) index(ctx context.Context, src codec.RangeReader, useCache bool) (*Index, string, bool, error) {
	key := src.Key()
	if useCache && key != "" {
		if ix, ver, ok := r.Cache.Latest(key); ok {
			return ix, ver, true, nil
		}
	}
	rng, size := r.Format.IndexRange(), int64(-1)
	if r.Format.Location == End && !src.SuffixRanges() {
		var err error
		if size, err = src.Size(ctx); err != nil {
			return nil, "", false, err
		}
		n := min(size, r.Format.Index.Size())
		rng = store.Range(size-n, n)
	}
	got, ver, err := src.ReadRanges(ctx, []store.ByteRange{rng})
	if err != nil {
		return nil, "", false, err
	}
	ix, err := r.Format.DecodeIndex(ctx, got[0], size)
	if err != nil {
		return nil, "", false, err
	}
	r.Cache.Put(key, ver, ix)
	return ix, ver, false, nil
}
