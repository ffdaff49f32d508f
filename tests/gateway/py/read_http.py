"""Reads Zarr v2 arrays with Debian's python3-zarr from a directory and
through zarrgw's key API (fsspec's HTTP filesystem), and says whether each
reads the same both ways; then opens a group through the gateway's
consolidated metadata built on the fly and reads its arrays.

usage: /usr/bin/python3 read_http.py MANIFEST
MANIFEST: {"root": DIR, "url": URL/, "arrays": ["a/b", ...],
           "cons_root": DIR, "cons_url": URL/}
Prints {"results": [{"path", "equal"?, "local_error"?, "http_error"?}],
        "consolidated": [{"path", "equal"?, "http_error"?}],
        "consolidated_error"?: str}
Exits 3 when zarr cannot be imported.
"""
import json
import os
import sys

try:
    import numpy as np
    import zarr
    from zarr.storage import FSStore
except ImportError as e:
    print(e, file=sys.stderr)
    sys.exit(3)


def same(a, b):
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind in "fc":
        return bool(np.array_equal(a, b, equal_nan=True))
    if a.dtype.kind == "O":
        return a.tolist() == b.tolist()
    return bool(np.array_equal(a, b))


def remote(url):
    return zarr.open_array(FSStore(url, mode="r"), mode="r")[...]


m = json.load(open(sys.argv[1]))
results = []
for p in m["arrays"]:
    r = {"path": p}
    try:
        local = zarr.open_array(os.path.join(m["root"], p), mode="r")[...]
    except Exception as e:  # noqa: BLE001 - reported, not raised
        r["local_error"] = repr(e)
        results.append(r)
        continue
    try:
        r["equal"] = same(local, remote(m["url"] + p))
    except Exception as e:  # noqa: BLE001
        r["http_error"] = repr(e)
    results.append(r)

out = {"results": results, "consolidated": []}
try:
    g = zarr.open_consolidated(FSStore(m["cons_url"], mode="r"), mode="r")
    for _, arr in g.arrays(recurse=True):
        c = {"path": arr.path}
        try:
            local = zarr.open_array(os.path.join(m["cons_root"], arr.path), mode="r")[...]
            c["equal"] = same(local, arr[...])
        except Exception as e:  # noqa: BLE001
            c["http_error"] = repr(e)
        out["consolidated"].append(c)
except Exception as e:  # noqa: BLE001
    out["consolidated_error"] = repr(e)
print(json.dumps(out))
