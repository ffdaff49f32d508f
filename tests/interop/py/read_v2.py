"""Reads Zarr v2 nodes with zarr-python 2 and prints what it sees as JSON.

Usage: /usr/bin/python3 read_v2.py MANIFEST
MANIFEST: {"root": DIR, "nodes": [{"root"?: DIR, "path", "kind": "array"|"group",
           "consolidated": bool}]}
A node's own root overrides the manifest's. Consolidated nodes are opened
through zarr.open_consolidated(root).
Output (stdout): {"zarr": VERSION, "numcodecs": VERSION, "results": [{"root", "path",
  "kind", "error"?, "attrs", "shape", "chunks", "dtype", "order",
  "fill_value", "compressor", "filters", "values"}]}
Elements are listed in C order: integers and floats as strings (repr of
the exact float), booleans as booleans, str as str, bytes as hex.
Exits with status 3 when zarr cannot be imported.
"""
import json
import sys

try:
    import numpy as np
    import numcodecs
    import zarr
    from values import scalar
except ImportError as e:  # reported by the Go test with the setup command
    print("import failed: %s" % e, file=sys.stderr)
    sys.exit(3)


def read(root, consolidated, node):
    if consolidated is not None:
        obj = consolidated[node["path"]] if node["path"] else consolidated
    elif node["kind"] == "group":
        obj = zarr.open_group(store=root, path=node["path"], mode="r")
    else:
        obj = zarr.open_array(store=root, path=node["path"], mode="r")
    out = {"attrs": obj.attrs.asdict()}
    if node["kind"] == "group":
        if not isinstance(obj, zarr.hierarchy.Group):
            raise RuntimeError("not a group: %r" % (obj,))
        out["members"] = sorted(obj.array_keys()) + sorted(obj.group_keys())
        return out
    if not isinstance(obj, zarr.core.Array):
        raise RuntimeError("not an array: %r" % (obj,))
    data = obj[...]
    out.update(
        shape=list(obj.shape),
        chunks=list(obj.chunks),
        dtype=obj.dtype.str,
        order=obj.order,
        fill_value=scalar(obj.fill_value),
        compressor=obj.compressor.get_config() if obj.compressor else None,
        filters=[f.get_config() for f in obj.filters] if obj.filters else [],
        values=[scalar(v) for v in np.asarray(data).ravel(order="C").tolist()],
    )
    return out


def main():
    with open(sys.argv[1]) as f:
        manifest = json.load(f)
    stores, consolidated = {}, {}
    results = []
    for node in manifest["nodes"]:
        root_dir = node.get("root") or manifest["root"]
        if root_dir not in stores:
            stores[root_dir] = zarr.storage.DirectoryStore(root_dir)
        root = stores[root_dir]
        r = {"root": root_dir, "path": node["path"], "kind": node["kind"], "consolidated": bool(node.get("consolidated"))}
        try:
            cons = None
            if node.get("consolidated"):
                if root_dir not in consolidated:
                    try:
                        consolidated[root_dir] = zarr.open_consolidated(root, mode="r")
                    except Exception as e:
                        consolidated[root_dir] = RuntimeError("open_consolidated: %s: %s" % (type(e).__name__, e))
                cons = consolidated[root_dir]
                if isinstance(cons, Exception):
                    raise cons
            r.update(read(root, cons, node))
        except Exception as e:
            r["error"] = "%s: %s" % (type(e).__name__, e)
        results.append(r)
    json.dump({"zarr": zarr.__version__, "numcodecs": numcodecs.__version__, "results": results}, sys.stdout)

main()
