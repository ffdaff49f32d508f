package json2

import (
	"unicode/utf16"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string the way Python's json module
// does: backslash, quote and the usual control characters get short
// escapes, other characters below 0x20 \u00xx; with ensureASCII everything
// from 0x7f up is \uxxxx (lowercase, surrogate pairs beyond the BMP).
func appendString(out []byte, s string, ensureASCII bool) []byte {
	out = append(out, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			out = appendASCII(out, c, ensureASCII)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !ensureASCII {
			out = append(out, s[i:i+size]...)
		} else if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
			out = appendU(appendU(out, r1), r2)
		} else {
			out = appendU(out, r)
		}
		i += size
	}
	return append(out, '"')
}

func appendASCII(out []byte, c byte, ensureASCII bool) []byte {
	switch c {
	case '"':
		return append(out, '\\', '"')
	case '\\':
		return append(out, '\\', '\\')
	case '\b':
		return append(out, '\\', 'b')
	case '\f':
		return append(out, '\\', 'f')
	case '\n':
		return append(out, '\\', 'n')
	case '\r':
		return append(out, '\\', 'r')
	case '\t':
		return append(out, '\\', 't')
	}
	if c < 0x20 || c == 0x7f && ensureASCII {
		return appendU(out, rune(c))
	}
	return append(out, c)
}

func appendU(out []byte, r rune) []byte {
	return append(out, '\\', 'u', hexDigits[r>>12&15], hexDigits[r>>8&15], hexDigits[r>>4&15], hexDigits[r&15])
}
