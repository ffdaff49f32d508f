"""Reads an array holding a corrupt chunk through zarrgw, as Python
clients do, and reports what each read gave: the array API's slices by
urllib (http.client), and the v2 array through the key API by Debian's
python3-zarr (fsspec's HTTP filesystem).

usage: /usr/bin/python3 read_corrupt.py MANIFEST
MANIFEST: {"slices": {NAME: URL}, "zarr_url": URL of the v2 array,
           "healthy": [start, stop] rows without the corrupt chunk}
Prints {"slices": {NAME: {"bytes": n} or {"error": str}},
        "zarr": {"bytes": n} or {"error": str},
        "zarr_healthy": {"sum": float} or {"error": str}}
Exits 3 when zarr cannot be imported.
"""
import json
import sys
import urllib.request

try:
    import zarr
    from zarr.storage import FSStore
except ImportError as e:
    print(e, file=sys.stderr)
    sys.exit(3)


def outcome(read):
    try:
        return read()
    except Exception as e:  # noqa: BLE001 - reported, not raised
        return {"error": "%s: %s" % (type(e).__name__, e)}


def get(url):
    with urllib.request.urlopen(url, timeout=120) as resp:
        return {"bytes": len(resp.read())}


m = json.load(open(sys.argv[1]))
out = {"slices": {}}
for name, url in m["slices"].items():
    out["slices"][name] = outcome(lambda: get(url))
arr = lambda: zarr.open_array(FSStore(m["zarr_url"], mode="r"), mode="r")  # noqa: E731
out["zarr"] = outcome(lambda: {"bytes": arr()[...].nbytes})
lo, hi = m["healthy"]
out["zarr_healthy"] = outcome(lambda: {"sum": float(arr()[lo:hi].sum())})
print(json.dumps(out))
