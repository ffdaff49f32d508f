package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/zarrgw/zarrgw/host/internal/telemetry"

	"github.com/zarrgw/zarrgw/host/runtime/config"
)

// ErrSlowBody is a request body that stopped coming, or came slower than
// the server allows: answered 408 (S3's RequestTimeout).
var ErrSlowBody = errors.New("the request body arrived too slowly")

// requestBody counts the bytes of a request body as they are read (the
// metrics and the access log report what arrived, not what a refused
// request's Content-Length declared) and keeps a slow upload from holding
// its connection and its handler forever: each read must bring a byte
// within body_read_timeout, and the body as a whole must keep to
// min_upload_rate once the first body_read_timeout has passed.
type requestBody struct {
	io.ReadCloser
	n     int64
	rc    *http.ResponseController
	start time.Time
	idle  time.Duration // body_read_timeout (0: none)
	rate  int64         // min_upload_rate in bytes per second (0: none)
	// expect: the client waits for 100 Continue before it sends the
	// body, which net/http sends at the body's first read (read).
	expect, read bool
}

// awaited reports whether the client still waits for leave to send the
// body: it asked for 100 Continue, and the body was never read.
func (b *requestBody) awaited() bool { return b != nil && b.expect && !b.read }

func (b *requestBody) Read(p []byte) (int, error) {
	b.read = true
	paced := b.pace()
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	switch {
	case err != nil && paced && errors.Is(err, os.ErrDeadlineExceeded):
		return n, fmt.Errorf("%w: %d bytes in %s (body_read_timeout %s, min_upload_rate %d bytes/s)",
			ErrSlowBody, b.n, time.Since(b.start).Round(time.Millisecond), b.idle, b.rate)
	case err == io.EOF && paced:
		b.rc.SetReadDeadline(time.Time{}) // the server sets the next request's
	}
	return n, err
}

// pace sets the connection's read deadline for the next read and reports
// whether it could.
func (b *requestBody) pace() bool {
	if b.rc == nil || b.idle <= 0 && b.rate <= 0 {
		return false
	}
	var deadline time.Time
	if b.idle > 0 {
		deadline = time.Now().Add(b.idle)
	}
	if b.rate > 0 {
		grace := b.idle
		if grace <= 0 {
			grace = 10 * time.Second
		}
		due := b.start.Add(grace + time.Duration(float64(b.n)/float64(b.rate)*float64(time.Second)))
		if deadline.IsZero() || due.Before(deadline) {
			deadline = due
		}
	}
	return b.rc.SetReadDeadline(deadline) == nil
}

// Begin starts a request on either API: the 100 Continue an empty body
// needs, the recording response, the counted and paced body, the log
// record, and when traces are on the request's span, whose context the
// returned request carries.
func Begin(w http.ResponseWriter, r *http.Request, s config.Server) (*response, *Call) {
	continueEmptyBody(w, r)
	// one allocation for all three: every request has them
	both := &struct {
		rw   response
		info RequestInfo
		c    Call
	}{rw: response{ResponseWriter: w, status: http.StatusOK}}
	info := &both.info
	if telemetry.Enabled() {
		var ctx context.Context
		ctx, info.span = telemetry.StartRequest(r)
		r = r.WithContext(ctx)
	}
	if r.Body != nil && r.Body != http.NoBody {
		info.body = &requestBody{ReadCloser: r.Body, rc: http.NewResponseController(w), start: time.Now(),
			idle: s.BodyReadTimeout, rate: s.MinUploadRate, expect: strings.EqualFold(r.Header.Get("Expect"), "100-continue")}
		r.Body = info.body
		both.rw.body = info.body
	}
	both.c = Call{W: &both.rw, R: r, Info: info}
	return &both.rw, &both.c
}

// bytesIn is how many body bytes the request's handler read.
func (info *RequestInfo) bytesIn() int64 {
	if info.body == nil {
		return 0
	}
	return info.body.n
}
