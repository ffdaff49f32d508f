// Package adler32 is the numcodecs "adler32" checksum codec: the Adler-32
// of the payload, 4 little-endian bytes, prepended by default.
package adler32

import (
	"context"
	"encoding/json"
	"hash/adler32"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/plugins/codecs/internal/checksum32"
)

var algorithm = checksum32.Algorithm{
	Name:    "numcodecs.adler32",
	Aliases: []string{"adler32"},
	Sum:     adler32.Checksum,
}

// Registration registers the codec under "numcodecs.adler32" and "adler32".
var Registration = algorithm.Registration()

// New builds the codec; the configuration may give "location".
func New(ctx context.Context, configuration json.RawMessage, r codec.Resolver) (codec.Codec, error) {
	return algorithm.New(ctx, configuration, r)
}
