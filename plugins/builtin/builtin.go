// Package builtin lists every extension bundled with zarrgw: codecs,
// stores and storage transformers, each by the registration its package
// exports. Adding an extension to zarrgw is its package plus one line
// here; the host (host/runtime/registry) reads these lists for everything else:
// opening by name, serving as a plugin, checking configuration, listing,
// and LOCATION URLs.
package builtin

import (
	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/core/transformer"
	"github.com/zarrgw/zarrgw/plugins/codecs/adler32"
	"github.com/zarrgw/zarrgw/plugins/codecs/bitround"
	"github.com/zarrgw/zarrgw/plugins/codecs/blosc"
	"github.com/zarrgw/zarrgw/plugins/codecs/bytescodec"
	"github.com/zarrgw/zarrgw/plugins/codecs/bz2codec"
	"github.com/zarrgw/zarrgw/plugins/codecs/castvalue"
	"github.com/zarrgw/zarrgw/plugins/codecs/conditional"
	"github.com/zarrgw/zarrgw/plugins/codecs/crc32"
	"github.com/zarrgw/zarrgw/plugins/codecs/crc32c"
	"github.com/zarrgw/zarrgw/plugins/codecs/delta"
	"github.com/zarrgw/zarrgw/plugins/codecs/fixedscaleoffset"
	"github.com/zarrgw/zarrgw/plugins/codecs/fletcher32"
	"github.com/zarrgw/zarrgw/plugins/codecs/gzipcodec"
	"github.com/zarrgw/zarrgw/plugins/codecs/json2"
	"github.com/zarrgw/zarrgw/plugins/codecs/lz4codec"
	"github.com/zarrgw/zarrgw/plugins/codecs/n5default"
	"github.com/zarrgw/zarrgw/plugins/codecs/packbits"
	"github.com/zarrgw/zarrgw/plugins/codecs/quantize"
	"github.com/zarrgw/zarrgw/plugins/codecs/reshape"
	"github.com/zarrgw/zarrgw/plugins/codecs/scaleoffset"
	"github.com/zarrgw/zarrgw/plugins/codecs/sharding"
	"github.com/zarrgw/zarrgw/plugins/codecs/shuffle"
	"github.com/zarrgw/zarrgw/plugins/codecs/transpose"
	"github.com/zarrgw/zarrgw/plugins/codecs/vlen"
	"github.com/zarrgw/zarrgw/plugins/codecs/zlibcodec"
	"github.com/zarrgw/zarrgw/plugins/codecs/zstdcodec"
	"github.com/zarrgw/zarrgw/plugins/stores/azurestore"
	"github.com/zarrgw/zarrgw/plugins/stores/fsstore"
	"github.com/zarrgw/zarrgw/plugins/stores/httpstore"
	"github.com/zarrgw/zarrgw/plugins/stores/references"
	"github.com/zarrgw/zarrgw/plugins/stores/s3store"
	"github.com/zarrgw/zarrgw/plugins/transformers/cache"
	"github.com/zarrgw/zarrgw/plugins/transformers/shardtransformer"
)

// Codecs returns the registration of every bundled codec.
func Codecs() []codec.Registration {
	return []codec.Registration{
		// array->bytes
		bytescodec.Registration,
		vlen.UTF8Registration,
		vlen.BytesRegistration,
		json2.Registration,
		packbits.Registration,
		// array->array
		transpose.Registration,
		delta.Registration,
		fixedscaleoffset.Registration,
		quantize.Registration,
		bitround.Registration,
		castvalue.Registration,
		scaleoffset.Registration,
		reshape.Registration,
		// bytes->bytes: compressors
		gzipcodec.Registration,
		zlibcodec.Registration,
		zstdcodec.Registration,
		lz4codec.Registration,
		bz2codec.Registration,
		shuffle.Registration,
		// bytes->bytes: checksums
		crc32c.Registration,
		crc32.Registration,
		adler32.Registration,
		fletcher32.Registration,
		// Codecs maintained in their own packages are added below:
		// blosc here, sharding_indexed next to it.
		blosc.Registration,
		sharding.Registration,
		conditional.Registration,
		n5default.Registration,
	}
}

// Stores returns the registration of every bundled store type.
func Stores() []store.Registration {
	return []store.Registration{
		fsstore.Registration,
		s3store.Registration,
		azurestore.Registration,
		httpstore.Registration,
		references.Registration,
	}
}

// Transformers returns the registration of every bundled storage
// transformer.
func Transformers() []transformer.Registration {
	return []transformer.Registration{
		shardtransformer.Registration,
		cache.Registration,
	}
}

// Registry returns a registry of every bundled codec.
func Registry() *codec.Registry { return codec.NewRegistry(Codecs()...) }

// Unbundled names registered codecs that zarrgw does not bundle, with the
// reason, for the message that says a codec is not available (a plugin
// serving one still serves it).
func Unbundled() map[string]string {
	return map[string]string{
		// The registry's zfp is the zfp library's stream without a header;
		// no Go implementation of zfp exists that we could check against the
		// library (zfp's embedded coding must match it bit for bit), so the
		// numcodecs bridge serves it, running the zfp library's zfpy.
		"zfp": `zarrgw bundles no zfp (there is no sound pure-Go zfp implementation): the numcodecs bridge serves it ` +
			`with Debian's python3-zfpy; declare it in the configuration: ` +
			`plugin "zarrgw.dev/python/numcodecs" { path = ".../plugins/python/numcodecs/zarrgw-plugin-numcodecs" }`,
	}
}
