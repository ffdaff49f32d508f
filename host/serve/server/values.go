package server

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/serve/server/ranges"
	"github.com/zarrgw/zarrgw/host/serve/server/storecache"
)

// piece is the most of a value read from the store at once: larger values
// are sent piece by piece, so a many-GiB shard costs a bounded amount of
// memory.
const piece = 4 << 20

// ServeValue answers GET and HEAD of a stored value, on either face (the
// key API's key:Get, S3's GetObject): the value, or the single byte range
// asked for, with its ETag (and Last-Modified where the store knows
// it); 304 and 412 for conditional requests.
func (g *Server) ServeValue(w http.ResponseWriter, r *http.Request, ds *Dataset, key string) error {
	rs, ranged := ranges.ParseRange(r.Header.Get("Range"))
	conditional := r.Header.Get("If-Match") != "" || r.Header.Get("If-None-Match") != "" ||
		r.Header.Get("If-Modified-Since") != "" || r.Header.Get("If-Unmodified-Since") != ""
	if done, err := g.serveFile(w, r, ds, key, rs, ranged); done || err != nil {
		return err
	}
	if !ranged && !conditional && r.Method == http.MethodGet {
		done, err := g.getSmall(w, r, ds, key)
		if done || err != nil {
			return err
		}
	}
	for attempt := 1; ; attempt++ {
		err := g.serveFromStat(w, r, ds, key, rs, ranged)
		if !errors.Is(err, ErrChanged) || attempt == readAttempts {
			return err
		}
	}
}

// readAttempts is how many times a value is read before the gateway
// gives up on it: a value rewritten between its Stat and its read is read
// again, since a writer rarely rewrites a key twice in that time, but one
// rewritten on every try is answered 503 rather than chased for ever.
const readAttempts = 3

// ErrChanged means the value changed between its Stat and its read.
var ErrChanged = &RequestError{http.StatusServiceUnavailable, "the value changed while it was read; try again"}

// getSmall answers a plain GET with one store read when the value is
// smaller than a piece, reporting false (nothing written) when it is not.
func (g *Server) getSmall(w http.ResponseWriter, r *http.Request, ds *Dataset, key string) (bool, error) {
	v, err := ds.Read(r.Context(), key, store.Range(0, piece))
	if err != nil || len(v.Data) >= piece {
		return false, err
	}
	tag := ds.ETag(v.Version)
	if tag == "" {
		tag = contentETag(v.Data)
	}
	valueHeaders(w, key, tag, int64(len(v.Data)))
	lastModified(w, v.ModTime)
	w.WriteHeader(http.StatusOK)
	w.Write(v.Data)
	return true, nil
}

// serveFromStat answers from the value's size and version: conditions, then
// the range, then the bytes piece by piece. A version that moves on under
// it returns errChanged before anything is written, and aborts the
// response after.
func (g *Server) serveFromStat(w http.ResponseWriter, r *http.Request, ds *Dataset, key string, rs ranges.Spec, ranged bool) error {
	ctx := r.Context()
	info, err := ds.Stat(ctx, key)
	if err != nil {
		return err
	}
	start, end, status, done, err := valueResponse(w, r, ds, key, info, rs, ranged)
	if done || err != nil || r.Method == http.MethodHead {
		return err
	}
	return g.sendPieces(w, r, ds, key, info.Version, start, end, status)
}

// valueResponse decides the answer to a read of a value described by
// info: the conditional headers (412, or a 304 it writes, reporting
// done), then the range, then the headers; it returns the part to send
// and the status, not yet written (for HEAD, written).
func valueResponse(w http.ResponseWriter, r *http.Request, ds *Dataset, key string, info store.Info, rs ranges.Spec, ranged bool) (start, end int64, status int, done bool, err error) {
	tag := ds.ETag(info.Version)
	if done, err := preconditions(w, r, tag, info.ModTime); done || err != nil {
		return 0, 0, 0, done, err
	}
	ranged = ranged && rangeStillValid(r.Header.Get("If-Range"), tag, info.ModTime)
	start, end, status = 0, info.Size, http.StatusOK
	if ranged {
		var ok bool
		if start, end, ok = rs.Resolve(info.Size); !ok {
			w.Header().Set("Content-Range", fmt.Sprintf("bytes */%d", info.Size))
			return 0, 0, 0, false, &RequestError{http.StatusRequestedRangeNotSatisfiable, fmt.Sprintf("range not satisfiable: the value holds %d bytes", info.Size)}
		}
		if end > start || info.Size > 0 {
			status = http.StatusPartialContent
			w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, end-1, info.Size))
		}
	}
	valueHeaders(w, key, tag, end-start)
	lastModified(w, info.ModTime)
	if r.Method == http.MethodHead {
		w.WriteHeader(status)
	}
	return start, end, status, false, nil
}

// rangeStillValid reports whether a Range applies under If-Range (RFC
// 9110 13.1.5): always without one; with an entity tag, only if it is the
// value's, compared strongly; with a date, only if it is exactly the
// value's modification time. Otherwise the whole value is sent (200), so
// that a client resuming a download never splices two versions.
func rangeStillValid(ifRange, tag string, mod time.Time) bool {
	if ifRange == "" {
		return true
	}
	if strings.HasPrefix(ifRange, `"`) || strings.HasPrefix(ifRange, "W/") {
		return tag != "" && !strings.HasPrefix(tag, "W/") && ifRange == tag
	}
	t, err := http.ParseTime(ifRange)
	return err == nil && !mod.IsZero() && mod.Truncate(time.Second).Equal(t)
}

// EvalConditions evaluates the conditional headers get reads by name
// (If-Match, If-Unmodified-Since, If-None-Match, If-Modified-Since)
// against a value's tag and modification time, in RFC 9110's order. It
// names the header that failed (a 412), or the one that found the value
// not modified; a date condition counts only with a known time and a
// valid date. The key API reads them plainly, S3's copies with the
// x-amz-copy-source- prefix.
func EvalConditions(get func(name string) string, tag string, mod time.Time) (failed, notModified string) {
	since := func(name string) (time.Time, bool) {
		h := get(name)
		if h == "" || mod.IsZero() {
			return time.Time{}, false
		}
		t, err := http.ParseTime(h)
		return t, err == nil
	}
	modified := func(t time.Time) bool { return mod.Truncate(time.Second).After(t) }
	if h := get("If-Match"); h != "" {
		if !matchStrong(h, tag) {
			return "If-Match", ""
		}
	} else if t, ok := since("If-Unmodified-Since"); ok && modified(t) {
		return "If-Unmodified-Since", ""
	}
	if h := get("If-None-Match"); h != "" {
		if MatchWeak(h, tag) {
			return "", "If-None-Match"
		}
	} else if t, ok := since("If-Modified-Since"); ok && !modified(t) {
		return "", "If-Modified-Since"
	}
	return "", ""
}

// preconditions answers the conditional headers of a read: a failed
// If-Match or If-Unmodified-Since is 412; a value not modified is 304,
// which it writes, reporting that the request is done.
func preconditions(w http.ResponseWriter, r *http.Request, tag string, mod time.Time) (bool, error) {
	failed, notModified := EvalConditions(r.Header.Get, tag, mod)
	switch {
	case failed == "If-Match":
		return false, &RequestError{http.StatusPreconditionFailed, "If-Match: the value's ETag is " + orNone(tag)}
	case failed != "":
		return false, &RequestError{http.StatusPreconditionFailed, failed + ": the value was modified after " + r.Header.Get(failed)}
	case notModified != "":
		if tag != "" {
			w.Header().Set("ETag", tag)
		}
		w.WriteHeader(http.StatusNotModified)
		return true, nil
	}
	return false, nil
}

// sendPieces reads [start, end) piece by piece and writes it; the first
// piece is read before the status is sent, so that its failure is still
// an error status.
func (g *Server) sendPieces(w http.ResponseWriter, r *http.Request, ds *Dataset, key, version string, start, end int64, status int) error {
	for off := start; off < end || off == start; off += piece {
		n := min(piece, end-off)
		var data []byte
		if n > 0 {
			v, err := ds.Read(r.Context(), key, store.Range(off, n))
			if err == nil && (int64(len(v.Data)) != n || version != "" && v.Version != version) {
				err = ErrChanged
			}
			if err != nil {
				if off == start {
					return err
				}
				g.Abort(w, fmt.Errorf("%s at byte %d: %w", key, off, err))
			}
			data = v.Data
		}
		if off == start {
			w.WriteHeader(status)
		}
		if _, err := w.Write(data); err != nil {
			return nil // the client went away
		}
		if n <= 0 {
			break
		}
	}
	return nil
}

// Abort ends a response whose status is already sent, because of err:
// what was written goes out, then the response is cut (HTTP/1.1: the
// connection closes before the last chunk, or before the bytes its
// Content-Length promised; HTTP/2: RST_STREAM), so that every client sees
// a failed transfer and never a short success. The access log and the
// metrics record the failure (see finish).
func (g *Server) Abort(w http.ResponseWriter, err error) {
	if rw := responseOf(w); rw != nil {
		rw.aborted = err
	}
	http.NewResponseController(w).Flush()
	panic(http.ErrAbortHandler)
}

// lastModified sets Last-Modified where the store knows the time.
func lastModified(w http.ResponseWriter, t time.Time) {
	if !t.IsZero() {
		w.Header().Set("Last-Modified", t.UTC().Format(http.TimeFormat))
	}
}

// Header values every value response sends, shared: net/http only reads
// them, and a later Set or Add replaces or copies them (len == cap).
var (
	jsonType   = []string{"application/json"}
	bytesType  = []string{"application/octet-stream"}
	rangeBytes = []string{"bytes"}
)

// valueHeaders sets the headers of a stored value: in canonical form
// straight into the map, and the two that vary in one allocation.
func valueHeaders(w http.ResponseWriter, key, tag string, length int64) {
	h := w.Header()
	if storecache.IsMetaKey(key) {
		h["Content-Type"] = jsonType
	} else {
		h["Content-Type"] = bytesType
	}
	h["Accept-Ranges"] = rangeBytes
	vary := make([]string, 2)
	vary[0] = strconv.FormatInt(length, 10)
	h["Content-Length"] = vary[0:1:1]
	if tag != "" {
		vary[1] = tag
		h["Etag"] = vary[1:2:2]
	}
}

// BodyError is a failure reading a request's body: the client's doing,
// or a signature or checksum the body fails.
type BodyError struct{ Err error }

func (e *BodyError) Error() string { return "reading the request body: " + e.Err.Error() }
func (e *BodyError) Unwrap() error { return e.Err }

// TooLarge is the refusal of a body over max_request_size (limit).
func TooLarge(limit int64) error {
	return &RequestError{http.StatusRequestEntityTooLarge, fmt.Sprintf("request body larger than max_request_size (%d bytes)", limit)}
}

// Condition maps If-None-Match: * and If-Match onto a store condition,
// and refuses (412) one that the store would refuse, before the body is
// read. A condition on a store without conditional writes is refused
// (501) rather than ignored.
func (g *Server) Condition(r *http.Request, ds *Dataset, key string) (store.Condition, error) {
	cond, err := g.conditionOf(r, ds, key)
	if err == nil {
		err = precheck(r, ds, key, cond)
	}
	return cond, err
}

// conditionOf maps If-None-Match: * and If-Match onto a store condition.
func (g *Server) conditionOf(r *http.Request, ds *Dataset, key string) (store.Condition, error) {
	im, inm := r.Header.Get("If-Match"), r.Header.Get("If-None-Match")
	if im == "" && inm == "" {
		return store.Condition{}, nil
	}
	if !ds.Store.Capabilities().ConditionalWrite {
		return store.Condition{}, &RequestError{http.StatusNotImplemented, "dataset " + ds.Name + ": its store has no conditional writes"}
	}
	if inm != "" {
		if strings.TrimSpace(inm) != "*" {
			return store.Condition{}, BadRequest("If-None-Match on a write takes only *")
		}
		return store.Condition{IfNoneMatch: true}, nil
	}
	if v, ok := ds.versionOf(im); ok {
		// The store decides, against what it holds: a Stat through the
		// stack may answer from a cache, and refuse a write the store
		// would take (another replica wrote the version named).
		return store.Condition{IfMatch: v}, nil
	}
	info, err := ds.Store.Stat(r.Context(), key)
	if errors.Is(err, store.ErrNotFound) {
		return store.Condition{}, &RequestError{http.StatusPreconditionFailed, "If-Match: the key does not exist"}
	}
	if err != nil {
		return store.Condition{}, err
	}
	if !matchStrong(im, ds.ETag(info.Version)) {
		return store.Condition{}, &RequestError{http.StatusPreconditionFailed, "If-Match: the value's ETag is " + orNone(ds.ETag(info.Version))}
	}
	return store.Condition{IfMatch: info.Version}, nil
}

// EraseValue erases a stored value, on either face (key:Delete, S3's
// DeleteObject); erasing a missing key succeeds, as in S3.
func (g *Server) EraseValue(w http.ResponseWriter, r *http.Request, ds *Dataset, key string) error {
	if r.Header.Get("If-Match") != "" {
		return &RequestError{http.StatusNotImplemented, "conditional deletes are not supported"}
	}
	if err := ds.Store.Erase(r.Context(), key); err != nil {
		return err
	}
	ds.Changed(key)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// etag quotes a store version as an entity tag ("" for none).
func etag(version string) string {
	v := strings.Trim(version, `"`)
	if v == "" {
		return ""
	}
	return `"` + v + `"`
}

// ETag is the entity tag of one of the dataset's versions. A version of
// 32 hex digits from a store whose versions are not the MD5 of the bytes
// is marked, so that no client takes it for one: S3 clients check such
// ETags against the MD5 of what they read and report corruption.
func (ds *Dataset) ETag(version string) string {
	v := strings.Trim(version, `"`)
	if !ds.md5Versions && store.IsMD5Hex(v) {
		return `"v` + v + `"`
	}
	return etag(v)
}

// conflict is the 412 of a conditional write the store refused, in the
// words of the header that asked for it.
func conflict(r *http.Request, cond store.Condition) error {
	msg := "If-None-Match: * but the key exists"
	if cond.IfMatch != "" {
		msg = "If-Match: the value's ETag is not " + r.Header.Get("If-Match")
	}
	return &RequestError{http.StatusPreconditionFailed, msg}
}

// versionOf is the store version an If-Match header names, when it names
// exactly one strong entity tag (quoted or bare, as matchStrong takes
// them): the inverse of etag. "*", lists and weak tags are not one.
func (ds *Dataset) versionOf(header string) (string, bool) {
	t := strings.TrimSpace(header)
	if t == "" || t == "*" || strings.Contains(t, ",") || strings.HasPrefix(t, "W/") {
		return "", false
	}
	v := unquote(t)
	if m, ok := strings.CutPrefix(v, "v"); ok && !ds.md5Versions && store.IsMD5Hex(m) {
		v = m // the mark etag puts on a version that only looks like an MD5
	}
	return v, v != ""
}

// contentETag tags a value of a store without versions by its content.
func contentETag(data []byte) string {
	sum := sha256.Sum256(data)
	return `"sha256-` + hex.EncodeToString(sum[:16]) + `"`
}

// matchStrong compares an If-Match list with the current tag (RFC 9110
// strong comparison: weak tags never match). A tag given without its
// quotes matches, as S3 lets it (clients paste ETags bare).
func matchStrong(header, tag string) bool {
	if tag == "" {
		return false
	}
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || !strings.HasPrefix(t, "W/") && unquote(t) == unquote(tag) {
			return true
		}
	}
	return false
}

// MatchWeak compares an If-None-Match list with the current tag (weak
// comparison: W/ prefixes are ignored; quotes may be left out).
func MatchWeak(header, tag string) bool {
	if tag == "" {
		return false
	}
	tag = unquote(strings.TrimPrefix(tag, "W/"))
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || unquote(t) == tag {
			return true
		}
	}
	return false
}

func unquote(tag string) string { return strings.TrimSuffix(strings.TrimPrefix(tag, `"`), `"`) }

func orNone(tag string) string {
	if tag == "" {
		return "(none)"
	}
	return tag
}
