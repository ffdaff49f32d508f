package server

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/zarrgw/zarrgw/host/serve/identity"
)

// accessEntry is what the access log says of one request.
type accessEntry struct {
	op, method, path string
	status           int
	out, in          int64
	took             time.Duration
	remote           string
	dataset, key     string
	caller           identity.Caller
	err              string
	// aborted: the response was cut after its status was sent (err says
	// why); the client saw a failed transfer.
	aborted bool
	level   slog.Level
}

// logAccess writes e where Options.AccessLog says, in the JSON form of
// slog's JSON handler, or else as a record of the gateway's Logger. The
// gateway's own encoder exists for speed: slog's handler copies the
// attributes into a record and formats a float through encoding/json,
// together a tenth of a small GET's time.
func (g *Server) logAccess(ctx context.Context, e *accessEntry) {
	h := g.Log.Handler()
	if !h.Enabled(ctx, e.level) {
		return
	}
	now := time.Now()
	if g.AccessLog == nil {
		rec := slog.NewRecord(now, e.level, "request", 0) // no source: no stack walk
		rec.AddAttrs(e.attrs()...)
		h.Handle(ctx, rec)
		return
	}
	bp := lineBuffers.Get().(*[]byte)
	line := e.appendJSON((*bp)[:0], now)
	g.AccessLog.Write(line)
	*bp = line
	lineBuffers.Put(bp)
}

var lineBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// attrs are e's fields as log attributes, in the order appendJSON writes
// them.
func (e *accessEntry) attrs() []slog.Attr {
	attrs := []slog.Attr{
		slog.String("operation", e.op),
		slog.String("method", e.method),
		slog.String("path", e.path),
		slog.Int("status", e.status),
		slog.Int64("bytes_out", e.out),
		slog.Float64("duration_ms", e.millis()),
		slog.String("remote", e.remote),
	}
	if e.in > 0 {
		attrs = append(attrs, slog.Int64("bytes_in", e.in))
	}
	if e.dataset != "" {
		attrs = append(attrs, slog.String("dataset", e.dataset), slog.String("key", e.key))
	}
	if c := e.caller; !c.Anonymous() {
		attrs = append(attrs, slog.String("principal", c.Name()), slog.String("auth", string(c.Method)))
		if c.Subject != "" {
			attrs = append(attrs, slog.String("subject", c.Subject), slog.String("identity_provider", c.Provider))
		}
	}
	if e.err != "" {
		attrs = append(attrs, slog.String("error", e.err))
	}
	if e.aborted {
		attrs = append(attrs, slog.Bool("aborted", true))
	}
	return attrs
}

// millis is the request's duration in milliseconds, to the microsecond.
func (e *accessEntry) millis() float64 { return float64(e.took.Microseconds()) / 1000 }

// appendJSON appends e as slog's JSON handler writes the record of attrs:
// the same keys, order, escaping and number forms, and a newline.
func (e *accessEntry) appendJSON(b []byte, now time.Time) []byte {
	b = append(b, `{"time":"`...)
	b = now.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","level":`...)
	b = appendJSONString(b, e.level.String())
	b = append(b, `,"msg":"request","operation":`...)
	b = appendJSONString(b, e.op)
	b = append(b, `,"method":`...)
	b = appendJSONString(b, e.method)
	b = append(b, `,"path":`...)
	b = appendJSONString(b, e.path)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(e.status), 10)
	b = append(b, `,"bytes_out":`...)
	b = strconv.AppendInt(b, e.out, 10)
	b = append(b, `,"duration_ms":`...)
	// encoding/json's form ('f' between 1e-6 and 1e21, which a duration
	// in whole microseconds never leaves)
	b = strconv.AppendFloat(b, e.millis(), 'f', -1, 64)
	b = append(b, `,"remote":`...)
	b = appendJSONString(b, e.remote)
	if e.in > 0 {
		b = append(b, `,"bytes_in":`...)
		b = strconv.AppendInt(b, e.in, 10)
	}
	if e.dataset != "" {
		b = append(b, `,"dataset":`...)
		b = appendJSONString(b, e.dataset)
		b = append(b, `,"key":`...)
		b = appendJSONString(b, e.key)
	}
	if c := e.caller; !c.Anonymous() {
		b = append(b, `,"principal":`...)
		b = appendJSONString(b, c.Name())
		b = append(b, `,"auth":`...)
		b = appendJSONString(b, string(c.Method))
		if c.Subject != "" {
			b = append(b, `,"subject":`...)
			b = appendJSONString(b, c.Subject)
			b = append(b, `,"identity_provider":`...)
			b = appendJSONString(b, c.Provider)
		}
	}
	if e.err != "" {
		b = append(b, `,"error":`...)
		b = appendJSONString(b, e.err)
	}
	if e.aborted {
		b = append(b, `,"aborted":true`...)
	}
	return append(b, "}\n"...)
}

// appendJSONString appends s quoted as slog's JSON handler quotes it:
// quotes, backslashes and control characters escaped, invalid UTF-8 as
// U+FFFD, U+2028 and U+2029 escaped, HTML characters as they are.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			switch r {
			case utf8.RuneError:
				b = append(b, `\ufffd`...)
			default:
				b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			}
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
