// Package blosc is the blosc bytes->bytes codec in pure Go: it reads and
// writes the blosc1 frames that c-blosc 1.x (and so numcodecs, zarr-python,
// zarrs and zarr-java) produce, with every inner compressor (blosclz, lz4,
// lz4hc, snappy, zlib, zstd), byte and bit shuffle, split and unsplit
// blocks and memcpyed frames.
//
// The frame layout is described in the project's format digest (section
// 2.6). Decoding trusts the frame header only, never the array metadata,
// because older writers put a typesize in the header that differs from the
// one in the metadata. Every size in a header is checked against the frame
// and against the caller's limits before anything is allocated.
package blosc
