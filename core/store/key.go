package store

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// ValidateKey reports whether key is a well-formed store key: non-empty,
// valid UTF-8, "/"-separated segments that are neither empty nor "." or
// "..", and free of NUL and backslash. Every store checks keys with it so
// that no key can name a location outside the store, whatever the backend
// does with ".." or "\". The error wraps ErrInvalidKey.
func ValidateKey(key string) error {
	if why := keyProblem(key); why != "" {
		return fmt.Errorf("%w %q: %s", ErrInvalidKey, key, why)
	}
	return nil
}

// ValidatePrefix reports whether prefix is "" (the whole store) or a valid
// key followed by "/". The error wraps ErrInvalidKey.
func ValidatePrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	if !strings.HasSuffix(prefix, "/") {
		return fmt.Errorf("%w: prefix %q does not end in \"/\"", ErrInvalidKey, prefix)
	}
	if why := keyProblem(prefix[:len(prefix)-1]); why != "" {
		return fmt.Errorf("%w: prefix %q: %s", ErrInvalidKey, prefix, why)
	}
	return nil
}

// keyProblem returns why key is invalid, or "" if it is valid. It makes one
// pass without allocating, since every store operation calls it.
func keyProblem(key string) string {
	switch {
	case key == "":
		return "empty"
	case key[0] == '/':
		return "leading \"/\""
	case key[len(key)-1] == '/':
		return "trailing \"/\""
	case !utf8.ValidString(key):
		return "not valid UTF-8"
	}
	start := 0
	for i := 0; i <= len(key); i++ {
		if i < len(key) && key[i] != '/' {
			switch key[i] {
			case 0:
				return "contains NUL"
			case '\\':
				return "contains a backslash"
			}
			continue
		}
		switch key[start:i] {
		case "":
			return "empty segment"
		case ".", "..":
			return "relative segment " + key[start:i]
		}
		start = i + 1
	}
	return ""
}
