"""The registered zfp codec checked against PyPI's zfpy 1.0.1 (a zfp build
of its own, 64-bit stream words, beside Debian's 1.0.0 that the numcodecs
bridge runs). Run by the reference environment's python. Commands:

  make DIR   writes Zarr v3 arrays "r_NAME" whose chunks this zfpy
             compressed (no header: the registered codec's stream), and
             arrays "w_NAME" with no chunk for zarrgw to write NAME.raw
             into; prints {name: hex of the values zfpy decodes} for the
             r_ arrays (the form `zarrgw cat --format raw` prints)
  check DIR  checks every chunk zarrgw wrote into the w_ arrays against
             this zfpy and prints {"checked": n, "failures": [...]}

Each chunk zarrgw writes must be, bit for bit, the stream this zfpy writes
for the same chunk (its values, the edge chunk's outside filled with the
fill value) without a header: equal to zfpy's own headerless output, and
equal to the bits after the header zfpy writes with write_header=True.
Its values, decoded by this zfpy, must be the chunk's (reversible) or
what this zfpy decodes of its own headered stream (lossy modes).

Types zfp has no type for are promoted by the spec's formulas, written
here from the spec (codecs/zfp/README.md), not taken from zarrgw.
"""

import itertools
import json
import os
import sys

import numpy as np
import zfpy

# name -> (data type, shape, chunk shape, configuration, fill value)
ARRAYS = {
    "f64_rev_2d": ("float64", (10, 13), (4, 5), {"mode": "reversible"}, 1.5),
    "f32_acc_3d": ("float32", (6, 7, 9), (4, 4, 5), {"mode": "fixed_accuracy", "tolerance": 0.01}, -2.0),
    "f64_rate_1d": ("float64", (37,), (16,), {"mode": "fixed_rate", "rate": 12.5}, 0.0),
    "f32_rate_4d": ("float32", (3, 5, 6, 5), (2, 4, 4, 4), {"mode": "fixed_rate", "rate": 8}, 0.25),
    # 4 * 2 = 8 bits a block, fewer than zfp's least for a float block (9)
    "f32_rate_1d_least": ("float32", (21,), (8,), {"mode": "fixed_rate", "rate": 2}, 0.0),
    "f64_prec_2d": ("float64", (9, 9), (8, 8), {"mode": "fixed_precision", "precision": 30}, 0.0),
    "f64_rev_0d": ("float64", (), (), {"mode": "reversible"}, 0.0),
    "i32_prec_4d": ("int32", (5, 6, 3, 7), (4, 4, 2, 4), {"mode": "fixed_precision", "precision": 20}, 7),
    "i32_rev_1d": ("int32", (23,), (10,), {"mode": "reversible"}, -1),
    "i64_rev_3d": ("int64", (5, 9, 6), (4, 4, 4), {"mode": "reversible"}, 3),
    "i64_rate_2d": ("int64", (6, 11), (4, 8), {"mode": "fixed_rate", "rate": 16}, 0),
    "u32_rev_2d": ("uint32", (7, 5), (4, 4), {"mode": "reversible"}, 9),
    "u64_prec_1d": ("uint64", (13,), (8,), {"mode": "fixed_precision", "precision": 40}, 0),
    "i16_rev_2d": ("int16", (6, 7), (4, 4), {"mode": "reversible"}, -5),
    "u8_rate_2d": ("uint8", (9, 6), (8, 4), {"mode": "fixed_rate", "rate": 12}, 200),
}

ZTYPE = {"i4": zfpy.type_int32, "i8": zfpy.type_int64, "f4": zfpy.type_float, "f8": zfpy.type_double}


def promote(a):
    """a as the zfp type the spec maps its type to, by the spec's formulas."""
    dt = a.dtype
    if dt in (np.int8, np.int16):
        return a.astype(np.int32) << (31 - 8 * dt.itemsize)
    if dt in (np.uint8, np.uint16):
        n = 8 * dt.itemsize
        return (a.astype(np.int32) - (1 << (n - 1))) << (31 - n)
    if dt == np.uint32:
        return a.astype(np.int32)  # values stay below 2^31 here
    if dt == np.uint64:
        return a.astype(np.int64)  # values stay below 2^63 here
    return a


def demote(z, dt):
    """The spec's demotion of a decoded zfp field z to dt."""
    dt = np.dtype(dt)
    if dt in (np.int8, np.int16):
        n = 8 * dt.itemsize
        return np.clip(z >> (31 - n), -(1 << (n - 1)), (1 << (n - 1)) - 1).astype(dt)
    if dt in (np.uint8, np.uint16):
        n = 8 * dt.itemsize
        return np.clip((z >> (31 - n)) + (1 << (n - 1)), 0, (1 << n) - 1).astype(dt)
    if dt.kind == "u":
        return np.maximum(z, 0).astype(dt)
    return z.astype(dt)


def zfpy_args(cfg):
    """zfpy's keyword arguments for a configuration (reversible: none), as
    its _decompress takes them (it sets the rate for the field's type)."""
    return {k: cfg[k] for k in ("tolerance", "rate", "precision") if k in cfg}


def compress_args(cfg, f):
    """zfpy's keyword arguments to compress field f as zfp's
    zfp_stream_set_rate(rate, type, dims) sets a fixed rate: at least
    1 + 8 bits a block for float, 1 + 11 for double (zfp.c). zfpy's
    compress_numpy passes no type, so the rate given is the one that
    makes exactly those bits."""
    args = zfpy_args(cfg)
    if "rate" in args:
        n = 4 ** f.ndim
        bits = max(int(np.floor(n * args["rate"] + 0.5)), {"f4": 9, "f8": 12}.get(f.dtype.str[1:], 0))
        args["rate"] = bits / n
    return args


def values(name):
    """An array's values: smooth with noise, within the type's range."""
    dt, shape, _, _, _ = ARRAYS[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    idx = np.indices(shape, dtype=np.float64) if shape else np.zeros((0,))
    smooth = np.sin(idx.sum(axis=0) / 3.0) + np.cos(idx[0] / 5.0) if shape else np.array(np.pi)
    noise = rng.standard_normal(shape)
    dt = np.dtype(dt)
    if dt.kind == "f":
        return (smooth * 100 + noise).astype(dt)
    info = np.iinfo(dt)
    lo, hi = float(max(info.min, -2**40)), float(min(info.max, 2**40))
    if dt in (np.uint32,):
        hi = 2**31 - 1
    mid, span = (lo + hi) / 2, (hi - lo) / 2
    v = mid + (smooth / 2.2) * span * 0.9 + noise * span * 0.01
    return np.clip(np.round(v), lo, hi).astype(dt)


def chunk_of(name, index):
    """The chunk at index: its part of the values, the rest fill value."""
    dt, shape, chunks, _, fill = ARRAYS[name]
    c = np.full(chunks, fill, dtype=dt)
    v = values(name)
    region = tuple(slice(i * n, min((i + 1) * n, s)) for i, n, s in zip(index, chunks, shape))
    inner = tuple(slice(0, r.stop - r.start) for r in region)
    c[inner] = v[region]
    return c


def chunk_indices(name):
    _, shape, chunks, _, _ = ARRAYS[name]
    return itertools.product(*[range(-(-s // n)) for s, n in zip(shape, chunks)])


def chunk_path(root, name, index):
    return os.path.join(root, name, "c", *map(str, index)) if index else os.path.join(root, name, "c")


def field(c):
    """A chunk as the zfp field: a 0-dimensional chunk is nx=1."""
    return np.ascontiguousarray(promote(c.reshape(c.shape or (1,))))


def metadata(name):
    dt, shape, chunks, cfg, fill = ARRAYS[name]
    return {
        "zarr_format": 3, "node_type": "array", "shape": list(shape), "data_type": dt,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(chunks)}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": fill, "codecs": [{"name": "zfp", "configuration": cfg}], "attributes": {},
    }


def write_json(path, doc):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(doc, f)


def decode_own(c, cfg):
    """What this zfpy decodes of its own (headered) stream of chunk c."""
    f = field(c)
    return demote(zfpy.decompress_numpy(zfpy.compress_numpy(f, **compress_args(cfg, f))), c.dtype).reshape(c.shape)


def make(root):
    write_json(os.path.join(root, "zarr.json"), {"zarr_format": 3, "node_type": "group", "attributes": {}})
    out = {}
    for name, (dt, shape, chunks, cfg, fill) in ARRAYS.items():
        write_json(os.path.join(root, "r_" + name, "zarr.json"), metadata(name))
        write_json(os.path.join(root, "w_" + name, "zarr.json"), metadata(name))
        values(name).tofile(os.path.join(root, name + ".raw"))
        decoded = np.empty(shape, dtype=dt)
        for index in chunk_indices(name):
            c = chunk_of(name, index)
            path = chunk_path(os.path.join(root, "r_" + name), "", index)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(zfpy.compress_numpy(field(c), write_header=False, **compress_args(cfg, field(c))))
            d = decode_own(c, cfg)
            region = tuple(slice(i * n, min((i + 1) * n, s)) for i, n, s in zip(index, chunks, shape))
            decoded[region] = d[tuple(slice(0, r.stop - r.start) for r in region)]
        out["r_" + name] = np.ascontiguousarray(decoded).astype(decoded.dtype.newbyteorder("<")).tobytes().hex()
    print(json.dumps(out))


def body_bits(headered, ours):
    """Whether ours is headered's stream after its header (96 bits, or
    148 for zfp's long mode encoding), trailing zero bits aside."""
    h = np.unpackbits(np.frombuffer(headered, np.uint8), bitorder="little")
    o = np.unpackbits(np.frombuffer(ours, np.uint8), bitorder="little")
    for header_bits in (96, 148):
        rest = h[header_bits:]
        n = max(len(rest), len(o))
        if np.array_equal(np.pad(rest, (0, n - len(rest))), np.pad(o, (0, n - len(o)))):
            return True
    return False


def check(root):
    failures, checked = [], 0
    for name, (dt, shape, chunks, cfg, fill) in ARRAYS.items():
        for index in chunk_indices(name):
            where = "w_%s chunk %s" % (name, list(index))
            path = chunk_path(os.path.join(root, "w_" + name), "", index)
            try:
                with open(path, "rb") as f:
                    ours = f.read()
            except OSError as e:
                failures.append("%s: %s" % (where, e))
                continue
            checked += 1
            c = chunk_of(name, index)
            f = field(c)
            theirs = zfpy.compress_numpy(f, write_header=False, **compress_args(cfg, f))
            if ours != theirs:
                failures.append("%s: %d bytes, zfpy writes %d bytes (%s...)" % (
                    where, len(ours), len(theirs), "same start" if ours[:16] == theirs[:16] else "other bytes"))
            if not body_bits(zfpy.compress_numpy(f, write_header=True, **compress_args(cfg, f)), ours):
                failures.append("%s: not the stream after the header zfpy writes" % where)
            got = zfpy._decompress(ours, ZTYPE[f.dtype.str[1:]], list(f.shape), **zfpy_args(cfg))
            got = demote(np.asarray(got), dt).reshape(c.shape)
            want = c if cfg["mode"] == "reversible" else decode_own(c, cfg)
            if got.tobytes() != want.tobytes():
                failures.append("%s: zfpy decodes other values (%d differ)" % (where, int(np.sum(got != want))))
    print(json.dumps({"checked": checked, "failures": failures}))


if __name__ == "__main__":
    {"make": make, "check": check}[sys.argv[1]](sys.argv[2])
