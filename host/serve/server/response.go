package server

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/zarrgw/zarrgw/host/internal/telemetry"
	"github.com/zarrgw/zarrgw/host/serve/identity"
	"github.com/zarrgw/zarrgw/host/serve/server/accesslog"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"golang.org/x/time/rate"
)

// continueEmptyBody answers 100 Continue to an empty body announced with
// Expect: 100-continue, before anything else. net/http sends it on the
// first read of a body, so never for an empty one; boto3 (1.26) then
// takes the final response for the 100, its connection falls out of step,
// and its next request on it waits out the read timeout (a minute).
// Both APIs call it first.
func continueEmptyBody(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength == 0 && strings.EqualFold(r.Header.Get("Expect"), "100-continue") {
		w.WriteHeader(http.StatusContinue)
	}
}

// response records what was answered, for the access log and metrics.
type response struct {
	http.ResponseWriter
	status  int
	written int64
	wrote   bool
	// throttle are the caller's byte-rate buckets (none without a byte
	// rate); writes wait for them under ctx, the request's.
	throttle []*rate.Limiter
	ctx      context.Context
	// aborted is why the response was cut after its status was sent
	// (Gateway.abort); nil when it was not.
	aborted error
	// body is the request's body, nil without one.
	body *requestBody
}

// responseOf finds the response below w's wrappers, nil when there is
// none (a test's recorder).
func responseOf(w http.ResponseWriter) *response {
	for {
		switch v := w.(type) {
		case *response:
			return v
		case interface{ Unwrap() http.ResponseWriter }:
			w = v.Unwrap()
		default:
			return nil
		}
	}
}

// WriteHeader records the status. An answer to a request whose client
// still waits for 100 Continue (a write refused before its body was
// read) closes the connection, as net/http does for the bodies it
// wraps itself: the client then never sends the body, where net/http
// would otherwise wait for it to discard it, until the client's wait
// for 100 Continue runs out.
func (r *response) WriteHeader(status int) {
	if !r.wrote {
		r.status, r.wrote = status, true
		if status >= http.StatusOK && r.body.awaited() {
			r.Header().Set("Connection", "close")
		}
	}
	r.ResponseWriter.WriteHeader(status)
}

func (r *response) Write(b []byte) (int, error) {
	r.wrote = true
	if len(r.throttle) > 0 {
		return r.paced(b)
	}
	n, err := r.ResponseWriter.Write(b)
	r.written += int64(n)
	return n, err
}

// paced writes b at the caller's byte rates: each step waits for its
// bytes before they are sent.
func (r *response) paced(b []byte) (int, error) {
	done := 0
	for done < len(b) {
		step := identity.Step(r.throttle, len(b)-done)
		if err := identity.Throttle(r.ctx, r.throttle, step); err != nil {
			return done, err
		}
		n, err := r.ResponseWriter.Write(b[done : done+step])
		done += n
		r.written += int64(n)
		if err != nil {
			return done, err
		}
	}
	return done, nil
}

// Unwrap lets http.ResponseController reach the connection (flushes,
// deadlines).
func (r *response) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// Done ends a request: the deferred call of both APIs' handlers, which
// writes the access log record (finish). A handler that panicked (a bug;
// not the deliberate abort of a response, http.ErrAbortHandler) is
// answered 500 when nothing was sent yet, or has its response cut when
// something was; either way the access log and metrics say 500 with the
// panic, and the log has its stack. Without this, the record said 200
// for a response the client never got.
func (g *Server) Done(rw *response, r *http.Request, info *RequestInfo, start time.Time) {
	p := recover()
	if p == nil || p == http.ErrAbortHandler {
		g.finish(rw, r, info, time.Since(start))
		if p != nil {
			panic(p)
		}
		return
	}
	g.Log.Error("handler panic", "path", r.URL.Path, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
	info.Err = fmt.Errorf("internal error: %v", p)
	sent := rw.wrote
	if !sent {
		WriteText(rw, http.StatusInternalServerError, "Internal Server Error: internal error")
	}
	rw.status = http.StatusInternalServerError
	g.finish(rw, r, info, time.Since(start))
	if sent {
		panic(http.ErrAbortHandler)
	}
}

// finish writes the access log record and counts the request. The
// principal is logged by name; tokens never are.
func (g *Server) finish(rw *response, r *http.Request, info *RequestInfo, took time.Duration) {
	in := info.bytesIn()
	label := g.metricLabel(info.Dataset)
	g.Metrics.Request(label, info.op, r.Method, rw.status, in, rw.written, took)
	e := accesslog.Entry{Op: info.op, Method: r.Method, Path: r.URL.Path, Status: rw.status, Out: rw.written, In: in,
		Took: took, Remote: r.RemoteAddr, Dataset: info.Dataset, Key: info.Key, Caller: info.Caller, Level: slog.LevelInfo}
	if rw.aborted != nil {
		// logged with the status sent, flagged as cut short, and counted
		// as a failure
		e.Aborted = true
		if info.Err == nil {
			info.Err = rw.aborted
		}
		g.Metrics.Aborted(label, info.op)
	}
	if info.Err != nil {
		e.Err = g.Cfg.Redact(info.Err.Error())
		if rw.status >= 500 || e.Aborted {
			e.Level = slog.LevelWarn
		}
	}
	g.logAccess(r.Context(), &e)
	if info.span != nil {
		if e.Aborted {
			info.span.SetStatus(codes.Error, "response aborted: "+e.Err)
		}
		endSpan(info, rw.status)
	}
}

// endSpan names a request's span after its operation and ends it.
func endSpan(info *RequestInfo, status int) {
	if info.op != "" {
		info.span.SetName(info.op)
	}
	attrs := []attribute.KeyValue{}
	if info.Dataset != "" {
		attrs = append(attrs, attribute.String("zarrgw.dataset", info.Dataset), attribute.String("zarrgw.key", info.Key))
	}
	if c := info.Caller; !c.Anonymous() {
		attrs = append(attrs, attribute.String("zarrgw.principal", c.Name()), attribute.String("zarrgw.auth", string(c.Method)))
	}
	info.span.SetAttributes(attrs...)
	telemetry.EndRequest(info.span, status)
}

// metricLabel is the dataset label of a request's metrics: its dataset's
// name when there is such a dataset, else "". A name the client made up
// would add a series per request (and one that is not UTF-8 would make
// the metrics library panic).
func (g *Server) metricLabel(name string) string {
	if _, ok := g.Dataset(name); !ok {
		return ""
	}
	return name
}

// WriteJSON answers with v as JSON.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

// WantsHTML reports a browser asking for a page.
func WantsHTML(r *http.Request) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) && r.URL.RawQuery == "" &&
		strings.Contains(r.Header.Get("Accept"), "text/html")
}

// logAccess writes e where Options.AccessLog says, in the JSON form of
// slog's JSON handler, or else as a record of the gateway's Logger. The
// gateway's own encoder exists for speed: slog's handler copies the
// attributes into a record and formats a float through encoding/json,
// together a tenth of a small GET's time.
func (g *Server) logAccess(ctx context.Context, e *accesslog.Entry) {
	h := g.Log.Handler()
	if !h.Enabled(ctx, e.Level) {
		return
	}
	now := time.Now()
	if g.accessLog == nil {
		rec := slog.NewRecord(now, e.Level, "request", 0) // no source: no stack walk
		rec.AddAttrs(e.Attrs()...)
		h.Handle(ctx, rec)
		return
	}
	bp := lineBuffers.Get().(*[]byte)
	line := e.AppendJSON((*bp)[:0], now)
	g.accessLog.Write(line)
	*bp = line
	lineBuffers.Put(bp)
}

// lineBuffers hold the access log's lines while they are written.
var lineBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}
