"""Opens Zarr hierarchies with xarray.open_zarr and prints what it sees as JSON.

Usage: /usr/bin/python3 xarray_open.py MANIFEST
MANIFEST: {"cases": [{"name", "url", "consolidated": true|false|null}]}
Each case is opened with xarray.open_zarr(url, consolidated=...,
chunks=None) (no dask needed), and every variable (data variables and
coordinates) is read whole.
Output (stdout): {"xarray": VERSION, "zarr": VERSION, "results": [{"name",
  "error"?, "attrs", "coords": [NAME...], "variables": {NAME: {"dims",
  "shape", "dtype", "attrs", "values"}}}]}
Elements are listed in C order: numbers as strings (repr of the exact
float, or the integer), str as str.
Exits with status 3 when xarray (or zarr) cannot be imported.
"""
import json
import sys

try:
    import numpy as np
    import xarray as xr
    import zarr
    from values import scalar
except ImportError as e:  # reported by the Go test with what to install
    print("import failed: %s" % e, file=sys.stderr)
    sys.exit(3)


def plain(v):
    """An attribute value as JSON can hold it."""
    if isinstance(v, np.ndarray):
        return [plain(x) for x in v.tolist()]
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, dict):
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, np.generic):
        return v.item()
    return v


def open_case(case):
    ds = xr.open_zarr(case["url"], consolidated=case["consolidated"], chunks=None)
    out = {"attrs": plain(dict(ds.attrs)), "coords": sorted(str(c) for c in ds.coords), "variables": {}}
    for name, var in ds.variables.items():
        values = np.asarray(var.values)
        out["variables"][str(name)] = {
            "dims": [str(d) for d in var.dims],
            "shape": list(values.shape),
            "dtype": str(values.dtype),
            "attrs": plain(dict(var.attrs)),
            "values": [scalar(x) for x in values.ravel(order="C").tolist()],
        }
    ds.close()
    return out


def main():
    with open(sys.argv[1]) as f:
        manifest = json.load(f)
    results = []
    for case in manifest["cases"]:
        r = {"name": case["name"]}
        try:
            r.update(open_case(case))
        except Exception as e:  # reported per case by the Go test
            r["error"] = "%s: %s" % (type(e).__name__, e)
        results.append(r)
    json.dump({"xarray": xr.__version__, "zarr": zarr.__version__, "results": results}, sys.stdout)


main()
