"""zarr-python 2 (Debian's python3-zarr) on arrays whose codecs zarrgw
serves through the numcodecs bridge. Commands:

  make DIR          write the arrays (and empty ones for zarrgw to fill)
                    with zarr-python, print each array's values as it
                    decodes them
  read DIR_OR_URL   print each array's values as zarr-python reads them
                    (a URL reads through fsspec's HTTP store)

Values are printed as the hex of their little-endian bytes in C order,
the form `zarrgw cat --format raw` prints, so the comparison is exact.
"""

import json
import sys

import numpy as np
import numcodecs
import zarr

SHAPE, CHUNKS = (20, 30), (8, 8)
# zfpy.mode_fixed_accuracy: with a tolerance, lossy
FIXED_ACCURACY = 4


def values():
    """The float64 values of every float array: smooth, with a few
    specials, reproducible."""
    i, j = np.meshgrid(np.arange(SHAPE[0]), np.arange(SHAPE[1]), indexing="ij")
    v = np.sin(i / 3.0) * 100 + np.cos(j / 5.0) * 10 + i * j / 7.0
    v[0, 0], v[1, 1] = 0.0, -0.0
    return v


LABELS = ["red", "green", "blue", "amber"]


def arrays():
    """name -> (values, zarr.create keyword arguments)."""
    rng = np.random.default_rng(7)
    return {
        "zfpy": (values(), dict(compressor=numcodecs.ZFPY())),
        "zfpy_lossy": (values(), dict(compressor=numcodecs.ZFPY(mode=FIXED_ACCURACY, tolerance=0.01))),
        "packbits": (rng.random(SHAPE) > 0.4, dict(filters=[numcodecs.PackBits()], compressor=None)),
        "categorize": (np.array(LABELS, dtype="<U5")[rng.integers(0, 4, SHAPE)],
                       dict(filters=[numcodecs.Categorize(LABELS, dtype="<U5", astype="|u1")],
                            compressor=numcodecs.Zlib(1))),
        "lzma": ((rng.integers(-2**31, 2**31 - 1, SHAPE)).astype("<i4"), dict(compressor=numcodecs.LZMA(preset=1))),
    }


def hexof(a):
    a = np.asarray(a)
    if a.dtype.byteorder == ">":
        a = a.astype(a.dtype.newbyteorder("<"))
    return np.ascontiguousarray(a).tobytes().hex()


def make(root):
    store = zarr.DirectoryStore(root)
    g = zarr.group(store=store, overwrite=True)
    out = {}
    for name, (v, kw) in arrays().items():
        a = g.create(name, shape=SHAPE, chunks=CHUNKS, dtype=v.dtype, **kw)
        a[...] = v
        out[name] = hexof(g[name][...])
    # Empty arrays zarrgw writes the float values into, and twins this
    # side writes them into: zarr-python's own decoding of the same values.
    for name in ("zfpy", "zfpy_lossy"):
        kw = arrays()[name][1]
        g.create("w_" + name, shape=SHAPE, chunks=CHUNKS, dtype="<f8", fill_value=None, **kw)
        twin = zarr.array(values(), chunks=CHUNKS, dtype="<f8", **kw)
        out["w_" + name] = hexof(twin[...])
    values().astype("<f8").tofile(root + "/values.f64")
    print(json.dumps(out))


def read(where):
    if where.startswith("http"):
        store = zarr.storage.FSStore(where, mode="r")
    else:
        store = zarr.DirectoryStore(where)
    g = zarr.open_group(store=store, mode="r")
    print(json.dumps({name: hexof(a[...]) for name, a in g.arrays()}))


if __name__ == "__main__":
    {"make": make, "read": read}[sys.argv[1]](sys.argv[2])
