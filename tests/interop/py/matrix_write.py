"""Writes the interoperability matrix with one foreign implementation and
prints its manifest (JSON) on stdout.

usage: matrix_write.py WRITER ROOT [--sample]
  WRITER  zarr-python (zarr 3, formats 2 and 3) or tensorstore (its zarr
          and zarr3 drivers)
  ROOT    an empty directory: every array goes to ROOT/<path>
  --sample  a few dozen arrays of the matrix instead of hundreds: every
          data type and every codec chain of each format at least once,
          every grid and chunk key encoding (see sample())

The matrix is the product of five axes (format, data type, codec chain,
grid, chunk key encoding), pruned to a set of arrays in which every value
of each axis appears with every value of every other axis it can go with
(all pairs, the greedy covering of pairwise testing), hundreds of arrays
rather than the thousands of the whole product. Each array holds the
shared formula's elements (formula.py, matrix_values.py) in its first
written_rows rows and the fill value in the rest, so that some chunks are
partly written and the last row of chunks is never stored.

The manifest lists every array with what a reader needs to compute its
elements on its own side (dtype, shape, formula, fill, written_rows), the
axis values and its features (the codecs and traits it exercises, which
the Go side matches its lists of known refusals against). An array the
writer refused carries "error".
"""

import itertools
import json
import os
import sys
import traceback
from importlib.metadata import version

import numpy as np

import matrix_values as mv


# ---- the axes ------------------------------------------------------------

# Data types: name -> (manifest dtype, formula, fill as the manifest holds it).
# Fill values alternate between ordinary and special ones (NaN, NaT).
DTYPES = {
    "bool": ("|b1", {"kind": "bool"}, True),
    "int8": ("|i1", {"kind": "int", "bits": 8}, "-7"),
    "int16": ("<i2", {"kind": "int", "bits": 16}, "-32768"),
    "int32": ("<i4", {"kind": "int", "bits": 32}, "-7"),
    "int64": ("<i8", {"kind": "int", "bits": 64}, "-9223372036854775808"),
    "uint8": ("|u1", {"kind": "uint", "bits": 8}, "7"),
    "uint16": ("<u2", {"kind": "uint", "bits": 16}, "65535"),
    "uint32": ("<u4", {"kind": "uint", "bits": 32}, "7"),
    "uint64": ("<u8", {"kind": "uint", "bits": 64}, "18446744073709551615"),
    "float16": ("<f2", {"kind": "float", "bits": 10, "div": 8}, "NaN"),
    "float32": ("<f4", {"kind": "float", "bits": 20, "div": 64}, "-1.5"),
    "float64": ("<f8", {"kind": "float", "bits": 30, "div": 1024}, "NaN"),
    "complex64": ("<c8", {"kind": "complex", "bits": 20, "div": 64}, ["1.5", "-2"]),
    "complex128": ("<c16", {"kind": "complex", "bits": 30, "div": 1024}, ["NaN", "0.25"]),
    "string": ("string", {"kind": "string"}, "fill-\u00e9"),
    "bytes": ("vbytes", {"kind": "vbytes"}, "66696c6c"),  # a trailing NUL: zarr-python 3.1.6 drops it from a fill
    "U5": ("<U5", {"kind": "unicode", "width": 5}, "f\u00e9"),
    "S6": ("|S6", {"kind": "bytes", "width": 6}, "66696c6c"),
    "V4": ("|V4", {"kind": "raw", "width": 4}, "01020304"),
    "datetime64[s]": ("<M8[s]", {"kind": "datetime", "bits": 32}, "NaT"),
    "datetime64[ns]": ("<M8[ns]", {"kind": "datetime", "bits": 62}, "1234567"),
    "timedelta64[ms]": ("<m8[ms]", {"kind": "timedelta", "bits": 40}, "NaT"),
    "struct": (
        [["a", "<i4"], ["b", "<f8"]],
        {"kind": "struct", "fields": [
            {"name": "a", "kind": "int", "bits": 32},
            {"name": "b", "kind": "float", "bits": 30, "div": 1024}]},
        ["-7", "0.5"],
    ),
}

# tensorstore's own set: its numeric types, and those of ml_dtypes it has.
TS_DTYPES = [
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128", "bfloat16", "float8_e4m3fn", "float8_e5m2", "int4",
]
ML_DTYPES = {
    "bfloat16": ("bfloat16", {"kind": "float", "bits": 8, "div": 4}, "-1.5"),
    "float8_e4m3fn": ("float8_e4m3fn", {"kind": "float", "bits": 4, "div": 2}, "NaN"),
    "float8_e5m2": ("float8_e5m2", {"kind": "float", "bits": 4, "div": 2}, "-0.5"),
    "int4": ("int4", {"kind": "int", "bits": 4}, "-8"),
}
ALL_DTYPES = dict(DTYPES, **ML_DTYPES)

# Grids: shape, chunk (or shard) shape, and the inner chunk shape of a
# sharded chain. Edge grids leave partial chunks at the ends.
GRIDS = {
    "regular": ((6, 8), (3, 4), (1, 2)),
    "edge-2d": ((7, 9), (3, 4), (1, 2)),
    "edge-3d": ((5, 4, 6), (2, 3, 4), (1, 3, 2)),
    "edge-1d": ((37,), (8,), (4,)),
    "one-chunk": ((4, 5), (4, 5), (2, 5)),
}

# Chunk key encodings: v3 default with either separator, v2 with either.
KEYS = {
    3: ["default/", "default.", "v2.", "v2/"],
    2: ["v2.", "v2/"],
}


def variable(d):
    return d in ("string", "bytes")


def has_endian(d):
    dt = mv.numpy_dtype(ALL_DTYPES[d][0])
    return dt.kind not in ("b", "S", "V", "O") and dt.itemsize > 1 and dt.names is None


def numeric(d):
    return mv.numpy_dtype(ALL_DTYPES[d][0]).kind in ("i", "u", "f") and d in DTYPES


# Codec chains, per format: name -> (needs, features); needs(d) says
# whether the chain fits data type d.
def any_type(d):
    return True


def fixed(d):
    return not variable(d)


CHAINS = {
    3: {
        "bytes": (any_type, []),
        "bytes-big": (has_endian, ["endian:big"]),
        "zstd": (any_type, ["codec:zstd"]),
        "zstd-checksum": (any_type, ["codec:zstd", "zstd:checksum"]),
        "gzip": (any_type, ["codec:gzip"]),
        "blosc-lz4-shuffle": (any_type, ["codec:blosc", "blosc:lz4", "blosc:shuffle"]),
        "blosc-zstd-bitshuffle": (any_type, ["codec:blosc", "blosc:zstd", "blosc:bitshuffle"]),
        "blosc-blosclz-noshuffle": (any_type, ["codec:blosc", "blosc:blosclz", "blosc:noshuffle"]),
        "crc32c": (any_type, ["codec:crc32c"]),
        "zstd-crc32c": (any_type, ["codec:zstd", "codec:crc32c"]),
        "transpose-zstd": (any_type, ["codec:transpose", "codec:zstd"]),
        "numcodecs-zlib": (any_type, ["codec:numcodecs.zlib"]),
        "numcodecs-lz4": (any_type, ["codec:numcodecs.lz4"]),
        "numcodecs-bz2": (any_type, ["codec:numcodecs.bz2"]),
        "numcodecs-fletcher32": (any_type, ["codec:numcodecs.fletcher32"]),
        "delta-zstd": (numeric, ["codec:numcodecs.delta", "codec:zstd"]),
        "shuffle-zlib": (fixed, ["codec:numcodecs.shuffle", "codec:numcodecs.zlib"]),
        "sharding-end": (any_type, ["codec:sharding_indexed", "index:end", "codec:zstd", "codec:crc32c"]),
        "sharding-start-gzip": (any_type, ["codec:sharding_indexed", "index:start", "codec:gzip", "codec:crc32c"]),
        "sharding-transpose-blosc": (any_type, ["codec:sharding_indexed", "index:end", "codec:transpose", "codec:blosc"]),
        "sharding-plain-index": (any_type, ["codec:sharding_indexed", "index:start"]),
    },
    2: {
        "none": (any_type, []),
        "zlib": (any_type, ["codec:zlib"]),
        "gzip": (any_type, ["codec:gzip"]),
        "zstd": (any_type, ["codec:zstd"]),
        "blosc-lz4-shuffle": (any_type, ["codec:blosc", "blosc:lz4", "blosc:shuffle"]),
        "blosc-zstd-bitshuffle": (any_type, ["codec:blosc", "blosc:zstd", "blosc:bitshuffle"]),
        "lz4": (any_type, ["codec:lz4"]),
        "bz2": (any_type, ["codec:bz2"]),
        "order-F-zlib": (any_type, ["order:F", "codec:zlib"]),
        "big-zstd": (has_endian, ["endian:big", "codec:zstd"]),
        "delta-zlib": (numeric, ["codec:delta", "codec:zlib"]),
        "shuffle-zlib": (fixed, ["codec:shuffle", "codec:zlib"]),
    },
}

# tensorstore's chains: the codecs its drivers offer.
TS_CHAINS = {
    3: ["bytes", "bytes-big", "zstd", "zstd-checksum", "gzip", "blosc-lz4-shuffle", "blosc-zstd-bitshuffle",
        "crc32c", "transpose-zstd", "sharding-end", "sharding-start-gzip", "sharding-transpose-blosc"],
    2: ["none", "zlib", "zstd", "blosc-lz4-shuffle", "bz2", "order-F-zlib", "big-zstd"],
}


# ---- pairwise selection ----------------------------------------------------

def pairwise(axes, valid):
    """A list of full combinations (one value per axis) in which every pair
    of values of two axes that some valid combination holds appears in at
    least one chosen combination. Greedy: take the first pair not yet
    covered, then the valid combination holding it that covers the most
    pairs not yet covered. Deterministic (no randomness)."""
    combos = [c for c in itertools.product(*axes) if valid(*c)]

    def pairs(c):
        return [(i, c[i], j, c[j]) for i, j in itertools.combinations(range(len(c)), 2)]

    by_pair, uncovered = {}, []
    for c in combos:
        for p in pairs(c):
            if p not in by_pair:
                by_pair[p] = []
                uncovered.append(p)
            by_pair[p].append(c)
    left = set(uncovered)
    chosen = []
    for p in uncovered:
        if p not in left:
            continue
        best = max(by_pair[p], key=lambda c: sum(q in left for q in pairs(c)))
        chosen.append(best)
        left.difference_update(pairs(best))
    return chosen


def zarr_python_matrix():
    def valid(fmt, d, chain, grid, keys):
        cf, cname = chain
        if cf != fmt or keys not in KEYS[fmt]:
            return False
        return CHAINS[fmt][cname][0](d)

    chains = [(f, c) for f in (3, 2) for c in CHAINS[f]]
    return pairwise([(3, 2), list(DTYPES), chains, list(GRIDS), KEYS[3]], valid)


def tensorstore_matrix():
    def valid(fmt, d, chain, grid, keys):
        cf, cname = chain
        if cf != fmt or keys not in KEYS[fmt]:
            return False
        if fmt == 2 and d in ML_DTYPES:  # tensorstore's own names, not numpy's: v3 only
            return False
        if cname == "order-F-zlib" and len(GRIDS[grid][0]) == 1:  # tensorstore keeps "C" for one dimension
            return False
        return CHAINS[fmt][cname][0](d)

    chains = [(f, c) for f in (3, 2) for c in TS_CHAINS[f]]
    return pairwise([(3, 2), TS_DTYPES, chains, list(GRIDS), KEYS[3]], valid)


def sample(combos):
    """A subset of combos holding every format's data types, codec chains,
    grids and chunk key encodings at least once each (not every pair):
    greedy, the combination covering the most values not yet held first,
    ties to the earliest. Deterministic."""
    def values(c):
        fmt, d, chain, grid, keys = c
        return {("dtype", fmt, d), ("chain", chain), ("grid", fmt, grid), ("keys", fmt, keys)}

    left = set().union(*(values(c) for c in combos))
    chosen = []
    while left:
        best = max(combos, key=lambda c: len(values(c) & left))
        chosen.append(best)
        left -= values(best)
    return chosen


# ---- one manifest entry ------------------------------------------------------

def entry(writer, fmt, d, chain, grid, keys):
    dt, f, fill = ALL_DTYPES[d]
    shape, chunks, inner = GRIDS[grid]
    written = shape[0] - chunks[0] if shape[0] > chunks[0] else shape[0]
    path = "/".join([f"v{fmt}", d.replace("[", "_").replace("]", ""), chain, grid, keys.replace("/", "slash").replace(".", "dot")])
    features = [f"format:{fmt}", f"dtype:{d}", f"grid:{grid}", f"keys:{keys}"] + CHAINS[fmt][chain][1]
    # traits that exist only in combination, for the lists of known refusals
    if variable(d) and chain == "transpose-zstd":
        features.append("transpose+variable-length")
    features.append(f"dtype:{d}+format:{fmt}")
    if d in ("V4", "struct") and chain.startswith("sharding-"):
        features.append("sharding+void")
    if "endian:big" in features:
        features.append("endian:big+format:%d" % fmt)
        if d.startswith("complex"):
            features.append("endian:big+complex")
    return {
        "writer": writer, "path": path, "format": fmt, "dtype_name": d, "dtype": dt, "formula": f, "fill": fill,
        "shape": list(shape), "chunks": list(chunks), "inner": list(inner), "written_rows": written,
        "chain": chain, "grid": grid, "keys": keys, "features": features,
    }


def fill_scalar(e):
    """The fill value as numpy takes it for the type."""
    dt = mv.numpy_dtype(e["dtype"])
    v = mv.scalar(e["formula"], dt, e["fill"])
    if dt.kind == "O":
        return v
    if dt.kind in ("M", "m"):
        return np.array([v], dtype=np.int64).view(dt)[0]
    if e["formula"]["kind"] in ("raw", "struct"):
        return v  # zarr-python takes bytes and tuples (numpy's void scalars are unhashable to it)
    return np.array([v], dtype=dt)[0]


# ---- zarr-python ---------------------------------------------------------------

def zarr_python_codecs(e):
    """create_array's keyword arguments for the entry's chain."""
    from zarr import codecs as zc
    from zarr.codecs import numcodecs as znc
    import numcodecs

    d, chain, fmt = e["dtype_name"], e["chain"], e["format"]
    dt = mv.numpy_dtype(e["dtype"])
    nd = len(e["shape"])
    rev = tuple(reversed(range(nd)))
    kw = {"filters": None, "compressors": None, "serializer": "auto"}
    if fmt == 2:
        comp = {
            "zlib": numcodecs.Zlib(level=1), "gzip": numcodecs.GZip(level=5), "zstd": numcodecs.Zstd(level=3),
            "blosc-lz4-shuffle": numcodecs.Blosc(cname="lz4", clevel=5, shuffle=numcodecs.Blosc.SHUFFLE),
            "blosc-zstd-bitshuffle": numcodecs.Blosc(cname="zstd", clevel=3, shuffle=numcodecs.Blosc.BITSHUFFLE),
            "lz4": numcodecs.LZ4(acceleration=1), "bz2": numcodecs.BZ2(level=9), "order-F-zlib": numcodecs.Zlib(level=1),
            "big-zstd": numcodecs.Zstd(level=1), "delta-zlib": numcodecs.Zlib(level=1), "shuffle-zlib": numcodecs.Zlib(level=1),
        }.get(chain)
        kw["compressors"] = comp
        if chain == "delta-zlib":
            kw["filters"] = [numcodecs.Delta(dtype=dt.str)]
        elif chain == "shuffle-zlib":
            kw["filters"] = [numcodecs.Shuffle(elementsize=dt.itemsize)]
        if chain == "order-F-zlib":
            kw["order"] = "F"
        if variable(d):
            vlen = numcodecs.VLenUTF8() if d == "string" else numcodecs.VLenBytes()
            kw["filters"] = [vlen] + (kw["filters"] or [])
        return kw

    def serializer(endian="little"):
        if d == "string":
            return zc.VLenUTF8Codec()
        if d == "bytes":
            return zc.VLenBytesCodec()
        return zc.BytesCodec(endian=endian if has_endian(d) else None)

    kw["serializer"] = serializer()
    if chain == "bytes-big":
        kw["serializer"] = serializer("big")
    elif chain == "zstd":
        kw["compressors"] = [zc.ZstdCodec(level=3)]
    elif chain == "zstd-checksum":
        kw["compressors"] = [zc.ZstdCodec(level=1, checksum=True)]
    elif chain == "gzip":
        kw["compressors"] = [zc.GzipCodec(level=5)]
    elif chain.startswith("blosc-"):
        _, cname, shuffle = chain.split("-")
        kw["compressors"] = [zc.BloscCodec(cname=cname, clevel=5, shuffle=shuffle)]
    elif chain == "crc32c":
        kw["compressors"] = [zc.Crc32cCodec()]
    elif chain == "zstd-crc32c":
        kw["compressors"] = [zc.ZstdCodec(level=0), zc.Crc32cCodec()]
    elif chain == "transpose-zstd":
        kw["filters"] = [zc.TransposeCodec(order=rev)]
        kw["compressors"] = [zc.ZstdCodec(level=3)]
    elif chain == "numcodecs-zlib":
        kw["compressors"] = [znc.Zlib(level=1)]
    elif chain == "numcodecs-lz4":
        kw["compressors"] = [znc.LZ4(acceleration=1)]
    elif chain == "numcodecs-bz2":
        kw["compressors"] = [znc.BZ2(level=9)]
    elif chain == "numcodecs-fletcher32":
        kw["compressors"] = [znc.Fletcher32()]
    elif chain == "delta-zstd":
        kw["filters"] = [znc.Delta(dtype=dt.str)]
        kw["compressors"] = [zc.ZstdCodec(level=3)]
    elif chain == "shuffle-zlib":
        kw["compressors"] = [znc.Shuffle(elementsize=dt.itemsize), znc.Zlib(level=1)]
    elif chain.startswith("sharding-"):
        inner = tuple(e["inner"])
        crc = [zc.BytesCodec(endian="little"), zc.Crc32cCodec()]
        codecs, index, where = {
            "sharding-end": ([serializer(), zc.ZstdCodec(level=3)], crc, "end"),
            "sharding-start-gzip": ([serializer(), zc.GzipCodec(level=5)], crc, "start"),
            "sharding-transpose-blosc": ([zc.TransposeCodec(order=rev), serializer(), zc.BloscCodec(cname="zstd", clevel=3, shuffle="shuffle")], crc, "end"),
            "sharding-plain-index": ([serializer()], [zc.BytesCodec(endian="little")], "start"),
        }[chain]
        kw["serializer"] = zc.ShardingCodec(chunk_shape=inner, codecs=codecs, index_codecs=index, index_location=where)
    return kw


def zarr_python_dtype(e):
    d = e["dtype_name"]
    if d == "string":
        return str
    if d == "bytes":
        from zarr.core.dtype import VariableLengthBytes

        return VariableLengthBytes()
    return mv.numpy_dtype(e["dtype"])


def write_zarr_python(root, e, store=None):
    """Writes e's array under root, or into store (a zarr store) when given."""
    import zarr
    from zarr.storage import LocalStore

    keys = e["keys"]
    kw = zarr_python_codecs(e)
    a = zarr.create_array(
        store=store or LocalStore(root), name=e["path"], shape=tuple(e["shape"]), chunks=tuple(e["chunks"]),
        dtype=zarr_python_dtype(e), fill_value=fill_scalar(e), zarr_format=e["format"],
        chunk_key_encoding={"name": keys[:-1], "separator": keys[-1]},
        config={"write_empty_chunks": False}, **kw)
    want = mv.expected(e)
    a[: e["written_rows"]] = want[: e["written_rows"]]
    return "zarr-python " + zarr.__version__


# ---- tensorstore ---------------------------------------------------------------

def ts_fill(e):
    f, v = e["formula"], e["fill"]
    if f["kind"] == "complex":
        return [float(v[0]), float(v[1])]
    if f["kind"] == "float":
        return v if v == "NaN" else float(v)
    if f["kind"] in ("int", "uint"):
        return int(v)
    return v


def ts_spec(root, e):
    fmt, chain, keys, d = e["format"], e["chain"], e["keys"], e["dtype_name"]
    dt = mv.numpy_dtype(e["dtype"])
    path = os.path.join(root, e["path"])
    nd = len(e["shape"])
    if fmt == 2:
        comp = {
            "none": None, "zlib": {"id": "zlib", "level": 1}, "zstd": {"id": "zstd", "level": 3},
            "blosc-lz4-shuffle": {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1},
            "bz2": {"id": "bz2", "level": 9}, "order-F-zlib": {"id": "zlib", "level": 1}, "big-zstd": {"id": "zstd", "level": 1},
        }[chain]
        dstr = dt.newbyteorder(">").str if chain == "big-zstd" else dt.str
        md = {"shape": e["shape"], "chunks": e["chunks"], "dtype": dstr, "compressor": comp, "filters": None,
              "fill_value": ts_fill(e), "order": "F" if chain == "order-F-zlib" else "C",
              "dimension_separator": keys[-1]}
        return {"driver": "zarr", "kvstore": {"driver": "file", "path": path}, "metadata": md, "create": True}

    def byts(endian="little"):
        if not has_endian(d) and d not in ML_DTYPES or dt.itemsize == 1:
            return {"name": "bytes"}
        return {"name": "bytes", "configuration": {"endian": endian}}

    zstd = {"name": "zstd", "configuration": {"level": 3, "checksum": False}}
    crc = {"name": "crc32c"}
    gzip = {"name": "gzip", "configuration": {"level": 5}}
    transpose = {"name": "transpose", "configuration": {"order": list(reversed(range(nd)))}}

    def blosc(cname, shuffle):
        return {"name": "blosc", "configuration": {"cname": cname, "clevel": 5, "shuffle": shuffle, "typesize": dt.itemsize, "blocksize": 0}}

    def sharding(codecs, where):
        return {"name": "sharding_indexed", "configuration": {"chunk_shape": e["inner"], "codecs": codecs,
                "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, crc], "index_location": where}}

    codecs = {
        "bytes": [byts()], "bytes-big": [byts("big")], "zstd": [byts(), zstd],
        "zstd-checksum": [byts(), {"name": "zstd", "configuration": {"level": 1, "checksum": True}}],
        "gzip": [byts(), gzip], "blosc-lz4-shuffle": [byts(), blosc("lz4", "shuffle")],
        "blosc-zstd-bitshuffle": [byts(), blosc("zstd", "bitshuffle")], "crc32c": [byts(), crc],
        "transpose-zstd": [transpose, byts(), zstd],
        "sharding-end": [sharding([byts(), zstd], "end")],
        "sharding-start-gzip": [sharding([byts(), gzip], "start")],
        "sharding-transpose-blosc": [sharding([transpose, byts(), blosc("zstd", "shuffle")], "end")],
    }[chain]
    md = {"shape": e["shape"], "data_type": d,
          "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": e["chunks"]}},
          "chunk_key_encoding": {"name": keys[:-1], "configuration": {"separator": keys[-1]}},
          "codecs": codecs, "fill_value": ts_fill(e)}
    return {"driver": "zarr3", "kvstore": {"driver": "file", "path": path}, "metadata": md, "create": True}


def write_tensorstore(root, e, kvstore=None):
    """Writes e's array under root, or into kvstore (a tensorstore kvstore
    spec) when given."""
    import tensorstore as ts

    spec = ts_spec(root, e)
    if kvstore is not None:
        spec["kvstore"] = kvstore
    a = ts.open(spec).result()
    want = mv.expected(e)
    a[: e["written_rows"]].write(want[: e["written_rows"]]).result()
    return "tensorstore " + version("tensorstore")


def main():
    writer, root = sys.argv[1], sys.argv[2]
    if writer == "zarr-python":
        combos, write = zarr_python_matrix(), write_zarr_python
    elif writer == "tensorstore":
        combos, write = tensorstore_matrix(), write_tensorstore
    else:
        sys.exit("unknown writer %r" % writer)
    if sys.argv[3:] == ["--sample"]:
        combos = sample(combos)
    out, name = [], writer
    for fmt, d, (_, chain), grid, keys in combos:
        e = entry(writer, fmt, d, chain, grid, keys)
        if writer == "tensorstore":
            e["features"].append("writer:tensorstore")
        try:
            name = write(root, e)
        except Exception as exc:
            e["error"] = "%s: %s" % (type(exc).__name__, str(exc).splitlines()[0] if str(exc) else "")
            e["trace"] = traceback.format_exc(limit=4)
        out.append(e)
    json.dump({"writer": name, "arrays": out}, sys.stdout)


if __name__ == "__main__":
    main()
