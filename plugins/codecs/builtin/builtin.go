// Package builtin lists every codec bundled with zarrgw.
package builtin

import (
	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/plugins/codecs/adler32"
	"github.com/zarrgw/zarrgw/plugins/codecs/blosc"
	bytescodec "github.com/zarrgw/zarrgw/plugins/codecs/bytes"
	bz2codec "github.com/zarrgw/zarrgw/plugins/codecs/bz2"
	"github.com/zarrgw/zarrgw/plugins/codecs/crc32"
	"github.com/zarrgw/zarrgw/plugins/codecs/crc32c"
	"github.com/zarrgw/zarrgw/plugins/codecs/delta"
	"github.com/zarrgw/zarrgw/plugins/codecs/fletcher32"
	gzipcodec "github.com/zarrgw/zarrgw/plugins/codecs/gzip"
	lz4codec "github.com/zarrgw/zarrgw/plugins/codecs/lz4"
	"github.com/zarrgw/zarrgw/plugins/codecs/shuffle"
	"github.com/zarrgw/zarrgw/plugins/codecs/transpose"
	"github.com/zarrgw/zarrgw/plugins/codecs/vlen"
	zlibcodec "github.com/zarrgw/zarrgw/plugins/codecs/zlib"
	zstdcodec "github.com/zarrgw/zarrgw/plugins/codecs/zstd"
)

// Registrations returns the registration of every bundled codec.
func Registrations() []codec.Registration {
	return []codec.Registration{
		bytescodec.Registration,
		transpose.Registration,
		gzipcodec.Registration,
		zlibcodec.Registration,
		zstdcodec.Registration,
		crc32c.Registration,
		crc32.Registration,
		adler32.Registration,
		fletcher32.Registration,
		lz4codec.Registration,
		bz2codec.Registration,
		shuffle.Registration,
		delta.Registration,
		vlen.UTF8Registration,
		vlen.BytesRegistration,
		blosc.Registration,
	}
}

// Registry returns a registry of every bundled codec.
func Registry() *codec.Registry { return codec.NewRegistry(Registrations()...) }
