package pluginpkg

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/mod/sumdb/dirhash"
)

// Hash schemes, as Terraform's lock file writes them: h1: is the hash of
// a package's contents (golang.org/x/mod's dirhash Hash1, the same for the
// zip and for the directory it unpacks to); zh: is the SHA-256 of the zip
// file itself, in hex.
const (
	H1 = "h1:"
	ZH = "zh:"
)

// HashDir returns the h1: hash of an unpacked package. A symbolic link to
// the directory (an installation linked from the cache) hashes as the
// directory it points to.
func HashDir(dir string) (string, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", fmt.Errorf("hash %s: %w", dir, err)
	}
	h, err := dirhash.HashDir(real, "", dirhash.Hash1)
	if err != nil {
		return "", fmt.Errorf("hash %s: %w", dir, err)
	}
	return h, nil
}

// HashZip returns the h1: hash of the contents of a package's zip file.
func HashZip(zipPath string) (string, error) {
	h, err := dirhash.HashZip(zipPath, dirhash.Hash1)
	if err != nil {
		return "", fmt.Errorf("hash %s: %w", zipPath, err)
	}
	return h, nil
}

// ZipHash returns the zh: hash of a package's zip file.
func ZipHash(zipPath string) (string, error) {
	sum, err := FileSHA256(zipPath)
	return ZH + sum, err
}

// FileSHA256 returns the SHA-256 of the file at path in lower-case hex.
func FileSHA256(path string) (string, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// ZipHashes returns both hashes of a package's zip file, h1: first.
func ZipHashes(zipPath string) ([]string, error) {
	h1, err := HashZip(zipPath)
	if err != nil {
		return nil, err
	}
	zh, err := ZipHash(zipPath)
	if err != nil {
		return nil, err
	}
	return []string{h1, zh}, nil
}

// Known reports whether hash is of a scheme zarrgw checks.
func Known(hash string) bool {
	return strings.HasPrefix(hash, H1) || strings.HasPrefix(hash, ZH)
}

// Matching returns the hashes of have that are in want.
func Matching(have, want []string) []string {
	var out []string
	for _, h := range have {
		for _, w := range want {
			if h == w {
				out = append(out, h)
				break
			}
		}
	}
	return out
}

// OpenRegular opens path for reading and refuses anything but a regular
// file (or a link to one) before a byte is read: a plugin's path naming a
// FIFO would block the open, and a device such as /dev/zero would be
// hashed without end. O_NONBLOCK keeps the open of a FIFO from waiting
// for a writer; it changes nothing for a regular file.
func OpenRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file (%s)", path, info.Mode().Type())
	}
	return f, nil
}
