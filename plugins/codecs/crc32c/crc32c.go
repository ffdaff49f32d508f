// Package crc32c is the v3 "crc32c" checksum codec (also numcodecs
// crc32c): CRC-32C (Castagnoli) of the payload, 4 little-endian bytes,
// appended by default.
package crc32c

import (
	"context"
	"encoding/json"
	"hash/crc32"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/plugins/codecs/internal/checksum32"
)

var table = crc32.MakeTable(crc32.Castagnoli)

// Sum is the CRC-32C of b.
func Sum(b []byte) uint32 { return crc32.Checksum(b, table) }

var algorithm = checksum32.Algorithm{
	Name:       "crc32c",
	Aliases:    []string{"numcodecs.crc32c"},
	Sum:        Sum,
	DefaultEnd: true,
	Bare:       true,
}

// Registration registers the codec under "crc32c" and "numcodecs.crc32c".
var Registration = algorithm.Registration()

// New builds the codec; the configuration may give "location".
func New(ctx context.Context, configuration json.RawMessage, r codec.Resolver) (codec.Codec, error) {
	return algorithm.New(ctx, configuration, r)
}
