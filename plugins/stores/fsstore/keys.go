package fsstore

import (
	"fmt"
	"strings"

	"github.com/zarrgw/zarrgw/core/store"
)

// reserved starts the names of the store's own files, which are never keys.
const reserved = ".zarrgw-"

func checkKey(key string) error {
	if err := store.ValidateKey(key); err != nil {
		return fmt.Errorf("fs: %w", err)
	}
	if hasReservedSegment(key) {
		return fmt.Errorf("fs: %w %q: segments starting with %q are reserved", store.ErrInvalidKey, key, reserved)
	}
	return checkSegmentLengths(key)
}

// maxSegment is the longest file name Linux filesystems take (NAME_MAX).
const maxSegment = 255

// checkSegmentLengths refuses a key the filesystem cannot name, as an
// invalid key (the caller's) rather than the I/O error it would become.
func checkSegmentLengths(key string) error {
	for seg := range strings.SplitSeq(key, "/") {
		if len(seg) > maxSegment {
			return fmt.Errorf("fs: %w: a segment of %d bytes (a filesystem names at most %d)", store.ErrInvalidKey, len(seg), maxSegment)
		}
	}
	return nil
}

func checkPrefix(prefix string) error {
	if err := store.ValidatePrefix(prefix); err != nil {
		return fmt.Errorf("fs: %w", err)
	}
	if hasReservedSegment(prefix) {
		return fmt.Errorf("fs: %w: prefix %q: segments starting with %q are reserved", store.ErrInvalidKey, prefix, reserved)
	}
	return nil
}

func hasReservedSegment(key string) bool {
	return strings.HasPrefix(key, reserved) || strings.Contains(key, "/"+reserved)
}

// isKeySegment reports whether a directory entry name can be part of a key,
// so listing never reports a key that Get would refuse.
func isKeySegment(name string) bool {
	return store.ValidateKey(name) == nil && !strings.HasPrefix(name, reserved)
}

// splitKey splits a key (or a prefix without its "/") into its directory
// ("" at the root) and its last segment.
func splitKey(key string) (dir, base string) {
	i := strings.LastIndexByte(key, '/')
	if i < 0 {
		return "", key
	}
	return key[:i], key[i+1:]
}

// rootName maps the root directory "" to the name os.Root wants.
func rootName(dir string) string {
	if dir == "" {
		return "."
	}
	return dir
}
