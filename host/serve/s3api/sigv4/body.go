package sigv4

import (
	"bufio"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"hash/crc64"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// ErrChecksum means an x-amz-checksum-* value does not match the data
// (S3's BadDigest).
var ErrChecksum = errors.New("the checksum does not match the data")

// maxChunk bounds one aws-chunked chunk held to check its signature.
const maxChunk = 16 << 20

// Body returns the request's payload as it is to be stored: for aws-chunked
// bodies the data without the framing, each chunk's signature and the
// trailer's checked; for a hashed payload the body, its SHA-256 checked
// when it ends. Checksums sent in x-amz-checksum-* headers or trailers are
// checked too and never stored. A failed check is the reader's error at
// the end of the data, so nothing a caller stores after reading it to EOF
// was altered.
func (req *Request) Body(r *http.Request) (io.Reader, error) {
	body := io.Reader(r.Body)
	switch req.PayloadHash {
	case UnsignedPayload:
	case StreamingPayload, StreamingPayloadTrailer, StreamingUnsignedTrailer:
		if !strings.Contains(strings.ToLower(r.Header.Get("Content-Encoding")), "aws-chunked") && r.Header.Get("X-Amz-Decoded-Content-Length") == "" {
			return nil, fmt.Errorf("%w: a streaming payload needs Content-Encoding: aws-chunked or x-amz-decoded-content-length", ErrMalformed)
		}
		c := &chunked{in: bufio.NewReaderSize(r.Body, 64<<10), req: req, prev: req.Signature,
			signed: req.PayloadHash != StreamingUnsignedTrailer, trailer: req.PayloadHash != StreamingPayload,
			want: -1}
		if s := r.Header.Get("X-Amz-Decoded-Content-Length"); s != "" {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%w: x-amz-decoded-content-length %q", ErrMalformed, s)
			}
			c.want = n
		}
		// a trailer may carry no checksum (no x-amz-trailer): S3 then
		// computes its own, and there is nothing to check
		if name := strings.ToLower(strings.TrimSpace(r.Header.Get("X-Amz-Trailer"))); c.trailer && name != "" {
			if c.check = newChecksum(name); c.check == nil {
				return nil, fmt.Errorf("%w: x-amz-trailer %q names no checksum this server knows", ErrMalformed, name)
			}
			c.checkName = name
		}
		body = c
	default:
		sum, err := hex.DecodeString(req.PayloadHash)
		if err != nil || len(sum) != sha256.Size {
			return nil, fmt.Errorf("%w: x-amz-content-sha256 %q", ErrMalformed, req.PayloadHash)
		}
		body = &verifying{in: body, h: sha256.New(), want: sum, err: ErrPayloadMismatch}
	}
	for name := range r.Header {
		lower := strings.ToLower(name)
		if strings.HasPrefix(lower, "x-amz-checksum-") && lower != "x-amz-checksum-type" && lower != "x-amz-checksum-algorithm" {
			h := newChecksum(lower)
			if h == nil {
				return nil, fmt.Errorf("%w: unknown checksum header %s", ErrMalformed, name)
			}
			want, err := base64.StdEncoding.DecodeString(r.Header.Get(name))
			if err != nil {
				return nil, fmt.Errorf("%w: %s is not base64", ErrMalformed, name)
			}
			body = &verifying{in: body, h: h, want: want, err: ErrChecksum}
		}
	}
	return body, nil
}

var (
	castagnoli = crc32.MakeTable(crc32.Castagnoli)
	nvme       = crc64.MakeTable(0x9a6c9329ac4bc9b5) // CRC-64/NVME; built once, not per request
	// emptyHash is the SHA-256 of nothing, in every chunk's string to sign
	emptyHash = hashHex(nil)
)

// newChecksum returns the hash an x-amz-checksum-NAME header is of.
func newChecksum(header string) hash.Hash {
	switch strings.TrimPrefix(header, "x-amz-checksum-") {
	case "crc32":
		return crc32.NewIEEE()
	case "crc32c":
		return crc32.New(castagnoli)
	case "crc64nvme":
		return crc64.New(nvme)
	case "sha1":
		return sha1.New()
	case "sha256":
		return sha256.New()
	}
	return nil
}

// verifying hashes what it passes on and, at the end, fails with err
// unless the hash is want.
type verifying struct {
	in   io.Reader
	h    hash.Hash
	want []byte
	err  error
}

func (v *verifying) Read(p []byte) (int, error) {
	n, err := v.in.Read(p)
	v.h.Write(p[:n])
	if err == io.EOF && string(v.h.Sum(nil)) != string(v.want) {
		return n, v.err
	}
	return n, err
}

// chunked decodes an aws-chunked body.
type chunked struct {
	in        *bufio.Reader
	req       *Request
	prev      string // the previous chunk's signature
	signed    bool   // chunks carry signatures
	trailer   bool   // a trailer with a checksum follows the last chunk
	check     hash.Hash
	checkName string
	want      int64 // x-amz-decoded-content-length, or -1
	got       int64
	buf       []byte
	done      bool
	err       error
}

func (c *chunked) Read(p []byte) (int, error) {
	for len(c.buf) == 0 {
		if c.err != nil {
			return 0, c.err
		}
		if c.done {
			return 0, io.EOF
		}
		c.err = c.next()
	}
	n := copy(p, c.buf)
	c.buf = c.buf[n:]
	return n, nil
}

// next reads one chunk into buf, or the end.
func (c *chunked) next() error {
	line, err := c.line()
	if err != nil {
		return err
	}
	sizeText, ext, _ := strings.Cut(line, ";")
	size, err := strconv.ParseInt(strings.TrimSpace(sizeText), 16, 64)
	if err != nil || size < 0 || size > maxChunk {
		return fmt.Errorf("%w: chunk header %q", ErrMalformed, line)
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(c.in, data); err != nil {
		return fmt.Errorf("%w: chunk of %d bytes cut short: %w", ErrMalformed, size, err)
	}
	if size > 0 {
		if crlf, err := c.line(); err != nil || crlf != "" {
			return fmt.Errorf("%w: no CRLF after a chunk", ErrMalformed)
		}
	}
	if c.signed {
		sig, ok := strings.CutPrefix(ext, "chunk-signature=")
		if !ok {
			return fmt.Errorf("%w: chunk without chunk-signature", ErrMalformed)
		}
		if err := c.verify("AWS4-HMAC-SHA256-PAYLOAD", sig, emptyHash+"\n"+hashHex(data)); err != nil {
			return err
		}
	}
	if c.check != nil {
		c.check.Write(data)
	}
	c.got += size
	if size > 0 {
		c.buf = data
		return nil
	}
	c.done = true
	if c.trailer {
		if err := c.trailers(); err != nil {
			return err
		}
	} else if crlf, err := c.line(); err != nil || crlf != "" {
		return fmt.Errorf("%w: no CRLF after the last chunk", ErrMalformed)
	}
	if c.want >= 0 && c.got != c.want {
		return fmt.Errorf("%w: %d bytes decoded, x-amz-decoded-content-length says %d", ErrMalformed, c.got, c.want)
	}
	// nothing may follow: bytes there are no part of the signed stream
	if _, err := c.in.ReadByte(); err != io.EOF {
		return fmt.Errorf("%w: bytes after the final chunk", ErrMalformed)
	}
	return nil
}

// trailers reads the trailer lines after the last chunk, checks the
// checksum they carry and, for signed payloads, their signature.
func (c *chunked) trailers() error {
	var signedPart strings.Builder
	var sig, value string
	for {
		line, err := c.line()
		if err != nil {
			return err
		}
		if line == "" {
			break
		}
		name, val, ok := strings.Cut(line, ":")
		if !ok {
			return fmt.Errorf("%w: trailer line %q", ErrMalformed, line)
		}
		name = strings.ToLower(strings.TrimSpace(name))
		val = strings.TrimSpace(val)
		switch name {
		case "x-amz-trailer-signature":
			sig = val
		case c.checkName:
			if c.checkName != "" {
				value = val
			}
			signedPart.WriteString(name + ":" + val + "\n")
		default:
			signedPart.WriteString(name + ":" + val + "\n")
		}
	}
	if c.signed {
		if sig == "" {
			return fmt.Errorf("%w: no x-amz-trailer-signature", ErrMalformed)
		}
		if err := c.verify("AWS4-HMAC-SHA256-TRAILER", sig, hashHex([]byte(signedPart.String()))); err != nil {
			return err
		}
	}
	if c.check == nil {
		return nil // no checksum declared
	}
	want, err := base64.StdEncoding.DecodeString(value)
	if err != nil || value == "" {
		return fmt.Errorf("%w: trailer %s missing or not base64", ErrMalformed, c.checkName)
	}
	if string(c.check.Sum(nil)) != string(want) {
		return ErrChecksum
	}
	return nil
}

// verify checks one chunk's (or the trailer's) signature, chained from
// the previous one.
func (c *chunked) verify(kind, sig, tail string) error {
	if c.req.key == nil {
		return ErrSignature // a Request the verifier did not make has no key
	}
	s := getScratch()
	defer putScratch(s)
	b := append(s.buf[:0], kind...)
	b = append(b, '\n')
	b = c.req.Time.AppendFormat(b, timeFormat)
	b = append(b, '\n')
	b = append(b, c.req.Credential.scope()...)
	b = append(b, '\n')
	b = append(b, c.prev...)
	b = append(b, '\n')
	s.buf = append(b, tail...)
	c.req.key.sum(s.mac[:0], s.buf)
	if !decodeSignature(&s.sent, sig) || subtle.ConstantTimeCompare(s.mac[:], s.sent[:]) != 1 {
		return ErrSignature
	}
	c.prev = sig
	return nil
}

// line reads one CRLF-terminated line without its ending.
func (c *chunked) line() (string, error) {
	s, err := c.in.ReadString('\n')
	if err != nil {
		return "", fmt.Errorf("%w: body ends in a chunk header: %w", ErrMalformed, err)
	}
	if len(s) > 4096 {
		return "", fmt.Errorf("%w: chunk header too long", ErrMalformed)
	}
	return strings.TrimRight(s, "\r\n"), nil
}

func hashHex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
