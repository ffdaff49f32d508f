package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/config"
)

// Request bodies (the key API's PUT, S3's PutObject, UploadPart and the
// small documents of other S3 requests) are taken in so that a flood of
// uploads cannot take the gateway's memory:
//
//   - a conditional write (If-Match, If-None-Match: *) is checked against
//     the store before the body is read, so a refused one reads nothing;
//   - the first smallBody bytes are read into memory; a body that ends
//     there is stored with one Set, as small values always were;
//   - a longer body goes, where the dataset's store keeps its values as
//     files (the fs store, through wrappers that keep its bytes), into the
//     store's new file as it arrives (store.SetFrom): it costs a copy
//     buffer however large it is, and nothing is in place before its end;
//   - elsewhere (S3, Azure, plugins, transformers: stores that take a value
//     as a slice) it is read into memory, since that is what Set needs;
//   - every byte held in memory for a body is reserved first from one
//     budget, body_memory, shared by all requests: what finds no room
//     within expensive_wait is answered 503 with Retry-After.
//
// Bodies are streamed, not spilled to a temporary file first: a spilled
// body still has to be read back whole for a store that takes slices, so
// spilling would only shorten how long its memory is held, at the price
// of a second copy of every upload on disk and a directory of spills to
// bound and configure (and /tmp is memory on many systems).

// smallBody is the most of a body read before deciding how to store it.
const smallBody = 1 << 20

// bodyWords words the refusals of the budget of request bodies.
type bodyWords struct{ cfg config.Safeguards }

func (w bodyWords) busy(err error) string {
	return fmt.Sprintf("too many request bodies held in memory at once: the server's budget (body_memory = %s) stayed full for %s; try again in %d seconds (%v)",
		SizeText(w.cfg.BodyMemory), w.cfg.ExpensiveWait, retryAfter, err)
}

func (w bodyWords) tooLarge(n int64) error {
	return &RequestError{http.StatusRequestEntityTooLarge, fmt.Sprintf(
		"taking this request's body would hold %s of memory, more than the whole budget of request bodies (body_memory = %s): send less at once",
		SizeText(n), SizeText(w.cfg.BodyMemory))}
}

// newBodyBudget is the budget of memory held for request bodies: bytes
// only, no count, waiting as long as expensive requests do.
func newBodyBudget(s config.Safeguards) *Budget {
	b := NewBudget(config.Safeguards{ExpensiveMemory: s.BodyMemory, ExpensiveWait: s.ExpensiveWait})
	b.words = bodyWords{s}
	return b
}

// grow adds n bytes to r, waiting for them as reserve does. r may hold
// at most the whole budget.
func (r *Reservation) grow(ctx context.Context, n int64) error {
	b := r.b
	if b.memory == nil {
		return nil
	}
	if r.bytes+n > b.cfg.ExpensiveMemory {
		return b.TooExpensive(r.bytes + n)
	}
	wctx, cancel := context.WithTimeout(ctx, b.cfg.ExpensiveWait)
	defer cancel()
	if err := b.acquire(wctx, b.memory, n); err != nil {
		return b.refusal(ctx, err)
	}
	r.bytes += n
	return nil
}

// Upload is a request body on its way to a store: its first bytes, read,
// and the rest, still with the client.
type Upload struct {
	w    http.ResponseWriter
	r    *http.Request
	head []byte
	// rest reads the remainder; nil when head is the whole body.
	rest *bodySource
	// headReader serves head when the body is streamed.
	headReader *bytes.Reader
	// length is the body's declared length, -1 when not declared.
	length int64
	res    *Reservation
}

// bodySource reads a body within max_request_size and keeps the first
// error it met: a store that fails while streaming the body says what it
// was doing, and the gateway answers what went wrong with the body (413,
// 408, a failed checksum) rather than the store's words.
type bodySource struct {
	in    io.Reader
	limit int64
	n     int64
	err   error
}

func (s *bodySource) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.in.Read(p)
	s.n += int64(n)
	if s.n > s.limit {
		n, err = n-int(s.n-s.limit), TooLarge(s.limit)
	}
	if err != nil && err != io.EOF {
		s.err = err
	}
	return n, err
}

// declaredLength is a request body's declared length, -1 for none: for
// S3, what its framing decodes to.
func declaredLength(c *Call) int64 {
	if c.Decoded {
		return BodyLength(c.R)
	}
	return c.R.ContentLength
}

// bodyHead is how much of a body of length (-1: not declared) is read
// before deciding how to store it: smallBody at most, and one byte more
// than expected (a body that fills it goes on).
func bodyHead(length int64) int64 {
	n := int64(smallBody)
	if length >= 0 {
		n = min(n, length)
	}
	return n + 1
}

// estimateBody is the room of a request body's first bytes (CostUpload),
// from its declared length: refused at once when that is over
// max_request_size. A body read on into memory grows its room as it is
// read (reservation.grow), never before its bytes arrive.
func estimateBody(c *Call) (int64, error) {
	g := c.srv
	length := declaredLength(c)
	if limit := g.Cfg.Server.MaxRequestSize; length > limit {
		return 0, TooLarge(limit)
	}
	return bodyHead(length), nil
}

// errNoRoom is a body received by a row whose cost took no room for it:
// a route table's mistake, answered 500 rather than read unbounded.
var errNoRoom = &RequestError{http.StatusInternalServerError, "the gateway took no memory for this request's body (its route's cost class is not upload)"}

// Receive begins reading a request body (body: r.Body, or what a
// signature check decodes of it; length: its declared length, -1 for
// none): refused at once when it says it is over max_request_size, else
// its first bytes (bodyHead) read into the memory the row's cost
// (CostUpload) reserved from body_memory. The upload owns that room from
// then on; the caller releases it when the body is stored.
func (g *Server) Receive(c *Call, body io.Reader, length int64) (*Upload, error) {
	w, r := c.W, c.R
	limit := g.Cfg.Server.MaxRequestSize
	if length > limit {
		return nil, TooLarge(limit)
	}
	res := c.Res
	if res == nil {
		return nil, errNoRoom
	}
	if body == r.Body {
		body = http.MaxBytesReader(w, r.Body, limit)
	}
	n := bodyHead(length) - 1
	u := &Upload{w: w, r: r, length: length, res: res}
	src := &bodySource{in: body, limit: limit}
	buf := make([]byte, n+1)
	got, err := io.ReadFull(src, buf)
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		u.head = buf[:got]
	case err != nil:
		res.Release()
		return nil, bodyFailure(err)
	default:
		u.head, u.rest = buf, src
	}
	return u, nil
}

// Release gives back the memory the body held, having let go of it
// first: a large release collects the garbage (reservation.shrink), and
// must find the body's buffer unreferenced to return it to the system.
func (u *Upload) Release() {
	u.head, u.rest, u.headReader = nil, nil, nil
	u.res.Release()
}

// Data returns the whole body, reading the rest into memory reserved
// from body_memory: into one buffer of the declared length, or, for a
// body that declares none, into blocks copied into one buffer at its
// end (twice its size at the peak, where doubling a buffer as it fills
// would hold three times).
func (u *Upload) Data() ([]byte, error) {
	if u.rest == nil {
		return u.head, nil
	}
	var data []byte
	var err error
	if u.length > int64(len(u.head)) {
		data, err = u.readDeclared()
	} else {
		data, err = u.readBlocks()
	}
	if err != nil {
		return nil, u.failure(err)
	}
	u.head, u.rest = data, nil
	return data, nil
}

// readDeclared reads a body of the declared length into one buffer.
func (u *Upload) readDeclared() ([]byte, error) {
	if err := u.hold(u.length); err != nil {
		return nil, err
	}
	data := make([]byte, u.length)
	n := copy(data, u.head)
	got, err := io.ReadFull(u.rest, data[n:])
	if err == io.ErrUnexpectedEOF {
		return nil, &BodyError{fmt.Errorf("the body ends after %d of the %d bytes it declared", n+got, u.length)}
	}
	if err != nil {
		return nil, err
	}
	u.res.Shrink(u.length) // the first bytes are in data now
	extra, err := u.rest.Read(make([]byte, 1))
	if extra > 0 {
		return nil, &BodyError{fmt.Errorf("the body goes on past the %d bytes it declared", u.length)}
	}
	if err != io.EOF {
		return nil, err
	}
	return data, nil
}

// readBlocks reads a body of unknown length a block at a time, then
// joins the blocks.
func (u *Upload) readBlocks() ([]byte, error) {
	blocks := [][]byte{u.head}
	size := int64(len(u.head))
	for {
		if err := u.hold(smallBody); err != nil {
			return nil, err
		}
		block := make([]byte, smallBody)
		n, err := io.ReadFull(u.rest, block)
		blocks, size = append(blocks, block[:n]), size+int64(n)
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if err := u.hold(size); err != nil {
		return nil, err
	}
	data := make([]byte, 0, size)
	for _, b := range blocks {
		data = append(data, b...)
	}
	u.res.Shrink(size)
	return data, nil
}

// hold adds n bytes to what the body holds, answering 503 with
// Retry-After when the budget has no room for them.
func (u *Upload) hold(n int64) error {
	return answerBusy(u.w, u.res.grow(u.r.Context(), n))
}

// stream is the body as one reader: its first bytes, then the rest
// (which must still be with the client).
func (u *Upload) stream() io.Reader {
	u.headReader = bytes.NewReader(u.head)
	return io.MultiReader(u.headReader, u.rest)
}

// untouched reports whether nothing was read of the stream.
func (u *Upload) untouched() bool {
	return u.rest.n == 0 && u.headReader.Len() == len(u.head)
}

// Size is the number of bytes of the body read so far.
func (u *Upload) Size() int64 {
	if u.rest == nil {
		return int64(len(u.head))
	}
	return int64(len(u.head)) + u.rest.n
}

// failure is what to answer for err, met while the body was read or
// stored: the body's own failure when it had one, else err.
func (u *Upload) failure(err error) error {
	if u.rest != nil && u.rest.err != nil {
		return bodyFailure(u.rest.err)
	}
	return err
}

// bodyFailure is what to answer for a failure to read a body: 413 over
// max_request_size, else the failure as the client's (bodyError).
func bodyFailure(err error) error {
	var mbe *http.MaxBytesError
	var re *RequestError
	switch {
	case errors.As(err, &mbe):
		return TooLarge(mbe.Limit)
	case errors.As(err, &re):
		return err
	}
	return &BodyError{err}
}

// StoreBody stores the body as key's value under cond: streamed into a
// store of files when it is longer than its first bytes, else from
// memory. It returns the new version.
func (g *Server) StoreBody(r *http.Request, ds *Dataset, key string, cond store.Condition, u *Upload) (string, error) {
	if u.rest != nil && ds.Files {
		version, err := store.SetFrom(r.Context(), ds.Store, key, u.stream(), cond)
		if !errors.Is(err, store.ErrUnsupported) || !u.untouched() {
			return g.Stored(r, ds, key, cond, version, u.failure(err))
		}
	}
	data, err := u.Data()
	if err != nil {
		return "", err
	}
	return g.StoreValue(r, ds, key, cond, data)
}

// StoreValue stores data as key's value under cond and returns the new
// version.
func (g *Server) StoreValue(r *http.Request, ds *Dataset, key string, cond store.Condition, data []byte) (string, error) {
	version, err := ds.Store.Set(r.Context(), key, data, cond)
	return g.Stored(r, ds, key, cond, version, err)
}

// Stored is the outcome of a write: a refused condition in the words of
// the header that asked for it; a write that happened is told to the
// dataset's caches.
func (g *Server) Stored(r *http.Request, ds *Dataset, key string, cond store.Condition, version string, err error) (string, error) {
	if errors.Is(err, store.ErrConflict) {
		return "", conflict(r, cond)
	}
	if err != nil {
		return "", err
	}
	ds.Changed(key)
	return version, nil
}

// precheck refuses a conditional write that the store would refuse,
// before its body is read: a failed If-Match or If-None-Match: * costs a
// Stat, not an upload. Only the store's own Stat can say so: the check
// is made below the gateway's metadata cache, and only for datasets
// without transformers, since a transformer may answer from what it
// remembers (the cache) and lag behind a write of another replica. The
// store still decides, atomically, when the write comes; where no early
// check is made, the body is read within the budget first.
func precheck(r *http.Request, ds *Dataset, key string, cond store.Condition) error {
	if cond == (store.Condition{}) || len(ds.Cfg.Transformers) > 0 {
		return nil
	}
	info, err := ds.meta.Next.Stat(r.Context(), key)
	exists := err == nil
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if cond.IfNoneMatch && exists || cond.IfMatch != "" && (!exists || unquote(info.Version) != unquote(cond.IfMatch)) {
		return conflict(r, cond)
	}
	return nil
}

// BodyLength is the length a request declares for its body's payload:
// Content-Length, or for aws-chunked framing the decoded length; -1 when
// it declares none.
func BodyLength(r *http.Request) int64 {
	if s := r.Header.Get("X-Amz-Decoded-Content-Length"); s != "" {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil && n >= 0 {
			return n
		}
	}
	if strings.Contains(strings.ToLower(r.Header.Get("Content-Encoding")), "aws-chunked") {
		return -1 // Content-Length counts the framing
	}
	return r.ContentLength
}
