"""Reference sets made by kerchunk and VirtualiZarr, and their foreign
readers, on the Python environment of the reference implementations
(scripts/python/requirements.txt: kerchunk, virtualizarr, obstore, fsspec,
zarr 3, xarray). Each command is one process for a whole batch.

    virtual.py more NCDIR OUT       the sets the README's walk-through does
                                    not make, into OUT
    virtual.py fsspec SET...        every set read by fsspec's
                                    ReferenceFileSystem and zarr-python 3
    virtual.py xarray URL...        xarray.open_zarr of each dataset URL

The README's walk-through "virtual" makes kerchunk.json, kerchunk.parq,
virtualizarr.json and virtualizarr.parq (the three files joined along
time); the Go test runs it as the README prints it.

`fsspec` and `xarray` print JSON: {SET or URL: {"values": {VAR: hex of its
values, little-endian, C order}, "keys": {KEY: sha256 of its bytes}
(fsspec), "nans": {VAR: NaN after CF decoding} (xarray)} or {"error":
traceback}}. Values are raw: zarr-python applies no CF decoding
and xarray is asked for none (decode_cf=False), which is what
netCDF4-python reads with set_auto_maskandscale(False).
"""

import hashlib
import json
import os
import sys
import traceback
import warnings

import numpy as np

# numcodecs' codecs in a v2 set make zarr-python 3 warn that they are not
# in the v3 specification, once per array: noise here.
warnings.filterwarnings("ignore", message="Numcodecs codecs are not in the Zarr version 3")


def hexof(a):
    a = np.ascontiguousarray(a)
    return a.astype(a.dtype.newbyteorder("<")).tobytes().hex()


# ---------------------------------------------------------------- more


def kerchunk_single(nc, out):
    """kerchunk-single.json: t0.nc alone, chunks under 100 bytes inline
    (kerchunk writes those whose bytes decode as UTF-8 as plain strings,
    the others as base64:)."""
    from kerchunk.hdf import SingleHdf5ToZarr

    path = os.path.abspath(os.path.join(nc, "t0.nc"))
    with open(path, "rb") as f:
        refs = SingleHdf5ToZarr(f, path, inline_threshold=100).translate()
    with open(os.path.join(out, "kerchunk-single.json"), "w") as f:
        json.dump(refs, f)


def kerchunk_records(out):
    """kerchunk-records.parq: the README's joined kerchunk set in the
    Parquet form with 5 chunks a record file, so that arrays span several
    record files, the last one short."""
    from kerchunk.df import refs_to_dataframe

    with open(os.path.join(out, "kerchunk.json")) as f:
        refs = json.load(f)
    refs_to_dataframe(refs, os.path.join(out, "kerchunk-records.parq"), record_size=5)


def virtualizarr_single(nc, out):
    """virtualizarr-single.json and .parq: t0.nc with every variable virtual
    (loadable_variables=[]: coordinates by reference too, not loaded and
    inlined)."""
    from obspec_utils.registry import ObjectStoreRegistry
    from obstore.store import LocalStore
    from virtualizarr import open_virtual_dataset
    from virtualizarr.parsers import HDFParser

    url = "file://" + os.path.abspath(os.path.join(nc, "t0.nc"))
    registry = ObjectStoreRegistry({"file://": LocalStore()})
    vds = open_virtual_dataset(url, registry=registry, parser=HDFParser(), loadable_variables=[])
    vds.vz.to_kerchunk(os.path.join(out, "virtualizarr-single.json"), format="json")
    vds.vz.to_kerchunk(os.path.join(out, "virtualizarr-single.parq"), format="parquet", record_size=5)


def more(nc, out):
    kerchunk_single(nc, out)
    kerchunk_records(out)
    virtualizarr_single(nc, out)


# ---------------------------------------------------------------- readers


def reference_fs(path, **kw):
    """fsspec's ReferenceFileSystem over the set at path, its targets read
    by fsspec's local filesystem.

    fsspec 2026.9 reads a chunk the Parquet form does not have (a row with
    neither path nor raw) as a reference to the URL NaN when a key is read
    alone, as zarr-python 3 reads, and fails in split_protocol with
    "argument of type 'float' is not iterable" (its batched cat handles the
    same row as missing). The one change made to it here: that URL is a
    missing key, FileNotFoundError, so that zarr-python uses the fill value
    there as kerchunk's spec says."""
    import fsspec

    fs = fsspec.filesystem("reference", fo=path, remote_protocol="file", **kw)
    common = fs._cat_common

    def cat_common(key, start=None, end=None):
        url, start1, end1 = common(key, start=start, end=end)
        if isinstance(url, float):  # NaN: no such chunk
            raise FileNotFoundError(key)
        return url, start1, end1

    fs._cat_common = cat_common
    return fs


def read_fsspec(path):
    """The set at path through fsspec's ReferenceFileSystem as a
    zarr-python 3 store: each array's values, and the bytes of every chunk
    key the set has (sha256)."""
    import zarr
    from zarr.storage import FsspecStore

    fs = reference_fs(path, asynchronous=True)
    g = zarr.open_group(FsspecStore(fs, read_only=True), mode="r", zarr_format=2)
    values = {name: hexof(a[...]) for name, a in g.arrays()}
    sync = reference_fs(path)
    keys = {}
    for key in sorted(sync.references):  # for Parquet, its LazyReferenceMapper's keys
        if key.rsplit("/", 1)[-1].startswith("."):
            continue
        try:
            keys[key] = hashlib.sha256(sync.cat_file(key)).hexdigest()
        except FileNotFoundError:
            pass  # a chunk the set does not have (a Parquet row of nulls)
    return {"values": values, "keys": keys}


def read_xarray(url):
    """The dataset at url as xarray opens it: raw values (decode_cf=False),
    and the NaN of each floating-point variable as CF decoding (the
    default) makes them."""
    import xarray

    ds = xarray.open_zarr(url, consolidated=True, decode_cf=False, zarr_format=2)
    values = {name: hexof(v.values) for name, v in ds.variables.items()}
    decoded = xarray.open_zarr(url, consolidated=True, zarr_format=2)
    nans = {name: int(np.isnan(v.values).sum()) for name, v in decoded.variables.items()
            if v.dtype.kind == "f"}
    return {"values": values, "nans": nans}


def each(read, args):
    out = {}
    for a in args:
        try:
            out[a] = read(a)
        except Exception:
            out[a] = {"error": traceback.format_exc(limit=4)}
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")


READERS = {"fsspec": read_fsspec, "xarray": read_xarray}


def main(argv):
    command, args = argv[1] if len(argv) > 1 else "", argv[2:]
    if command == "more" and len(args) == 2:
        more(*args)
    elif command in READERS and args:
        each(READERS[command], args)
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
