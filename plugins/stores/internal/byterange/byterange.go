// Package byterange turns store.ByteRange into HTTP Range requests and
// checks the answers, for the stores that speak HTTP (S3, Azure Blob,
// plain HTTP). HTTP cannot ask for zero bytes, and answers a range that
// starts at or past the end of a value with 416 instead of nothing; both
// cases are told apart here so that every store resolves them alike: the
// value's existence and version still count, its bytes are empty.
package byterange

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/zarrgw/zarrgw/core/store"
)

// Request is how to ask for a range over HTTP.
type Request struct {
	// Header is the Range header to send; "" asks for the whole value.
	Header string
	// Empty means the range selects no bytes whatever the value's size:
	// nothing is to be read, only whether the value exists.
	Empty bool
}

// For returns the request for r, or an error for a malformed range (which
// must not be sent, and must not look like a missing key).
func For(r store.ByteRange) (Request, error) {
	switch r.Kind {
	case store.Whole:
		return Request{}, nil
	case store.Bounded:
		if r.Offset < 0 || r.Length < 0 || r.Offset > maxOffset-r.Length {
			return Request{}, fmt.Errorf("invalid byte range %s", r)
		}
		if r.Length == 0 {
			return Request{Empty: true}, nil
		}
		return Request{Header: fmt.Sprintf("bytes=%d-%d", r.Offset, r.Offset+r.Length-1)}, nil
	case store.FromOffset:
		if r.Offset < 0 {
			return Request{}, fmt.Errorf("invalid byte range %s", r)
		}
		if r.Offset == 0 {
			return Request{}, nil
		}
		return Request{Header: fmt.Sprintf("bytes=%d-", r.Offset)}, nil
	case store.Suffix:
		if r.Length < 0 {
			return Request{}, fmt.Errorf("invalid byte range %s", r)
		}
		if r.Length == 0 {
			return Request{Empty: true}, nil
		}
		return Request{Header: fmt.Sprintf("bytes=-%d", r.Length)}, nil
	}
	return Request{}, fmt.Errorf("invalid byte range kind %d", r.Kind)
}

const maxOffset = 1<<63 - 1

// ContentRange is a parsed Content-Range header: bytes [Start, End) of a
// value of Size bytes (Size is -1 when the server did not say).
type ContentRange struct {
	Start, End, Size int64
}

// ParseContentRange parses "bytes first-last/size" (size may be "*").
func ParseContentRange(h string) (ContentRange, error) {
	bad := fmt.Errorf("malformed Content-Range %q", h)
	spec, ok := strings.CutPrefix(h, "bytes ")
	if !ok {
		return ContentRange{}, bad
	}
	span, size, ok := strings.Cut(spec, "/")
	if !ok {
		return ContentRange{}, bad
	}
	if size == "0" {
		// An empty value has no bytes to name; some servers (Go's
		// ServeContent) still send "bytes 0--1/0".
		return ContentRange{Size: 0}, nil
	}
	first, last, ok := strings.Cut(span, "-")
	if !ok {
		return ContentRange{}, bad
	}
	start, err1 := strconv.ParseInt(first, 10, 64)
	end, err2 := strconv.ParseInt(last, 10, 64)
	if err1 != nil || err2 != nil || start < 0 || end < start {
		return ContentRange{}, bad
	}
	cr := ContentRange{Start: start, End: end + 1, Size: -1}
	if size != "*" {
		n, err := strconv.ParseInt(size, 10, 64)
		if err != nil || n < cr.End {
			return ContentRange{}, bad
		}
		cr.Size = n
	}
	return cr, nil
}

// Check verifies that a 206 answer carries the part of the value that r
// selects: a server that sends other bytes than asked must not have them
// taken for the range.
func Check(r store.ByteRange, cr ContentRange) error {
	if cr.Size < 0 {
		return nil // nothing to compare the start with for suffixes; trust the length
	}
	start, end, err := r.Resolve(cr.Size)
	if err != nil {
		return err
	}
	if cr.Start != start || cr.End != end {
		return fmt.Errorf("asked for %s, got bytes [%d,%d) of %d", r, cr.Start, cr.End, cr.Size)
	}
	return nil
}
