"""Reads fixtures through zarrgw's key API as a static web server, with the
clients that find keys by its index pages (webclients_test.go):

  gdal:   GDAL's Zarr driver (Debian python3-gdal 3.6) through /vsicurl/,
          each array opened by its directory URL, every element read,
          and gdal.ReadDir of that directory (parsed from the index page);
  fsspec: fsspec's HTTPFileSystem find() of a group and cat() of every key
          found, then zarr-python 2 (Debian python3-zarr) open_group() of a
          group URL (no .zmetadata: its members come from the index page),
          its array and group names and every array's elements.

Arrays are summarised by the canonical SHA-256 of expected.json's _format
(numeric and bool elements in C index order, little-endian, the element
size of the data type; bool as one byte 0/1), which the Go test compares
with the fixtures' expected hashes.

usage: /usr/bin/python3 webclients_read.py MANIFEST
MANIFEST (gdal):   {"mode": "gdal", "env": {NAME: VALUE}, "arrays": [{"path", "url", "array"}]}
  prints {"arrays": [{"path", "sha256"?, "shape"?, "dtype"?, "names"?,
                      "readdir"?, "error"?}]}
MANIFEST (fsspec): {"mode": "fsspec", "find_url": URL, "group_url": URL}
  prints {"found": [URL], "cat": {URL: sha256}, "array_keys": [...],
          "group_keys": [...], "arrays": {name: {"sha256"?, "shape"?,
          "error"?}}, "zarr_error"?: str}
Exits 3 when a module cannot be imported.
"""
import hashlib
import json
import os
import sys

try:
    import numpy as np
except ImportError as e:
    print(e, file=sys.stderr)
    sys.exit(3)


def canonical_sha256(a):
    a = np.asarray(a)
    if a.dtype.kind == "b":
        a = a.astype("u1")
    if a.dtype.kind not in "iufc":
        raise ValueError("no canonical hash here for dtype %s" % a.dtype)
    a = a.astype(a.dtype.newbyteorder("<"), copy=False)
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()


def run_gdal(m):
    try:
        from osgeo import gdal
    except ImportError as e:
        print(e, file=sys.stderr)
        sys.exit(3)
    gdal.UseExceptions()
    out = []
    for a in m["arrays"]:
        r = {"path": a["path"]}
        # nothing GDAL read of an earlier array may answer for this one
        gdal.VSICurlClearCache()
        try:
            ds = gdal.OpenEx(a["url"], gdal.OF_MULTIDIM_RASTER)
            if ds is None:
                raise RuntimeError("gdal.OpenEx returned None")
            root = ds.GetRootGroup()
            r["names"] = list(root.GetMDArrayNames() or [])
            arr = root.OpenMDArray(a["array"])
            if arr is None:
                raise RuntimeError("no array %r in %r" % (a["array"], r["names"]))
            v = arr.ReadAsArray()
            r["shape"] = [d.GetSize() for d in arr.GetDimensions()]
            r["dtype"] = str(v.dtype)
            r["sha256"] = canonical_sha256(v)
            r["readdir"] = sorted(gdal.ReadDir(a["url"]) or [])
        except Exception as e:  # noqa: BLE001 - reported, not raised
            r["error"] = repr(e)
        out.append(r)
    return {"arrays": out}


def run_fsspec(m):
    try:
        import fsspec
        import zarr
    except ImportError as e:
        print(e, file=sys.stderr)
        sys.exit(3)
    fs = fsspec.filesystem("http")
    found = sorted(fs.find(m["find_url"]))
    values = fs.cat(found) if found else {}
    out = {
        "found": found,
        "cat": {u: hashlib.sha256(b).hexdigest() for u, b in values.items()},
        "arrays": {},
    }
    try:
        g = zarr.open_group(m["group_url"], mode="r")
        out["store"] = type(g.store).__name__
        out["array_keys"] = sorted(g.array_keys())
        out["group_keys"] = sorted(g.group_keys())
        for name, arr in g.arrays():
            try:
                v = arr[...]
                out["arrays"][name] = {"sha256": canonical_sha256(v), "shape": list(v.shape)}
            except Exception as e:  # noqa: BLE001
                out["arrays"][name] = {"error": repr(e)}
    except Exception as e:  # noqa: BLE001
        out["zarr_error"] = repr(e)
    return out


m = json.load(open(sys.argv[1]))
# GDAL reads its configuration options from the environment as well
os.environ.update(m.get("env", {}))
if m["mode"] == "gdal":
    print(json.dumps(run_gdal(m)))
elif m["mode"] == "fsspec":
    print(json.dumps(run_fsspec(m)))
else:
    sys.exit("unknown mode %r" % m["mode"])
