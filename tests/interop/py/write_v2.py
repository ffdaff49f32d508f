"""Writes Zarr v2 groups and arrays with zarr-python 2, elements from the
shared formula (formula.py).

Usage: /usr/bin/python3 write_v2.py MANIFEST
MANIFEST: {"root": DIR,
  "groups": [{"path", "attrs"}],
  "arrays": [{"path", "dtype", "shape", "chunks", "compressor", "filters",
              "object_codec", "order", "fill_value", "dimension_separator",
              "written_rows", "formula", "attrs"}],
  "consolidate": bool}
compressor, filters and object_codec are numcodecs configurations ({"id":
...}); null compressor means none. Only rows [0, written_rows) of the first
dimension are written; the rest stays at the fill value. With "consolidate":
true the root's metadata is consolidated (.zmetadata) at the end.
Output (stdout): {"zarr": VERSION, "results": [{"path", "error"?}],
"consolidate_error"?}.
Exits with status 3 when zarr cannot be imported.
"""
import json
import os
import sys

try:
    import numpy as np
    import numcodecs
    import zarr
except ImportError as e:  # reported by the Go test with the setup command
    print("import failed: %s" % e, file=sys.stderr)
    sys.exit(3)

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import formula  # noqa: E402


def fill_value(a):
    v = a.get("fill_value")
    if isinstance(v, str) and np.dtype(a["dtype"]).kind == "f":
        return float(v)
    if isinstance(v, str) and np.dtype(a["dtype"]).kind == "S":
        return v.encode("ascii")
    return v


def write_array(root, a):
    comp = a.get("compressor")
    kwargs = {}
    if a.get("dimension_separator"):
        kwargs["dimension_separator"] = a["dimension_separator"]
    if a.get("object_codec"):
        kwargs["object_codec"] = numcodecs.get_codec(a["object_codec"])
    z = zarr.create(
        shape=a["shape"],
        chunks=a["chunks"],
        dtype=a["dtype"],
        compressor=numcodecs.get_codec(comp) if comp else None,
        filters=[numcodecs.get_codec(f) for f in a.get("filters") or []] or None,
        order=a.get("order", "C"),
        fill_value=fill_value(a),
        store=root,
        path=a["path"],
        overwrite=True,
        **kwargs
    )
    if a.get("attrs"):
        z.attrs.update(a["attrs"])
    rows = a.get("written_rows", a["shape"][0])
    if rows == 0:
        return
    shape = [rows] + list(a["shape"][1:])
    n = int(np.prod(shape))
    values = [formula.value(a["formula"], i) for i in range(n)]
    data = np.empty(n, dtype=z.dtype)
    data[:] = values
    z[0:rows] = data.reshape(shape)


def main():
    with open(sys.argv[1]) as f:
        manifest = json.load(f)
    root = zarr.storage.DirectoryStore(manifest["root"])
    results = []
    for g in manifest.get("groups", []):
        try:
            grp = zarr.open_group(store=root, path=g["path"], mode="a")
            grp.attrs.update(g.get("attrs") or {})
            results.append({"path": g["path"]})
        except Exception as e:
            results.append({"path": g["path"], "error": "%s: %s" % (type(e).__name__, e)})
    for a in manifest["arrays"]:
        try:
            write_array(root, a)
            results.append({"path": a["path"]})
        except Exception as e:
            results.append({"path": a["path"], "error": "%s: %s" % (type(e).__name__, e)})
    out = {"zarr": zarr.__version__, "results": results}
    if manifest.get("consolidate"):
        try:
            zarr.consolidate_metadata(root)
        except Exception as e:
            out["consolidate_error"] = "%s: %s" % (type(e).__name__, e)
    json.dump(out, sys.stdout)


main()
