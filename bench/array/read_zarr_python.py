"""Times Debian's python3-zarr reading a whole benchmark array.

usage: /usr/bin/python3 read_zarr_python.py DIR [REPEATS]
Prints one line: <MB/s> (best of REPEATS).
"""
import sys
import time

import zarr

path = sys.argv[1]
repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
a = zarr.open(path, mode="r")
best = float("inf")
for _ in range(repeats):
    t0 = time.perf_counter()
    data = a[:]
    best = min(best, time.perf_counter() - t0)
print("%.1f" % (data.nbytes / best / 1e6))
