"""Reads a Zarr array with zarr-python 3 (optionally through the zarrs codec
pipeline) and prints the SHA-256 of its elements, little-endian in C order,
read one slab along the first dimension at a time.

    checksum.py ARRAY_DIR [--zarrs]
"""
import hashlib
import sys

from peers import open_zarr


def main():
    path = sys.argv[1]
    array = open_zarr("zarrs" if "--zarrs" in sys.argv[2:] else "zarr", path)
    step = (array.shards or array.chunks)[0]
    h = hashlib.sha256()
    for start in range(0, array.shape[0], step):
        block = array[start : start + step]
        h.update(block.astype(block.dtype.newbyteorder("<"), copy=False).tobytes(order="C"))
    print(h.hexdigest())


if __name__ == "__main__":
    main()
