"""N5 through Debian's zarr-python 2.13 (zarr.n5.N5Store), the reference
N5 writer and reader for the n5_default codec test.

usage: n5_zarr2.py write N5_DIR   writes array "a": uint16, shape (5, 7),
                                  chunks (2, 3), gzip, z[i, j] = 100*i + j + 1
       n5_zarr2.py read N5_DIR    prints array "a" as JSON (nested lists)
"""

import json
import sys

import numcodecs
import numpy as np
import zarr
from zarr.n5 import N5Store


def main():
    mode, path = sys.argv[1], sys.argv[2]
    store = N5Store(path)
    if mode == "write":
        z = zarr.create(shape=(5, 7), chunks=(2, 3), dtype=">u2", store=store, path="a",
                        compressor=numcodecs.GZip(1), fill_value=0, overwrite=True)
        i, j = np.indices((5, 7))
        z[...] = 100 * i + j + 1
    else:
        json.dump(zarr.open_array(store=store, path="a", mode="r")[...].tolist(), sys.stdout)


if __name__ == "__main__":
    main()
