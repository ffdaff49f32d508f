"""Times python3-zarr's first read of a whole array in this (fresh)
process: `a[...]` only, not the import or the open.

usage: /usr/bin/python3 python_first_read.py DIR
Prints the seconds the read took.
"""
import sys
import time

import zarr

a = zarr.open(sys.argv[1], mode="r")
t0 = time.perf_counter()
data = a[...]
print("%.4f" % (time.perf_counter() - t0))
