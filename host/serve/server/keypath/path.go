// Package keypath checks and decodes the keys and dataset paths clients
// send (segments, escapes, lengths, the names the gateway keeps for
// itself) and makes the addresses of the pages of nodes.
package keypath

import (
	"errors"
	"net/url"
	"strings"
)

// ErrBadPath is a request path that names no key safely: it is refused
// before anything reaches a store.
var ErrBadPath = errors.New("invalid key")

// SplitDatasetPath splits an escaped request path "/d/NAME/KEY..." into
// the dataset name and the key, checking every segment as it is decoded:
// no empty, "." or ".." segments, no backslash, NUL or control character,
// no "/" hidden as %2F, and no second layer of percent-encoding that
// another component might decode into one of those. The key is "" for
// "/d/NAME/" and "/d/NAME".
//
// Slashes between the dataset's name and the key are one ("/d/NAME//KEY"
// is KEY), as a web server that merges slashes (nginx) serves them:
// clients given the dataset's URL with its trailing slash add one of
// their own before every key (obstore's HTTPStore, the zarrs pipeline's
// HTTP store). Within the key an empty segment is still refused.
func SplitDatasetPath(escaped string) (dataset, key string, err error) {
	rest, ok := strings.CutPrefix(escaped, "/d/")
	if !ok {
		return "", "", ErrBadPath
	}
	name, rawKey, _ := strings.Cut(rest, "/")
	rawKey = strings.TrimLeft(rawKey, "/")
	if dataset, err = DecodeSegment(name); err != nil || dataset == "" {
		return "", "", ErrBadPath
	}
	if rawKey == "" {
		return dataset, "", nil
	}
	if key, err = DecodeKey(rawKey); err != nil {
		return "", "", err
	}
	if err := CheckWhole(key); err != nil {
		return "", "", err
	}
	return dataset, key, nil
}

// DecodeSegment percent-decodes one path segment and checks it.
func DecodeSegment(seg string) (string, error) {
	s, err := url.PathUnescape(seg)
	if err != nil {
		return "", ErrBadPath
	}
	return s, CheckSegment(s)
}

// CheckSegment checks one decoded segment of a key.
func CheckSegment(s string) error {
	switch s {
	case "", ".", "..":
		return ErrBadPath
	}
	for _, c := range []byte(s) {
		if c < 0x20 || c == 0x7f || c == '/' || c == '\\' {
			return ErrBadPath
		}
	}
	if hasEncoded(s) {
		return ErrBadPath
	}
	return nil
}

// CheckKey checks a key that arrived unescaped (in an XML body or a
// header) segment by segment, as paths are checked.
func CheckKey(key string) error {
	for _, seg := range strings.Split(key, "/") {
		if err := CheckSegment(seg); err != nil {
			return err
		}
	}
	return CheckWhole(key)
}

// CheckWhole checks what concerns a key as a whole once its segments
// passed: its length and the gateway's reserved names.
func CheckWhole(key string) error {
	if len(key) > maxKeyBytes {
		return ErrKeyTooLong
	}
	if Reserved(key) {
		return ErrReserved
	}
	return nil
}

// maxKeyBytes bounds a key's length in bytes of UTF-8, as S3 does.
const maxKeyBytes = 1024

// ErrKeyTooLong is a key over maxKeyBytes; its message never repeats the
// key (a client sending megabytes of it gets none of it back).
var ErrKeyTooLong = errors.New("key too long: at most 1024 bytes of UTF-8")

// ReservedPrefix starts the names the gateway keeps for itself in a
// dataset's store (the S3 API's multipart parts and bucket marker). No
// client reads or writes a key with such a segment anywhere in it, and
// listings leave them out: a dataset declared over the store that holds
// buckets must not reach a bucket's marker or its uploads' parts.
const ReservedPrefix = ".zarrgw_"

// ErrReserved is a key with a segment starting with reservedPrefix.
var ErrReserved = errors.New("names starting with " + ReservedPrefix + " are kept by the gateway")

// Reserved reports whether any segment of key starts with reservedPrefix.
func Reserved(key string) bool { return ReservedAt(key) >= 0 }

// reservedAt is where key's first reserved segment starts, or -1.
func ReservedAt(key string) int {
	if strings.HasPrefix(key, ReservedPrefix) {
		return 0
	}
	if i := strings.Index(key, "/"+ReservedPrefix); i >= 0 {
		return i + 1
	}
	return -1
}

// hasEncoded reports a percent-encoded '.', '/', '\' or NUL left after one
// decoding: a double-encoded traversal.
func hasEncoded(s string) bool {
	lower := strings.ToLower(s)
	for _, e := range []string{"%2e", "%2f", "%5c", "%00"} {
		if strings.Contains(lower, e) {
			return true
		}
	}
	return false
}

// KeyProblem says what is wrong with a key that failed its checks.
func KeyProblem(err error) string {
	if errors.Is(err, ErrReserved) || errors.Is(err, ErrKeyTooLong) {
		return "invalid key: " + err.Error()
	}
	return `invalid key: no empty, "." or ".." segments, backslashes, control characters or encoded separators`
}

// DecodeKey decodes and checks each segment of an escaped key. A key with
// nothing escaped (most) is its own decoding: its segments are checked in
// place rather than split and joined again.
func DecodeKey(escaped string) (string, error) {
	if !strings.Contains(escaped, "%") {
		for rest, more := escaped, true; more; {
			var seg string
			seg, rest, more = strings.Cut(rest, "/")
			if err := CheckSegment(seg); err != nil {
				return "", err
			}
		}
		return escaped, nil
	}
	segs := strings.Split(escaped, "/")
	for i, seg := range segs {
		var err error
		if segs[i], err = DecodeSegment(seg); err != nil {
			return "", err
		}
	}
	return strings.Join(segs, "/"), nil
}

// NodeURL is the address of the page of the node at path in dataset.
func NodeURL(dataset, path string) string {
	return "/ui/d/" + url.PathEscape(dataset) + "/" + EscapeSegments(path)
}

// EscapeSegments escapes each segment of a slash-separated path.
func EscapeSegments(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}
