// Package accesslog is one record of the gateway's access log and its
// two forms: slog attributes, and a JSON line written directly in the
// form of slog's JSON handler (faster than a handler formats it).
package accesslog

import (
	"log/slog"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/zarrgw/zarrgw/host/serve/identity"
)

// accessEntry is what the access log says of one request.
type Entry struct {
	Op, Method, Path string
	Status           int
	Out, In          int64
	Took             time.Duration
	Remote           string
	Dataset, Key     string
	Caller           identity.Caller
	Err              string
	// aborted: the response was cut after its status was sent (err says
	// why); the client saw a failed transfer.
	Aborted bool
	Level   slog.Level
}

// attrs are e's fields as log attributes, in the order appendJSON writes
// them.
func (e *Entry) Attrs() []slog.Attr {
	attrs := []slog.Attr{
		slog.String("operation", e.Op),
		slog.String("method", e.Method),
		slog.String("path", e.Path),
		slog.Int("status", e.Status),
		slog.Int64("bytes_out", e.Out),
		slog.Float64("duration_ms", e.millis()),
		slog.String("remote", e.Remote),
	}
	if e.In > 0 {
		attrs = append(attrs, slog.Int64("bytes_in", e.In))
	}
	if e.Dataset != "" {
		attrs = append(attrs, slog.String("dataset", e.Dataset), slog.String("key", e.Key))
	}
	if c := e.Caller; !c.Anonymous() {
		attrs = append(attrs, slog.String("principal", c.Name()), slog.String("auth", string(c.Method)))
		if c.Subject != "" {
			attrs = append(attrs, slog.String("subject", c.Subject), slog.String("identity_provider", c.Provider))
		}
	}
	if e.Err != "" {
		attrs = append(attrs, slog.String("error", e.Err))
	}
	if e.Aborted {
		attrs = append(attrs, slog.Bool("aborted", true))
	}
	return attrs
}

// millis is the request's duration in milliseconds, to the microsecond.
func (e *Entry) millis() float64 { return float64(e.Took.Microseconds()) / 1000 }

// appendJSON appends e as slog's JSON handler writes the record of attrs:
// the same keys, order, escaping and number forms, and a newline.
func (e *Entry) AppendJSON(b []byte, now time.Time) []byte {
	b = append(b, `{"time":"`...)
	b = now.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","level":`...)
	b = appendJSONString(b, e.Level.String())
	b = append(b, `,"msg":"request","operation":`...)
	b = appendJSONString(b, e.Op)
	b = append(b, `,"method":`...)
	b = appendJSONString(b, e.Method)
	b = append(b, `,"path":`...)
	b = appendJSONString(b, e.Path)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(e.Status), 10)
	b = append(b, `,"bytes_out":`...)
	b = strconv.AppendInt(b, e.Out, 10)
	b = append(b, `,"duration_ms":`...)
	// encoding/json's form ('f' between 1e-6 and 1e21, which a duration
	// in whole microseconds never leaves)
	b = strconv.AppendFloat(b, e.millis(), 'f', -1, 64)
	b = append(b, `,"remote":`...)
	b = appendJSONString(b, e.Remote)
	if e.In > 0 {
		b = append(b, `,"bytes_in":`...)
		b = strconv.AppendInt(b, e.In, 10)
	}
	if e.Dataset != "" {
		b = append(b, `,"dataset":`...)
		b = appendJSONString(b, e.Dataset)
		b = append(b, `,"key":`...)
		b = appendJSONString(b, e.Key)
	}
	if c := e.Caller; !c.Anonymous() {
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
	if e.Err != "" {
		b = append(b, `,"error":`...)
		b = appendJSONString(b, e.Err)
	}
	if e.Aborted {
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
