"""Foreign clients of a referenced dataset served by zarrgw, each printing
{variable: hex of its values, little-endian, C order} as JSON (the form of
mkrefs.py's expected.json).
    /usr/bin/python3 clients.py xarray URL     xarray.open_zarr over the key API
                                               (its consolidated metadata), CF
                                               decoding off: raw values"""
import json
import sys

import numpy as np


def hexof(a):
    a = np.ascontiguousarray(a)
    return a.astype(a.dtype.newbyteorder("<")).tobytes().hex()


def with_xarray(url):
    import xarray

    ds = xarray.open_zarr(url, consolidated=True, decode_cf=False)
    print(json.dumps({name: hexof(v.values) for name, v in ds.variables.items()}))


if __name__ == "__main__":
    {"xarray": with_xarray}[sys.argv[1]](sys.argv[2])
