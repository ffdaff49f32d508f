"""Writes the cold-read benchmark arrays with Debian's python3-zarr 2.13:
a 256 MiB uint16 array of 8192 x 16384 in 1 MiB chunks of 512 x 1024 (a
chunk's rows are not adjacent in the output), uncompressed and zstd level 1,
and with zstd in 1 MiB chunks of 32 x 16384 (whole rows: each chunk is one
contiguous run of the output).

usage: /usr/bin/python3 make_arrays.py DIR
Writes DIR/raw.zarr, DIR/zstd.zarr and DIR/zstdrows.zarr unless they exist.
"""
import os
import sys

import numcodecs
import numpy as np
import zarr

out = sys.argv[1]
shape, chunks = (8192, 16384), (512, 1024)
rows = np.arange(shape[0], dtype=np.uint32)[:, None]
cols = np.arange(shape[1], dtype=np.uint32)[None, :]
# a smooth field with noise: compressible, not trivially so
data = ((rows * 7 + cols * 3) % 4096).astype(np.uint16)
data += np.random.default_rng(0).integers(0, 64, size=shape, dtype=np.uint16)
for name, compressor, chunking in (
    ("raw", None, chunks),
    ("zstd", numcodecs.Zstd(level=1), chunks),
    ("zstdrows", numcodecs.Zstd(level=1), (32, 16384)),
):
    path = os.path.join(out, name + ".zarr")
    if os.path.exists(os.path.join(path, ".zarray")):
        continue
    a = zarr.open(path, mode="w", shape=shape, chunks=chunking, dtype="<u2", compressor=compressor)
    a[...] = data
