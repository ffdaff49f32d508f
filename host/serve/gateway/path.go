package gateway

import (
	"errors"
	"net/url"
	"strings"
)

// errBadPath is a request path that names no key safely: it is refused
// before anything reaches a store.
var errBadPath = errors.New("invalid key")

// splitDatasetPath splits an escaped request path "/d/NAME/KEY..." into
// the dataset name and the key, checking every segment as it is decoded:
// no empty, "." or ".." segments, no backslash, NUL or control character,
// no "/" hidden as %2F, and no second layer of percent-encoding that
// another component might decode into one of those. The key is "" for
// "/d/NAME/" and "/d/NAME".
func splitDatasetPath(escaped string) (dataset, key string, err error) {
	rest, ok := strings.CutPrefix(escaped, "/d/")
	if !ok {
		return "", "", errBadPath
	}
	name, rawKey, _ := strings.Cut(rest, "/")
	if dataset, err = decodeSegment(name); err != nil || dataset == "" {
		return "", "", errBadPath
	}
	if rawKey == "" {
		return dataset, "", nil
	}
	if key, err = decodeKey(rawKey); err != nil {
		return "", "", err
	}
	if err := checkWhole(key); err != nil {
		return "", "", err
	}
	return dataset, key, nil
}

// decodeSegment percent-decodes one path segment and checks it.
func decodeSegment(seg string) (string, error) {
	s, err := url.PathUnescape(seg)
	if err != nil {
		return "", errBadPath
	}
	return s, checkSegment(s)
}

// checkSegment checks one decoded segment of a key.
func checkSegment(s string) error {
	switch s {
	case "", ".", "..":
		return errBadPath
	}
	for _, c := range []byte(s) {
		if c < 0x20 || c == 0x7f || c == '/' || c == '\\' {
			return errBadPath
		}
	}
	if hasEncoded(s) {
		return errBadPath
	}
	return nil
}

// checkKey checks a key that arrived unescaped (in an XML body or a
// header) segment by segment, as paths are checked.
func checkKey(key string) error {
	for _, seg := range strings.Split(key, "/") {
		if err := checkSegment(seg); err != nil {
			return err
		}
	}
	return checkWhole(key)
}

// checkWhole checks what concerns a key as a whole once its segments
// passed: its length and the gateway's reserved names.
func checkWhole(key string) error {
	if len(key) > maxKeyBytes {
		return errKeyTooLong
	}
	if reserved(key) {
		return errReserved
	}
	return nil
}

// maxKeyBytes bounds a key's length in bytes of UTF-8, as S3 does.
const maxKeyBytes = 1024

// errKeyTooLong is a key over maxKeyBytes; its message never repeats the
// key (a client sending megabytes of it gets none of it back).
var errKeyTooLong = errors.New("key too long: at most 1024 bytes of UTF-8")

// reservedPrefix starts the names the gateway keeps for itself in a
// dataset's store (the S3 API's multipart parts and bucket marker). No
// client reads or writes a key with such a segment anywhere in it, and
// listings leave them out: a dataset declared over the store that holds
// buckets must not reach a bucket's marker or its uploads' parts.
const reservedPrefix = ".zarrgw_"

// errReserved is a key with a segment starting with reservedPrefix.
var errReserved = errors.New("names starting with " + reservedPrefix + " are kept by the gateway")

// reserved reports whether any segment of key starts with reservedPrefix.
func reserved(key string) bool { return reservedAt(key) >= 0 }

// reservedAt is where key's first reserved segment starts, or -1.
func reservedAt(key string) int {
	if strings.HasPrefix(key, reservedPrefix) {
		return 0
	}
	if i := strings.Index(key, "/"+reservedPrefix); i >= 0 {
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

// keyProblem says what is wrong with a key that failed its checks.
func keyProblem(err error) string {
	if errors.Is(err, errReserved) || errors.Is(err, errKeyTooLong) {
		return "invalid key: " + err.Error()
	}
	return `invalid key: no empty, "." or ".." segments, backslashes, control characters or encoded separators`
}
