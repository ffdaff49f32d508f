package dtype

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// parseFixedBytes reads a fill value for r<N> / |V<n> (raw) and |S<n>
// (fixed bytes): an array of integers 0..255 (v3 r<N>, one per byte), a
// base64 string (v2), or the number 0 (old zarr-python: all zero). Shorter
// values are zero padded, as numpy pads byte strings. For v2 |S a string
// that is not base64 is taken as its own bytes, as zarr-python 2 does; v3
// null_terminated_bytes has base64 only (zarr-python 3 decodes with
// base64.standard_b64decode: zarr-python d44f9f9,
// src/zarr/core/dtype/npy/bytes.py:503-529).
func parseFixedBytes(v jsonValue, size int, lenientString bool) ([]byte, error) {
	var b []byte
	var err error
	switch {
	case v.kind == jsonArray:
		b, err = byteArray(v.elems)
	case v.kind == jsonString:
		b, err = base64.StdEncoding.DecodeString(v.str)
		if err != nil && lenientString {
			b, err = []byte(v.str), nil
		}
	case isZeroNumber(v):
		b = nil
	default:
		return nil, errWant("an array of integers 0..255 or a base64 string")
	}
	if err != nil {
		return nil, err
	}
	if len(b) > size {
		return nil, fmt.Errorf("%d bytes do not fit in %d", len(b), size)
	}
	out := make([]byte, size)
	copy(out, b)
	return out, nil
}

func byteArray(elems []json.RawMessage) ([]byte, error) {
	b := make([]byte, len(elems))
	for i, e := range elems {
		n, err := strconv.ParseUint(string(bytes.TrimSpace(e)), 10, 8)
		if err != nil {
			return nil, fmt.Errorf("element %d: expected an integer 0..255, got %s", i, abbreviate(e))
		}
		b[i] = byte(n)
	}
	return b, nil
}

// parseUnicode reads a fixed-width unicode fill value (v2 U<n>): a plain
// string of at most size/4 code points, stored as zero-padded UTF-32LE.
func parseUnicode(v jsonValue, size int) ([]byte, error) {
	out := make([]byte, size)
	if isZeroNumber(v) {
		return out, nil
	}
	if v.kind != jsonString {
		return nil, errWant("a string")
	}
	if n := utf8.RuneCountInString(v.str); n > size/CodePointBytes {
		return nil, fmt.Errorf("%d code points do not fit in %d", n, size/CodePointBytes)
	}
	i := 0
	for _, r := range v.str {
		binary.LittleEndian.PutUint32(out[i:], uint32(r))
		i += CodePointBytes
	}
	return out, nil
}

func formatUnicode(fill []byte) (string, error) {
	var sb strings.Builder
	for i := 0; i+CodePointBytes <= len(fill); i += CodePointBytes {
		r := rune(binary.LittleEndian.Uint32(fill[i:]))
		if !utf8.ValidRune(r) {
			return "", fmt.Errorf("invalid code point %#x", uint32(r))
		}
		sb.WriteRune(r)
	}
	return quoteJSON([]byte(strings.TrimRight(sb.String(), "\x00")))
}

// parseString reads a string fill value. In v2 the number 0 (zarr-python
// 2's default on object arrays) means no fill value.
func parseString(v jsonValue, v2 bool) ([]byte, error) {
	switch {
	case v.kind == jsonString:
		return append([]byte{}, v.str...), nil
	case v2 && isZeroNumber(v):
		return nil, nil
	}
	return nil, errWant("a string")
}

// parseVarBytes reads a variable-length bytes fill value: a base64 string
// or an array of integers 0..255 (v2: 0 means no fill value).
func parseVarBytes(v jsonValue, v2 bool) ([]byte, error) {
	switch {
	case v.kind == jsonString:
		b, err := base64.StdEncoding.DecodeString(v.str)
		if err != nil {
			return nil, fmt.Errorf("invalid base64: %w", err)
		}
		return append([]byte{}, b...), nil
	case v.kind == jsonArray:
		return byteArray(v.elems)
	case v2 && isZeroNumber(v):
		return nil, nil
	}
	return nil, errWant("a base64 string or an array of integers 0..255")
}

func base64String(b []byte) string {
	return `"` + base64.StdEncoding.EncodeToString(b) + `"`
}

func intArray(b []byte) string {
	var sb strings.Builder
	sb.WriteByte('[')
	for i, c := range b {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(strconv.Itoa(int(c)))
	}
	sb.WriteByte(']')
	return sb.String()
}

// jsonString quotes s as a JSON string without HTML escaping. Bytes that
// are not UTF-8 cannot be written faithfully, so they are an error.
func quoteJSON(s []byte) (string, error) {
	if !utf8.Valid(s) {
		return "", fmt.Errorf("string is not valid UTF-8")
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(string(s)); err != nil {
		return "", err
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}
