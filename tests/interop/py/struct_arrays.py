"""Struct arrays between zarr-python and zarrgw.

write DIR: numpy saves records_be.npy (four records, big endian) and
zarr-python 3 writes a v3 array (its legacy "structured" type)
and a v2 structured array of the record type below, the last element left
to the fill value; prints {path: hex of numpy's little-endian bytes of
every element}.


check DIR: reads what zarrgw wrote (DIR/v3 with the struct type, big
endian; DIR/v2, its v2 copy) and prints {"chunk_bytes_equal": ...,
"v2": [[id, flags, value bits], ..., the fill value] read by this
zarr-python, and "npy": the records of zarrgw's DIR/v3.npy as numpy loads
it}: run by zarr-python
3 and by Debian's zarr-python 2.13 (which has only v2).
"""

import json
import sys

import numpy as np
import zarr

RECORD = np.dtype([("id", "<i4"), ("flags", "u1"), ("value", "<f8")])
FILL = (-1, 3, np.nan)


def values(n):
    return np.array([(i * 1000 - 7, i, i / 3) for i in range(n)], dtype=RECORD)


def write(root):
    import warnings

    warnings.simplefilter("ignore")  # zarr-python 3.1 warns that "structured" has no stable spec
    out = {}
    for fmt in (3, 2):
        path = "%s/zp_v%d" % (root, fmt)
        fill = np.array(FILL, dtype=RECORD)[()]
        a = zarr.create_array(path, shape=(5,), chunks=(2,), dtype=RECORD, fill_value=fill,
                              compressors=None, zarr_format=fmt, overwrite=True)
        a[:4] = values(4)
        whole = np.concatenate([values(4), np.array([FILL], dtype=RECORD)])
        out[path] = whole.tobytes().hex()
    # a big-endian .npy of the first four records, for zarrgw write
    np.save(root + "/records_be.npy", values(4).astype(RECORD.newbyteorder(">")))
    json.dump(out, sys.stdout)


def record(r):
    """A record as [id, flags, the bits of value in hex, little endian]."""
    return [int(r["id"]), int(r["flags"]), np.float64(r["value"]).tobytes().hex()]


def check(root):
    out = {"zarr": zarr.__version__}
    if not zarr.__version__.startswith("2."):
        # zarrgw's v3 chunk 0 holds elements 0 and 1 big endian, field by field.
        with open(root + "/v3/c/0", "rb") as f:
            out["chunk_bytes_equal"] = f.read() == values(2).astype(RECORD.newbyteorder(">")).tobytes()
        # zarrgw cat --format npy of its v3 array: numpy's record type, the records
        got = np.load(root + "/v3.npy")
        out["npy_dtype"] = str(got.dtype)
        out["npy"] = [record(r) for r in got]
    a = zarr.open_array(root + "/v2", mode="r")
    out["v2"] = [record(r) for r in a[:]] + [record(a.fill_value)]
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    {"write": write, "check": check}[sys.argv[1]](sys.argv[2])
