package meta

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// object builds a JSON object with keys in insertion order (Go maps would
// sort them; zarr-python's order makes diffs against its output small).
type object struct {
	buf  bytes.Buffer
	keys map[string]bool
}

func newObject() *object {
	o := &object{keys: map[string]bool{}}
	o.buf.WriteByte('{')
	return o
}

// add appends key with an already encoded JSON value.
func (o *object) add(key string, value []byte) {
	if len(o.keys) > 0 {
		o.buf.WriteByte(',')
	}
	o.keys[key] = true
	o.buf.Write(quote(key))
	o.buf.WriteByte(':')
	o.buf.Write(value)
}

// addExtra appends the kept unknown fields, sorted; a key that clashes
// with one already written is an error rather than a duplicate key.
func (o *object) addExtra(extra map[string]json.RawMessage) error {
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if o.keys[k] {
			return fmt.Errorf("extra field %q clashes with a standard field", k)
		}
		v := extra[k]
		if !json.Valid(v) {
			return fmt.Errorf("extra field %q is not valid JSON", k)
		}
		o.add(k, compact(v))
	}
	return nil
}

func (o *object) bytes() []byte {
	o.buf.WriteByte('}')
	return o.buf.Bytes()
}

// quote encodes s as a JSON string without HTML escaping.
func quote(s string) []byte {
	b, _ := marshalNoHTML(s)
	return b
}

// marshalNoHTML is json.Marshal without the \u003c-style escaping of <, >
// and &, which is valid but needlessly unreadable.
func marshalNoHTML(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// ints encodes a shape; nil becomes [] (a 0-d shape), never null.
func ints(v []int) []byte {
	b := []byte{'['}
	for i, n := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(n), 10)
	}
	return append(b, ']')
}

// indent pretty-prints a compact document with the given indent and a
// trailing newline-free end, as zarr-python does.
func indent(doc []byte, prefix string) ([]byte, error) {
	var buf bytes.Buffer
	if err := json.Indent(&buf, doc, "", prefix); err != nil {
		return nil, fmt.Errorf("internal error: invalid JSON written: %w", err)
	}
	return buf.Bytes(), nil
}

// attributesOrEmpty returns a's attributes compacted, "{}" when unset, and
// an error when they are not a JSON object.
func attributesOrEmpty(attrs json.RawMessage) ([]byte, error) {
	if len(bytes.TrimSpace(attrs)) == 0 {
		return []byte("{}"), nil
	}
	obj, err := parseObject(attrs)
	if err != nil {
		return nil, fmt.Errorf("attributes: %w", err)
	}
	return obj, nil
}

// asciiJSON escapes every non-ASCII character of a JSON document as \uXXXX
// (surrogate pairs beyond U+FFFF), as Python's json.dumps does by default.
// zarr-python 2 decodes metadata as ASCII and fails on anything else, so
// v2 documents must be pure ASCII. Non-ASCII bytes occur only inside
// strings, where the escapes mean the same characters. Invalid UTF-8 is
// left as it is: it was not valid JSON text to begin with, and escaping it
// would change what a rewrite reads back.
func asciiJSON(doc []byte) []byte {
	n := 0
	for _, c := range doc {
		if c >= utf8.RuneSelf {
			n++
		}
	}
	if n == 0 {
		return doc
	}
	out := make([]byte, 0, len(doc)+5*n)
	for len(doc) > 0 {
		r, size := utf8.DecodeRune(doc)
		if r < utf8.RuneSelf || (r == utf8.RuneError && size == 1) {
			out = append(out, doc[0])
			doc = doc[1:]
			continue
		}
		doc = doc[size:]
		if r > 0xffff {
			hi, lo := utf16.EncodeRune(r)
			out = fmt.Appendf(out, `\u%04x\u%04x`, hi, lo)
			continue
		}
		out = fmt.Appendf(out, `\u%04x`, r)
	}
	return out
}
