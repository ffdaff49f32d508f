"""Makes the data of bench/references/run.sh in DIR: big.nc, a NetCDF4 file
by netCDF4-python with two variables over (time 24, lat 721, lon 1440):
t2m, float32, zlib level 1 with shuffle, chunks (1, 361, 720); and tp,
int16, zlib, chunks (1, 91, 180) (1 536 chunks of about 10 KiB); and
refs.json, a kerchunk reference set (version 0) over it from h5py's chunk
index (tests/references/testdata/mkrefs.py's scan).
    /usr/bin/python3 bench/references/make.py DIR"""
import json
import os
import sys

import numpy as np
import netCDF4

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "tests", "references", "testdata"))
import mkrefs  # noqa: E402


def main(d):
    path = os.path.join(d, "big.nc")
    with netCDF4.Dataset(path, "w") as nc:
        nc.createDimension("time", 24)
        nc.createDimension("lat", 721)
        nc.createDimension("lon", 1440)
        lat = np.linspace(-90, 90, 721, dtype="f4")
        lon = np.linspace(0, 359.75, 1440, dtype="f4")
        t2m = nc.createVariable("t2m", "f4", ("time", "lat", "lon"), zlib=True, complevel=1,
                                shuffle=True, chunksizes=(1, 361, 720))
        tp = nc.createVariable("tp", "i2", ("time", "lat", "lon"), zlib=True, complevel=1,
                               chunksizes=(1, 91, 180))
        rng = np.random.default_rng(7)
        for t in range(24):
            field = 280 + 20 * np.cos(np.radians(lat))[:, None] + 5 * np.sin(np.radians(lon + 15 * t))[None, :]
            t2m[t] = (field + rng.normal(0, 0.5, field.shape)).astype("f4")
            tp[t] = (rng.gamma(0.3, 40, field.shape)).astype("i2")
    _, variables = mkrefs.scan(path, "big.nc")
    with open(os.path.join(d, "refs.json"), "w") as f:
        json.dump(mkrefs.to_v0({}, variables), f)


if __name__ == "__main__":
    main(sys.argv[1])
