package launcher

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/zarrgw/zarrgw/host/runtime/pluginpkg"
)

// Checksum returns the SHA-256 of the file at path in lower-case hex, the
// form plugin specs and lock files pin.
func Checksum(path string) (string, error) {
	sum, err := pluginpkg.FileSHA256(path)
	if err != nil {
		return "", fmt.Errorf("checksum: %w", err)
	}
	return sum, nil
}

// decodeChecksum checks that sum is a SHA-256 in hex.
func decodeChecksum(sum string) ([]byte, error) {
	b, err := hex.DecodeString(sum)
	if err != nil || len(b) != sha256.Size {
		return nil, fmt.Errorf("sha256 %q is not 64 hexadecimal digits", sum)
	}
	return b, nil
}
