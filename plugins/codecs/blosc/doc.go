// Package blosc is the blosc bytes->bytes codec in pure Go: it reads and
// writes the blosc1 frames that c-blosc 1.x (and so numcodecs, zarr-python,
// zarrs and zarr-java) produce, with every inner compressor (blosclz, lz4,
// lz4hc, snappy, zlib, zstd), byte and bit shuffle, split and unsplit
// blocks and memcpyed frames. c-blosc2 frames (extended headers, filters
// flagged in bit 3) are refused with ErrUnsupported.
//
// The frame layout is described in the project's format digest (section
// 2.6). Decoding trusts the frame header only, never the array metadata,
// because older writers put a typesize in the header that differs from the
// one in the metadata. Every size in a header is checked against the frame,
// against what the compressed bytes could expand to and against the
// caller's limits before anything is allocated; malformed frames give
// errors wrapping codec.ErrCorrupt.
//
// Encoding follows c-blosc 1.21: the same block sizes, the same split rule
// (byte planes compressed separately, except for zstd), raw streams where
// compression does not help and a memcpyed frame when the whole does not
// shrink, so numcodecs reads every frame written here. BloscLZ streams come
// from a greedy single-probe LZ77 encoder written for this package; its
// output differs from c-blosc's bytes but not in format. lz4, lz4hc and
// zlib levels map as in c-blosc; zstd levels map onto the klauspost encoder
// speed classes.
//
// Frames of several blocks are decoded and encoded on several goroutines
// when they are large enough for it to pay. The shuffles have SSE2 kernels
// on amd64 (build tag purego selects the portable ones), and every decode
// can write into a caller's buffer (DecodeInto) to spare the allocation.
package blosc
