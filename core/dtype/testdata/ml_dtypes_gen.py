"""Writes ml_dtypes.json: what ml_dtypes' numpy does with every registered
narrow number format, and with float8_e4m3fn (not registered; tensorstore
writes it), the expected values of core/dtype's tests.

Run from the repository root with the test environment's python:
    ~/.cache/zarrgw/pyenv-*/bin/python3 core/dtype/testdata/ml_dtypes_gen.py \
        > core/dtype/testdata/ml_dtypes.json
(ml_dtypes 0.6.0, numpy 2.4.6 when generated.)
"""
import json
import warnings
import math
import struct

import ml_dtypes
import numpy as np

FLOATS = ["bfloat16", "float8_e3m4", "float8_e4m3", "float8_e4m3fn", "float8_e4m3b11fnuz", "float8_e4m3fnuz",
          "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu", "float6_e2m3fn", "float6_e3m2fn",
          "float4_e2m1fn"]
INTS = ["int2", "int4", "uint2", "uint4"]


def f64hex(x):
    return struct.pack("<d", float(x)).hex()


def inputs(t):
    fi = ml_dtypes.finfo(t)
    mx, tiny, eps = float(fi.max), float(fi.smallest_subnormal), float(fi.eps)
    xs = [0.0, -0.0, math.nan, -math.nan, math.inf, -math.inf, 1.0, -1.0, 0.1, -0.3, 1.5, 3.0, 1e30, -1e30,
          mx, -mx, mx * (1 + eps / 4), mx * (1 + eps / 2), mx * (1 + eps / 2 * 1.0001), mx * 2,
          tiny, tiny / 2, tiny * 0.75, tiny * 1.5, tiny * 2.5, -tiny / 2, -tiny * 0.75, tiny / 3,
          1e-300, 5e-324]
    # every halfway point between neighbouring codes (ties), and a hair on each side
    n = 1 << (8 * np.dtype(t).itemsize) if np.dtype(t).itemsize == 1 else 1 << 16
    codes = np.arange(n, dtype=np.uint8 if n == 256 else np.uint16)
    vals = sorted({float(v) for v in codes.view(t).astype(np.float64) if math.isfinite(float(v))})
    step = 1 if len(vals) < 100 else len(vals) // 100
    for a, b in list(zip(vals, vals[1:]))[::step]:
        mid = (a + b) / 2
        xs += [mid, np.nextafter(mid, -math.inf), np.nextafter(mid, math.inf)]
    rng = np.random.default_rng(41)
    xs += list(rng.standard_normal(60) * mx / 8)
    xs += list(np.exp(rng.uniform(math.log(tiny) - 2, math.log(mx) + 2, 60)) * rng.choice([-1, 1], 60))
    return xs


warnings.simplefilter("ignore")  # numpy warns of the overflows and NaNs it is asked for
out = {"floats": {}, "ints": {}}
for name in FLOATS:
    t = getattr(ml_dtypes, name)
    size = np.dtype(t).itemsize
    ut = np.uint8 if size == 1 else np.uint16
    xs = np.array(inputs(t), dtype=np.float64)
    casts = [[f64hex(x), int(b)] for x, b in zip(xs, xs.astype(t).view(ut))]
    width = {"float6_e2m3fn": 6, "float6_e3m2fn": 6, "float4_e2m1fn": 4}.get(name, 8 * size)
    codes = np.arange(1 << width, dtype=ut)
    if width == 16:  # every 61st code, and all codes near zero and the specials
        keep = (codes % 61 == 0) | ((codes & 0x7fff) < 0x100) | ((codes & 0x7fff) >= 0x7f00)
        codes = codes[keep]
    decoded = [[int(c), f64hex(v)] for c, v in zip(codes, codes.view(t).astype(np.float64))]
    fi = ml_dtypes.finfo(t)
    out["floats"][name] = {"casts": casts, "decoded": decoded, "max": f64hex(fi.max),
                           "smallest_subnormal": f64hex(fi.smallest_subnormal)}
for name in INTS:
    t = getattr(ml_dtypes, name)
    ns = list(range(-20, 21)) + [2**31 - 1, -2**31]
    out["ints"][name] = {"casts": [[n, int(b)] for n, b in zip(ns, np.array(ns, dtype=np.int64).astype(t).view(np.uint8))],
                         "decoded": [[c, int(v)] for c, v in zip(range(256), np.arange(256, dtype=np.uint8).view(t).astype(np.int64))]}
json.dump(out, __import__("sys").stdout, separators=(",", ":"))
