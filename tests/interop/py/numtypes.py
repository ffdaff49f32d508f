"""The registry's narrow number types (bfloat16, float8/6/4, int2..uint4 and
the complex forms) and tensorstore's float8_e4m3fn (not registered, no
complex form) from ml_dtypes' numpy and tensorstore, for
numtypes_test.go. zarr-python 3.1.6 supports none of them ("No Zarr data
type found that matches dtype"), so ml_dtypes' numpy is the reference for
bytes and values, and tensorstore writes and reads the types it has.

usage:
  numtypes.py make DIR    writes DIR/<type>.raw (the elements' bytes, C order),
                          DIR/ts.zarr/<type> (tensorstore's arrays) and prints
                          the expected values, fill values, chunk bytes and
                          np.save's .npy bytes as JSON
  numtypes.py check DIR   reads zarrgw's arrays in DIR/zarrgw.zarr: chunk files
                          against ml_dtypes' bytes, and with tensorstore; prints
                          {"checked": n, "errors": [...]}
"""

import io
import json
import math
import os
import sys
import warnings

import ml_dtypes
import numpy as np
import tensorstore as ts

warnings.simplefilter("ignore")  # numpy warns of the overflows the formulas ask for

FLOATS = ["bfloat16", "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fnuz",
          "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu", "float6_e2m3fn", "float6_e3m2fn",
          "float4_e2m1fn"]
INTS = ["int2", "int4", "uint2", "uint4"]
COMPLEX = ["complex_float16"] + ["complex_" + f for f in FLOATS]
# Outside the registry: tensorstore writes it under ml_dtypes' name.
FLOATS.append("float8_e4m3fn")
# The types tensorstore 0.1.86's zarr3 driver accepts.
TENSORSTORE = ["bfloat16", "float8_e3m4", "float8_e4m3fn", "float8_e4m3b11fnuz", "float8_e4m3fnuz", "float8_e5m2",
               "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn", "int2", "int4"]
SHAPE, CHUNKS = (5, 3), (2, 2)


def numpy_type(name):
    return np.float16 if name == "float16" else getattr(ml_dtypes, name)


def component(name):
    return name[len("complex_"):] if name.startswith("complex_") else name


def float_values(t, n):
    """A spread over the format's range: beyond the largest value (overflow
    per the format), subnormals, zeros, and NaN where the formula gives it."""
    fi = ml_dtypes.finfo(t) if t is not np.float16 else np.finfo(t)
    mx, tiny = float(fi.max), float(fi.smallest_subnormal)
    i = np.arange(n, dtype=np.float64)
    vals = mx * 1.05 * np.sin(i * 1.7) * np.exp(-i / 4)
    vals[1], vals[2], vals[3] = tiny * 1.5, -0.0, math.nan
    return vals


def fill_of(name):
    t = numpy_type(component(name))
    if name in INTS:
        return -1 if name.startswith("int") else 2
    if name == "float8_e4m3fn":
        return math.nan  # "NaN": 0x7f, its one positive NaN
    return float(np.array([1.5]).astype(t)[0])


def element_bytes(name, vals):
    """The elements' bytes as the registry's bytes codec (little endian)
    holds them: ml_dtypes' tobytes, real and imaginary components
    interleaved for the complex forms."""
    comp = numpy_type(component(name))
    if name.startswith("complex_"):
        re, im = np.real(vals).astype(comp), np.imag(vals).astype(comp)
        out = np.empty(vals.shape + (2,), dtype=comp)
        out[..., 0], out[..., 1] = re, im
        return out
    return vals.astype(comp)


def jnum(x):
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return x


def values_of(name):
    n = SHAPE[0] * SHAPE[1]
    if name in INTS:
        bits = int(name[-1])
        lo = -(1 << (bits - 1)) if name.startswith("int") else 0
        return (np.arange(n) * 3 % (1 << bits) + lo).reshape(SHAPE)
    t = numpy_type(component(name))
    v = float_values(t, n)
    if name.startswith("complex_"):
        return (v + 1j * v[::-1]).reshape(SHAPE)
    return v.reshape(SHAPE)


def expected(name):
    vals = values_of(name)
    elems = element_bytes(name, vals)
    back = elems.astype(np.float64) if name not in INTS else elems.astype(np.int64)
    if name.startswith("complex_"):
        flat = [[jnum(re), jnum(im)] for re, im in back.reshape(-1, 2)]
    elif name in INTS:
        flat = [int(x) for x in back.ravel()]
    else:
        flat = [jnum(x) for x in back.ravel()]
    fill = fill_of(name)
    if name in INTS:
        fill_json = fill
    elif name.startswith("complex_"):
        fill_json = [jnum(fill), jnum(fill)]
    else:
        fill_json = jnum(fill)  # "NaN" for float8_e4m3fn
    # chunk bytes: the array padded with the fill value to whole chunks
    padded_shape = tuple(-(-s // c) * c for s, c in zip(SHAPE, CHUNKS))
    full = np.full(padded_shape, fill_value(name))
    full[: SHAPE[0], : SHAPE[1]] = vals
    pe = element_bytes(name, full)
    chunks = {}
    for ci in range(padded_shape[0] // CHUNKS[0]):
        for cj in range(padded_shape[1] // CHUNKS[1]):
            block = pe[ci * CHUNKS[0]:(ci + 1) * CHUNKS[0], cj * CHUNKS[1]:(cj + 1) * CHUNKS[1]]
            chunks[f"c/{ci}/{cj}"] = np.ascontiguousarray(block).tobytes().hex()
    return elems, {"values": flat, "fill": fill_json, "chunks": chunks, "npy": npy_of(name, elems)}


def npy_of(name, elems):
    """np.save's bytes of the array (none for the complex forms, which
    ml_dtypes has not). np.save writes float8_e5m2 as '<f1', a descr
    np.load refuses; zarrgw writes it as void like the others."""
    if name.startswith("complex_"):
        return None
    buf = io.BytesIO()
    np.save(buf, elems)
    b = buf.getvalue()
    if name == "float8_e5m2":
        b = b.replace(b"'descr': '<f1'", b"'descr': '<V1'", 1)
    return b.hex()


def fill_value(name):
    fill = fill_of(name)
    return complex(fill, fill) if name.startswith("complex_") else fill


def masked(name, b):
    """The value bits of a sub-byte integer's bytes: the registry leaves
    the upper bits to the writer (tensorstore sign-extends, ml_dtypes
    zeroes them)."""
    if name not in INTS:
        return b
    return bytes(x & ((1 << int(name[-1])) - 1) for x in b)


def ts_spec(path, name, fill=None):
    md = {"shape": list(SHAPE), "data_type": name,
          "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(CHUNKS)}},
          "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}
    if fill is not None:
        md["fill_value"] = fill
    return {"driver": "zarr3", "kvstore": {"driver": "file", "path": path}, "metadata": md}


def make(d):
    out = {}
    for name in FLOATS + INTS + COMPLEX:
        elems, exp = expected(name)
        with open(os.path.join(d, name + ".raw"), "wb") as f:
            f.write(elems.tobytes())
        out[name] = exp
        if name in TENSORSTORE:
            a = ts.open(ts_spec(os.path.join(d, "ts.zarr", name), name, exp["fill"]), create=True).result()
            a.write(elems).result()
    json.dump(out, sys.stdout)


def check(d):
    errors, checked = [], 0
    root = os.path.join(d, "zarrgw.zarr")
    for name in FLOATS + INTS + COMPLEX:
        elems, exp = expected(name)
        for key, want in exp["chunks"].items():
            p = os.path.join(root, name, *key.split("/"))
            got = open(p, "rb").read().hex() if os.path.exists(p) else "(missing)"
            checked += 1
            fill_chunk = element_bytes(name, np.full(CHUNKS, fill_value(name))).tobytes().hex()
            if got == "(missing)" and want == fill_chunk:
                continue  # a chunk all of fill value is not written (as zarr-python does)
            if got != want:
                errors.append(f"{name} {key}: zarrgw wrote {got}, ml_dtypes gives {want}")
        if name not in TENSORSTORE:
            continue
        arrays = [(name, elems)]
        # tensorstore 0.1.86 reads a float8_e8m0fnu fill value off by a
        # factor (2.0 as 0x40, where the registry's bias of 127 makes it
        # 0x80); its chunks agree, so only its fill value is left out.
        if name != "float8_e8m0fnu":
            arrays.append((name + "_empty", element_bytes(name, np.full(SHAPE, fill_value(name)))))
        for path, want in arrays:
            try:
                got = ts.open(ts_spec(os.path.join(root, path), name), open=True, read=True).result().read().result()
                same = masked(name, got.tobytes()) == masked(name, want.tobytes())
            except Exception as e:  # noqa: BLE001 (reported, the test fails on it)
                errors.append(f"tensorstore {path}: {e}")
                continue
            checked += 1
            if not same:
                errors.append(f"tensorstore read {path} as {got.tobytes().hex()}, ml_dtypes gives {want.tobytes().hex()}")
    json.dump({"checked": checked, "errors": errors}, sys.stdout)


if __name__ == "__main__":
    {"make": make, "check": check}[sys.argv[1]](sys.argv[2])
