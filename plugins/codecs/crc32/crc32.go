// Package crc32 is the numcodecs "crc32" checksum codec: the zlib (IEEE)
// CRC-32 of the payload, 4 little-endian bytes, prepended by default.
package crc32

import (
	"context"
	"encoding/json"
	"hash/crc32"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/plugins/codecs/internal/checksum32"
)

var algorithm = checksum32.Algorithm{
	Name:    "numcodecs.crc32",
	Aliases: []string{"crc32"},
	Sum:     crc32.ChecksumIEEE,
}

// Registration registers the codec under "numcodecs.crc32" and "crc32".
var Registration = algorithm.Registration()

// New builds the codec; the configuration may give "location".
func New(ctx context.Context, configuration json.RawMessage, r codec.Resolver) (codec.Codec, error) {
	return algorithm.New(ctx, configuration, r)
}
