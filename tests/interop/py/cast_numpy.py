"""numpy's own arithmetic and casts for the cast_value and scale_offset
cross-check: for each case of CASES_JSON ({name: {"dtype", "data", ...}})
the chunk bytes the codec chain must store, and the values it must decode
them to, computed with numpy (NaN and infinities as strings).

usage: cast_numpy.py CASES_JSON
"""

import json
import sys

import numpy as np


def stored(name, x):
    if name == "scale_offset_uint8_nan":  # offset -10, scale 0.1, NaN <-> 0
        y = (x - (-10.0)) * 0.1
        enc = np.where(np.isnan(y), 0, np.rint(np.nan_to_num(y))).astype(np.uint8)
        dec = np.where(enc == 0, np.nan, enc.astype(np.float64) / 0.1 + (-10.0))
        return enc, dec
    if name == "numpy_compat_uint8":  # towards-zero, wrap, NaN/Inf -> 0
        ok = np.isfinite(x)
        enc = np.where(ok, np.trunc(np.where(ok, x, 0)), 0).astype(np.int64).astype(np.uint8)
        return enc, enc.astype(np.float64)
    if name == "float64_to_float32":  # offset 5, scale 0.1 in float64
        enc = ((x - 5.0) * 0.1).astype(np.float32)
        return enc, enc.astype(np.float64) / 0.1 + 5.0
    if name == "float32_scale_offset":  # float32 arithmetic throughout
        x = x.astype(np.float32)
        enc = (x - np.float32(5)) * np.float32(0.1)
        return enc, enc / np.float32(0.1) + np.float32(5)
    if name == "int16_clamp_int8":
        enc = np.clip(x.astype(np.int16), -128, 127).astype(np.int8)
        return enc, enc.astype(np.int16)
    raise KeyError(name)


def text(v):
    return [str(float(a)) if not np.isfinite(a) else float(a) for a in np.asarray(v, dtype=np.float64)]


def main():
    cases = json.load(open(sys.argv[1]))
    out = {}
    for name, case in sorted(cases.items()):
        x = np.array([float(v) for v in case["data"]], dtype=np.float64)
        enc, dec = stored(name, x)
        out[name] = {"stored": np.ascontiguousarray(enc).astype(enc.dtype.newbyteorder("<")).tobytes().hex(),
                     "decoded": text(dec)}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
