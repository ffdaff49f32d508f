"""Cross-checks the chunks of rectilinear arrays chunk by chunk with
zarr-python 3, which (3.1) has no rectilinear grid of its own: each chunk
of a rectilinear grid is encoded as the only chunk of a regular array of
the chunk's shape, with the same codecs (zarr-extensions
chunk-grids/rectilinear), so zarr-python reads and writes it as such.

The edges are expanded here from the spec's text, not from zarrgw. Values
are the test's formula: element (i, j) of an array of C columns is
3 * (i * C + j) + 1 (int32), the fill value -1 beyond the array's end.

usage: rectilinear_chunks.py STORE_DIR (check|write) PATH [(check|write) PATH ...]
  check: zarr-python decodes every chunk zarrgw wrote; with no compressor,
         zarr-python's encoding of the same chunk must be the same bytes
  write: zarr-python writes every chunk of the (empty) array zarrgw made
prints JSON: {"PATH": {"chunks": N, "bytes_compared": N, "errors": [...]}}
"""

import copy
import json
import os
import sys
import tempfile

import numpy as np
import zarr


def expand(spec, extent):
    """The edges of one dimension, as the spec defines them."""
    if isinstance(spec, int):
        edges = []
        while sum(edges) < extent or not edges:
            edges.append(spec)
        return edges
    edges = []
    for e in spec:
        if isinstance(e, list):
            value, count = e
            edges += [value] * count
        else:
            edges.append(e)
    return edges


def chunks_of(doc):
    shape = doc["shape"]
    dims = [expand(s, n) for s, n in zip(doc["chunk_grid"]["configuration"]["chunk_shapes"], shape)]
    starts = [np.concatenate([[0], np.cumsum(d)[:-1]]).tolist() for d in dims]
    # the chunks that hold elements of the array
    counts = [sum(1 for s in st if s < n) for st, n in zip(starts, shape)]
    for idx in np.ndindex(*counts):
        yield idx, [dims[d][c] for d, c in enumerate(idx)], [starts[d][c] for d, c in enumerate(idx)]


def expected(doc, edges, origin):
    rows, cols = doc["shape"]
    out = np.full(edges, -1, dtype="<i4")
    for a in range(edges[0]):
        for b in range(edges[1]):
            i, j = origin[0] + a, origin[1] + b
            if i < rows and j < cols:
                out[a, b] = 3 * (i * cols + j) + 1
    return out


def one_chunk_array(doc, edges, where):
    """A regular array of one chunk of the given shape, the codecs of doc."""
    regular = copy.deepcopy(doc)
    regular["shape"] = edges
    regular["chunk_grid"] = {"name": "regular", "configuration": {"chunk_shape": edges}}
    os.makedirs(where, exist_ok=True)
    with open(os.path.join(where, "zarr.json"), "w") as f:
        json.dump(regular, f)
    return zarr.open_array(store=where, mode="r+", zarr_format=3)


def key(idx):
    return os.path.join("c", *map(str, idx))


def compressed(doc):
    return any(c["name"] not in ("bytes", "crc32c") for c in doc["codecs"])


def check(root, path, scratch):
    with open(os.path.join(root, path, "zarr.json")) as f:
        doc = json.load(f)
    res = {"chunks": 0, "bytes_compared": 0, "errors": []}
    for idx, edges, origin in chunks_of(doc):
        want = expected(doc, edges, origin)
        with open(os.path.join(root, path, key(idx)), "rb") as f:
            stored = f.read()
        where = os.path.join(scratch, path, "read", *map(str, idx))
        a = one_chunk_array(doc, edges, where)
        os.makedirs(os.path.join(where, "c", *["0"] * (len(edges) - 1)), exist_ok=True)
        with open(os.path.join(where, key([0] * len(edges))), "wb") as f:
            f.write(stored)
        got = a[...]
        res["chunks"] += 1
        if got.shape != want.shape or not np.array_equal(got, want):
            res["errors"].append(f"chunk {idx} {edges}: zarr-python read {got.tolist()}, want {want.tolist()}")
        if compressed(doc):
            continue
        where = os.path.join(scratch, path, "write", *map(str, idx))
        b = one_chunk_array(doc, edges, where)
        b[...] = want
        with open(os.path.join(where, key([0] * len(edges))), "rb") as f:
            theirs = f.read()
        res["bytes_compared"] += 1
        if theirs != stored:
            res["errors"].append(f"chunk {idx} {edges}: zarrgw stored {stored.hex()}, zarr-python encodes {theirs.hex()}")
    return res


def write(root, path, scratch):
    with open(os.path.join(root, path, "zarr.json")) as f:
        doc = json.load(f)
    res = {"chunks": 0, "bytes_compared": 0, "errors": []}
    for idx, edges, origin in chunks_of(doc):
        where = os.path.join(scratch, path, "write", *map(str, idx))
        a = one_chunk_array(doc, edges, where)
        a[...] = expected(doc, edges, origin)
        with open(os.path.join(where, key([0] * len(edges))), "rb") as f:
            data = f.read()
        dst = os.path.join(root, path, key(idx))
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "wb") as f:
            f.write(data)
        res["chunks"] += 1
    return res


def main():
    root, jobs = sys.argv[1], sys.argv[2:]
    out = {}
    with tempfile.TemporaryDirectory() as scratch:
        for mode, path in zip(jobs[::2], jobs[1::2]):
            try:
                out[path] = {"check": check, "write": write}[mode](root, path, scratch)
            except Exception as e:  # reported, the other arrays go on
                out[path] = {"chunks": 0, "bytes_compared": 0, "errors": [f"{type(e).__name__}: {e}"]}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
