"""Reads VAR of a kerchunk reference set whole, as kerchunk's users do:
fsspec's ReferenceFileSystem (local targets) under zarr-python 2; prints
the number of bytes read.
    /usr/bin/python3 bench/references/read_fsspec.py REFS.json VAR"""
import sys

import zarr
from fsspec.implementations.reference import ReferenceFileSystem

fs = ReferenceFileSystem(sys.argv[1], remote_protocol="file")
a = zarr.open_array(fs.get_mapper(sys.argv[2]), mode="r")
print(a[...].nbytes)
