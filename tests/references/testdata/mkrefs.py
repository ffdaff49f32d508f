#!/usr/bin/python3
"""Fixtures for the references store: NetCDF4 files, kerchunk reference sets
over them, and the values they must read as.

    mkrefs.py files DIR                 NetCDF4 files t0.nc t1.nc t2.nc and gen.bin
    mkrefs.py refs DIR URLPREFIX OUT    reference sets and expected values
    mkrefs.py oracle REFS.json [ROOT]   values read through fsspec + zarr-python
    mkrefs.py oracle-remote REFS PROTO  the same, fsspec fetching the targets
                                        itself over PROTO (http: aiohttp)

Runs on Debian's python3 (python3-netcdf4, python3-h5py, python3-zarr 2,
python3-fsspec, python3-numcodecs, numpy); kerchunk is not packaged there, so
`refs` does, small and readable, what kerchunk's SingleHdf5ToZarr (one file)
and MultiZarrToZarr (files joined along time) do: the chunk index comes from
h5py's low-level dataset API, the same calls kerchunk makes.

`refs` writes into OUT:
  single-v0.json       version 0 (a plain mapping) for t0.nc
  joined-v0.json       version 0, t0..t2 joined along time, plus `gen`
  joined-v1.json       the same dataset in version 1: "templates" {"u": URLPREFIX},
                       refs with "{{u}}tN.nc", and a "gen" entry
  expected-single.json values of single-v0.json's arrays
  expected.json        values of the joined sets' arrays
Expected values are what netCDF4-python reads with auto mask and scale off
(raw stored values, fill values included), printed as
{"var": {"dtype": "<f4", "shape": [..], "hex": little-endian C-order bytes}};
`oracle` prints the same form, so comparing is comparing JSON.

URLPREFIX is joined to a file's name as a string: "s3://bucket/nc/",
"https://host/nc/" or "/abs/dir/" (keep the trailing slash).
"""

import base64
import json
import os
import sys
from collections.abc import MutableMapping

import numpy as np

NFILES = 3
NTIME, NLAT, NLON = 2, 37, 53  # per file
FILES = ["t%d.nc" % i for i in range(NFILES)]

# gen.bin: a variable no NetCDF file gives us, since a compressed variable's
# chunks have varying lengths and so never follow an offset pattern (checked
# by pattern_gen below). Fixed-size raw int32 chunks, back to back, so that
# chunk i is at i * GEN_CHUNK_BYTES: what kerchunk's "gen" entries describe.
GEN_FILE = "gen.bin"
GEN_CHUNK = 1024  # int32 elements per chunk
GEN_CHUNK_BYTES = GEN_CHUNK * 4
GEN_NCHUNKS = 8

# kerchunk inlines chunks shorter than its inline_threshold (100 bytes by
# default); we inline those under 64 bytes and every chunk of a coordinate
# variable (a dimension scale), which a reader needs whole anyway.
INLINE_BELOW = 64

# Attributes netCDF-4 and HDF5 dimension scales keep for themselves; kerchunk's
# SingleHdf5ToZarr drops the same set (its _HIDDEN_ATTRS).
HIDDEN_ATTRS = {
    "REFERENCE_LIST", "CLASS", "DIMENSION_LIST", "NAME", "_Netcdf4Dimid",
    "_Netcdf4Coordinates", "_nc3_strict", "_NCProperties", "_FillValue",
}


# ---------------------------------------------------------------- files


def make_files(d):
    """Writes t0.nc..t2.nc with netCDF4-python, and gen.bin.

    Each file: time (2), lat (37), lon (53) with coordinate variables, and
      temp   float32 (time,lat,lon) chunks (1,16,16), zlib 4 + shuffle,
             _FillValue -9999 with some masked points written as fill;
      precip float64 big-endian (time,lat,lon) chunks (2,20,27), zlib 6, no
             shuffle, no _FillValue attribute (the netCDF default fill applies);
      count  int16 (time,lat,lon) chunks (1,37,53), zlib 2 + shuffle,
             scale_factor/add_offset, _FillValue -32767; in t1.nc only its
             first time step is written, so its second chunk is never
             allocated and must read as the fill value;
      elev   float32 (lat,lon) contiguous, uncompressed, equal in every file.
    Values come from a generator seeded per file, so they are the same on
    every run.
    """
    import netCDF4

    os.makedirs(d, exist_ok=True)
    elev = np.random.default_rng(1000).normal(500, 200, (NLAT, NLON)).astype("f4")
    for n, name in enumerate(FILES):
        rng = np.random.default_rng(n)
        with netCDF4.Dataset(os.path.join(d, name), "w", format="NETCDF4") as nc:
            nc.title = "zarrgw references fixture %s" % name
            nc.Conventions = "CF-1.8"
            nc.file_index = np.int32(n)
            nc.createDimension("time", NTIME)
            nc.createDimension("lat", NLAT)
            nc.createDimension("lon", NLON)

            t = nc.createVariable("time", "f8", ("time",))
            t.units = "hours since 2000-01-01 00:00:00"
            t.calendar = "standard"
            t.standard_name = "time"
            t[:] = np.arange(n * NTIME, (n + 1) * NTIME) * 6.0
            la = nc.createVariable("lat", "f4", ("lat",))
            la.units = "degrees_north"
            la[:] = np.linspace(-90, 90, NLAT, dtype="f4")
            lo = nc.createVariable("lon", "f4", ("lon",))
            lo.units = "degrees_east"
            lo[:] = np.linspace(0, 360, NLON, endpoint=False, dtype="f4")

            temp = nc.createVariable(
                "temp", "f4", ("time", "lat", "lon"), zlib=True, complevel=4,
                shuffle=True, chunksizes=(1, 16, 16), fill_value=np.float32(-9999.0))
            temp.units = "K"
            temp.long_name = "air temperature"
            tv = rng.normal(280, 15, (NTIME, NLAT, NLON)).astype("f4")
            # Masked points (about 10% of them) are written as _FillValue.
            temp[:] = np.ma.masked_array(tv, mask=rng.random(tv.shape) < 0.1)

            precip = nc.createVariable(
                "precip", ">f8", ("time", "lat", "lon"), zlib=True, complevel=6,
                shuffle=False, chunksizes=(2, 20, 27), endian="big")
            precip.units = "mm"
            precip[:] = rng.gamma(0.5, 3.0, (NTIME, NLAT, NLON))

            count = nc.createVariable(
                "count", "i2", ("time", "lat", "lon"), zlib=True, complevel=2,
                shuffle=True, chunksizes=(1, NLAT, NLON), fill_value=np.int16(-32767))
            count.scale_factor = np.float32(0.5)
            count.add_offset = np.float32(10.0)
            count.long_name = "observation count"
            cv = rng.integers(-2000, 2000, (NTIME, NLAT, NLON)).astype("i2")
            cv[:, ::7, ::5] = -32767  # raw fill values, written as such
            count.set_auto_maskandscale(False)
            if n == 1:
                count[0] = cv[0]  # count's chunk 1.0.0 is never allocated
            else:
                count[:] = cv

            el = nc.createVariable("elev", "f4", ("lat", "lon"), contiguous=True)
            el.units = "m"
            el[:] = elev

    gen = np.random.default_rng(2000).integers(
        -2**31, 2**31 - 1, GEN_CHUNK * GEN_NCHUNKS, dtype="<i4")
    with open(os.path.join(d, GEN_FILE), "wb") as f:
        f.write(gen.tobytes())


# ---------------------------------------------------------------- one file


def jsonable(v):
    """An HDF5 attribute value as JSON, as kerchunk's _transfer_attrs makes it:
    bytes decoded, numpy scalars and arrays as Python numbers and lists."""
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, np.ndarray):
        if v.size == 1 and v.ndim <= 1:
            return jsonable(v.reshape(())[()])
        return [jsonable(x) for x in v.tolist()]
    if isinstance(v, np.generic):
        return v.item()
    return v


def fill_value(dset):
    """The .zarray fill_value: the variable's _FillValue, else the HDF5 fill
    value property (what a reader gets from an unallocated chunk; netCDF-4
    sets it to the netCDF default fill). kerchunk takes h5py's fillvalue."""
    if "_FillValue" in dset.attrs:
        v = dset.attrs["_FillValue"]
    else:
        v = dset.fillvalue
    v = np.asarray(v).reshape(())[()]
    return v.item() if isinstance(v, np.generic) else v


def codecs(dset):
    """Zarr v2 compressor and filters from the HDF5 filter pipeline, as
    kerchunk's _decode_filters does. When writing, HDF5 runs shuffle before
    deflate, so reading runs inflate then unshuffle: in Zarr v2 terms shuffle
    is a filter and zlib the compressor (filters run before the compressor on
    encode, after it on decode)."""
    if dset.fletcher32 or dset.scaleoffset or (
            dset.compression not in (None, "gzip")):
        raise SystemExit("%s: filter pipeline not supported here" % dset.name)
    compressor = None
    if dset.compression == "gzip":
        compressor = {"id": "zlib", "level": int(dset.compression_opts)}
    filters = None
    if dset.shuffle:
        filters = [{"id": "shuffle", "elementsize": dset.dtype.itemsize}]
    return compressor, filters


def dims_of(dset):
    """_ARRAY_DIMENSIONS from the HDF5 dimension scales attached to dset, as
    kerchunk's _get_array_dims does; a dimension scale is its own dimension."""
    import h5py

    if h5py.h5ds.is_scale(dset.id):
        return [dset.name.lstrip("/")]
    names = []
    for i, dim in enumerate(dset.dims):
        if len(dim) == 0:
            names.append("phony_dim_%d" % i)
        else:
            names.append(dim[0].name.lstrip("/"))
    return names


def chunk_index(dset):
    """{chunk grid index: (byte offset, stored length)} of dset, from h5py's
    chunk index (kerchunk's _storage_info): get_chunk_info for chunked
    datasets, get_offset and get_storage_size for a contiguous one, which is
    a single chunk as big as the array. Unallocated chunks are absent."""
    dsid = dset.id
    if dset.chunks is None:
        off = dsid.get_offset()
        if off is None:
            return {}
        return {(0,) * dset.ndim: (off, dsid.get_storage_size())}
    out = {}
    for i in range(dsid.get_num_chunks()):
        info = dsid.get_chunk_info(i)
        idx = tuple(o // c for o, c in zip(info.chunk_offset, dset.chunks))
        out[idx] = (info.byte_offset, info.size)
    return out


class Var:
    """One array of a reference set: its .zarray and .zattrs, and chunks
    {grid index: [url, offset, length] or bytes to inline}."""

    def __init__(self, name, zarray, zattrs, chunks):
        self.name, self.zarray, self.zattrs, self.chunks = name, zarray, zattrs, chunks


def scan(path, url):
    """Root attributes and the Vars of one HDF5/NetCDF4 file; mirrors kerchunk's
    SingleHdf5ToZarr.translate for a flat file of numeric datasets."""
    import h5py

    variables = {}
    with h5py.File(path, "r") as f, open(path, "rb") as raw:
        root_attrs = {k: jsonable(v) for k, v in f.attrs.items() if k not in HIDDEN_ATTRS}
        for name, dset in f.items():
            if not isinstance(dset, h5py.Dataset):
                continue
            compressor, filters = codecs(dset)
            zarray = {
                "zarr_format": 2,
                "shape": list(dset.shape),
                "chunks": list(dset.chunks or dset.shape),
                "dtype": dset.dtype.str,  # the file's byte order
                "fill_value": fill_value(dset),
                "order": "C",
                "compressor": compressor,
                "filters": filters,
            }
            zattrs = {k: jsonable(v) for k, v in dset.attrs.items() if k not in HIDDEN_ATTRS}
            zattrs["_ARRAY_DIMENSIONS"] = dims_of(dset)
            coord = h5py.h5ds.is_scale(dset.id)
            chunks = {}
            for idx, (off, size) in chunk_index(dset).items():
                if coord or size < INLINE_BELOW:
                    raw.seek(off)
                    chunks[idx] = raw.read(size)
                else:
                    chunks[idx] = [url, off, size]
            variables[name] = Var(name, zarray, zattrs, chunks)
    return root_attrs, variables


def key(name, idx):
    return "%s/%s" % (name, ".".join(str(i) for i in idx))


def inline(b):
    """An inline value: kerchunk writes "base64:..." for bytes that are not
    text; we always do, so every inline chunk takes the base64 path."""
    return "base64:" + base64.b64encode(b).decode()


def to_v0(root_attrs, variables):
    """A version 0 reference set: one mapping of Zarr keys to JSON strings
    (metadata), inline data or [url, offset, length]."""
    refs = {
        ".zgroup": json.dumps({"zarr_format": 2}),
        ".zattrs": json.dumps(root_attrs, sort_keys=True),
    }
    for v in variables.values():
        refs[v.name + "/.zarray"] = json.dumps(v.zarray, sort_keys=True)
        refs[v.name + "/.zattrs"] = json.dumps(v.zattrs, sort_keys=True)
        for idx, c in sorted(v.chunks.items()):
            refs[key(v.name, idx)] = inline(c) if isinstance(c, bytes) else c
    return refs


# ---------------------------------------------------------------- joining


def join(scanned):
    """Files joined along time, as kerchunk's MultiZarrToZarr(concat_dims=
    ["time"], identical_dims=["lat", "lon"]) does: variables without a time
    dimension come from the first file; a time variable's chunk (f, i, ...)
    of file f becomes chunk (f * chunks_per_file + i, ...); the time
    coordinate is rewritten as one inline chunk of all its values."""
    root_attrs, first = scanned[0]
    out = {}
    for name, v in first.items():
        dims = v.zattrs["_ARRAY_DIMENSIONS"]
        if "time" not in dims:
            out[name] = v
            continue
        ax = dims.index("time")
        per_file, ct = v.zarray["shape"][ax], v.zarray["chunks"][ax]
        if per_file % ct:
            raise SystemExit("%s: time chunk %d does not divide %d" % (name, ct, per_file))
        zarray = dict(v.zarray, shape=list(v.zarray["shape"]))
        zarray["shape"][ax] = per_file * len(scanned)
        chunks = {}
        for f, (_, variables) in enumerate(scanned):
            for idx, c in variables[name].chunks.items():
                idx = list(idx)
                idx[ax] += f * (per_file // ct)
                chunks[tuple(idx)] = c
        if name == "time":
            # Each file's time chunks are inline bytes (a coordinate).
            values = b"".join(chunks[(i,)] for i in range(len(chunks)))
            zarray["chunks"][ax] = zarray["shape"][ax]
            chunks = {(0,): values}
        out[name] = Var(name, zarray, v.zattrs, chunks)
    return root_attrs, out


def gen_var(url):
    """The `gen` variable over gen.bin: int32 chunks of GEN_CHUNK elements,
    chunk i at i * GEN_CHUNK_BYTES."""
    zarray = {
        "zarr_format": 2, "shape": [GEN_CHUNK * GEN_NCHUNKS], "chunks": [GEN_CHUNK],
        "dtype": "<i4", "fill_value": 0, "order": "C", "compressor": None, "filters": None,
    }
    zattrs = {"_ARRAY_DIMENSIONS": ["gen_i"], "long_name": "synthetic raw chunks"}
    chunks = {(i,): [url, i * GEN_CHUNK_BYTES, GEN_CHUNK_BYTES] for i in range(GEN_NCHUNKS)}
    return Var("gen", zarray, zattrs, chunks)


def pattern_gen(v):
    """A version 1 gen entry for v if all its chunks are in one file, equally
    long, complete, and each chunk's offset is base + (C-order chunk number)
    * length; else None. Compressed chunks vary in length, so NetCDF
    variables rarely qualify; the `gen` variable over gen.bin does."""
    grid = [-(-s // c) for s, c in zip(v.zarray["shape"], v.zarray["chunks"])]
    if len(v.chunks) < 2 or len(v.chunks) != int(np.prod(grid)):
        return None
    refs = [v.chunks[idx] for idx in sorted(v.chunks)]
    if any(isinstance(r, bytes) for r in refs):
        return None
    url, base, length = refs[0]
    if any(r[0] != url or r[2] != length or r[1] != base + n * length
           for n, r in enumerate(refs)):
        return None
    names = "ijklmn"[:len(grid)]
    # C order: the last index varies fastest.
    number, stride = [], 1
    for name, n in reversed(list(zip(names, grid))):
        number.append("%s * %d" % (name, stride) if stride > 1 else name)
        stride *= n
    expr = " + ".join(reversed(number))
    if len(number) > 1:
        expr = "(%s)" % expr
    return {
        "key": v.name + "/" + ".".join("{{%s}}" % n for n in names),
        "url": url,
        "offset": "{{%d + %s * %d}}" % (base, expr, length) if base else
                  "{{%s * %d}}" % (expr, length),
        "length": str(length),
        "dimensions": {n: {"stop": g} for n, g in zip(names, grid)},
    }


def to_v1(root_attrs, variables, prefix):
    """A version 1 reference set: templates {"u": prefix} with URLs written
    "{{u}}name", and gen entries for variables whose chunks follow a pattern
    (their chunks then appear in no plain ref)."""
    def templ(ref):
        url = ref[0]
        assert url.startswith(prefix), url
        return ["{{u}}" + url[len(prefix):]] + ref[1:]

    tvars, gens = {}, []
    for v in variables.values():
        tv = Var(v.name, v.zarray, v.zattrs,
                 {i: c if isinstance(c, bytes) else templ(c) for i, c in v.chunks.items()})
        g = pattern_gen(tv)
        if g is not None:
            gens.append(g)
            tv.chunks = {}
        tvars[v.name] = tv
    return {"version": 1, "templates": {"u": prefix}, "gen": gens,
            "refs": to_v0(root_attrs, tvars)}


# ---------------------------------------------------------------- values


def values_json(arrays):
    """{name: {"dtype", "shape", "hex"}} with values as little-endian C-order
    bytes: the one form both expected.json and the oracle print."""
    out = {}
    for name, a in sorted(arrays.items()):
        a = np.ascontiguousarray(a)
        a = a.astype(a.dtype.newbyteorder("<"))
        out[name] = {"dtype": a.dtype.str, "shape": list(a.shape), "hex": a.tobytes().hex()}
    return out


def netcdf_values(paths):
    """Each variable as netCDF4-python reads it with auto mask and scale off
    (raw stored values), joined along time across paths."""
    import netCDF4

    parts = {}
    for p in paths:
        with netCDF4.Dataset(p) as nc:
            nc.set_auto_maskandscale(False)
            for name, var in nc.variables.items():
                parts.setdefault(name, []).append((var.dimensions, np.asarray(var[...])))
    out = {}
    for name, ps in parts.items():
        dims = ps[0][0]
        if "time" in dims:
            out[name] = np.concatenate([a for _, a in ps], axis=dims.index("time"))
        else:
            out[name] = ps[0][1]
    return out


def write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=1, sort_keys=True)
        f.write("\n")


def make_refs(d, prefix, out):
    """The reference sets and expected values (see the module docstring)."""
    os.makedirs(out, exist_ok=True)
    scanned = [scan(os.path.join(d, name), prefix + name) for name in FILES]
    write_json(os.path.join(out, "single-v0.json"), to_v0(*scanned[0]))

    root_attrs, joined = join(scanned)
    patterned = [v.name for v in joined.values() if pattern_gen(v)]
    joined["gen"] = gen_var(prefix + GEN_FILE)
    v0 = to_v0(root_attrs, joined)
    v1 = to_v1(root_attrs, joined, prefix)
    write_json(os.path.join(out, "joined-v0.json"), v0)
    write_json(os.path.join(out, "joined-v1.json"), v1)

    write_json(os.path.join(out, "expected-single.json"),
               values_json(netcdf_values([os.path.join(d, FILES[0])])))
    expected = netcdf_values([os.path.join(d, n) for n in FILES])
    expected["gen"] = np.fromfile(os.path.join(d, GEN_FILE), dtype="<i4")
    write_json(os.path.join(out, "expected.json"), values_json(expected))

    def counts(refs):
        chunks = [k for k in refs if not k.rsplit("/", 1)[-1].startswith(".")]
        inl = [k for k in chunks if isinstance(refs[k], str)]
        return "%d keys, %d chunk keys, %d inline chunks" % (len(refs), len(chunks), len(inl))

    print("single-v0.json: " + counts(to_v0(*scanned[0])))
    print("joined-v0.json: " + counts(v0))
    print("joined-v1.json: %s, %d gen entries (%s)" % (
        counts(v1["refs"]), len(v1["gen"]), ", ".join(g["key"] for g in v1["gen"])))
    print("NetCDF variables whose chunks follow an offset pattern: %s" % (
        ", ".join(patterned) or "none"))


# ---------------------------------------------------------------- oracle


class OneByOne(MutableMapping):
    """A read-only mapping over an fsspec mapper that zarr reads one key at a
    time. fsspec 2022.11's ReferenceFileSystem.cat raises KeyError for a
    batch containing a key the set does not have (an unallocated chunk, such
    as count/3.0.0 of the joined set) instead of leaving it out as
    FSMap.getitems(on_error="omit") asks; zarr-python 2 would then fail
    where it must use the fill value. Given a plain mapping, zarr wraps it in
    a KVStore and asks for each chunk with __getitem__, where a missing key is
    a KeyError, which zarr reads as "use fill_value"."""

    def __init__(self, m):
        self.m = m

    def __getitem__(self, k):
        return self.m[k]

    def __contains__(self, k):
        return k in self.m

    def __iter__(self):
        return iter(self.m)

    def __len__(self):
        return len(self.m)

    def __setitem__(self, k, v):
        raise PermissionError("read-only reference set")

    def __delitem__(self, k):
        raise PermissionError("read-only reference set")


def oracle(refs_path, target_root=None):
    """Reads every array of a reference set through fsspec's
    ReferenceFileSystem and zarr-python 2, the way kerchunk users do, and
    prints values_json of them.

    With target_root, each reference's URL (after fsspec has expanded
    templates and gen entries) is replaced by target_root/<its file name>,
    so that a set made for s3:// or https:// reads the same files locally;
    remote_protocol="file" keeps fsspec from loading s3fs or aiohttp."""
    import zarr
    from fsspec.implementations.reference import ReferenceFileSystem

    fs = ReferenceFileSystem(refs_path, remote_protocol="file")
    if target_root is not None:
        for k, ref in fs.references.items():
            if isinstance(ref, list) and ref and ref[0]:
                ref[0] = os.path.join(target_root, ref[0].rstrip("/").rsplit("/", 1)[-1])
    g = zarr.open_group(OneByOne(fs.get_mapper("")), mode="r")
    arrays = {name: a[...] for name, a in g.arrays()}
    json.dump(values_json(arrays), sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


def oracle_remote(refs_path, protocol):
    """Like oracle, but the targets are read where the set says they are,
    by fsspec's own filesystem for protocol (HTTPFileSystem, on aiohttp,
    for "http"): an independent reader of remote targets to hold zarrgw's
    against. REFS may itself be a URL of that protocol."""
    import zarr
    from fsspec.implementations.reference import ReferenceFileSystem

    fs = ReferenceFileSystem(refs_path, remote_protocol=protocol, target_protocol=refs_path.split("://")[0] if "://" in refs_path else None)
    g = zarr.open_group(OneByOne(fs.get_mapper("")), mode="r")
    arrays = {name: a[...] for name, a in g.arrays()}
    json.dump(values_json(arrays), sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


def main(argv):
    if len(argv) == 3 and argv[1] == "files":
        make_files(argv[2])
    elif len(argv) == 5 and argv[1] == "refs":
        make_refs(argv[2], argv[3], argv[4])
    elif len(argv) in (3, 4) and argv[1] == "oracle":
        oracle(argv[2], argv[3] if len(argv) == 4 else None)
    elif len(argv) == 4 and argv[1] == "oracle-remote":
        oracle_remote(argv[2], argv[3])
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
