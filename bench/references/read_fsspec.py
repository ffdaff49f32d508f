"""Reads VAR of a kerchunk reference set whole, as kerchunk's users do:
fsspec's ReferenceFileSystem under zarr-python 2, targets local files
(PROTOCOL file, the default) or http:// URLs (http, through aiohttp);
prints the number of bytes read.
    /usr/bin/python3 bench/references/read_fsspec.py REFS.json VAR [PROTOCOL]"""
import sys

import zarr
from fsspec.implementations.reference import ReferenceFileSystem

protocol = sys.argv[3] if len(sys.argv) > 3 else "file"
fs = ReferenceFileSystem(sys.argv[1], remote_protocol=protocol)
a = zarr.open_array(fs.get_mapper(sys.argv[2]), mode="r")
print(a[...].nbytes)
