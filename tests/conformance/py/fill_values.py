"""Decodes fill values the way the Zarr specs define them, with numpy.

Reads a JSON list of {"id", "zarr_format", "data_type", "fill_value"} on
standard input and writes {id: {"hex": ...} | {"text": ...} | {"error": ...}}
to standard output: "hex" is the element's bytes in numpy's little-endian
memory form (what `zarrgw cat --format raw` prints), "text" the value of a
variable-length string ("vlen" marks variable-length bytes, given in hex). The decoding is this script's own, from the specs
(v3 core data types and the zarr-extensions registry; v2's numpy type
strings), so that what zarrgw reads is compared with an independent formula:
hex floats keep their exact bits, which zarr-python 3.1 does not (it quiets
signaling NaNs).
"""

import base64
import json
import sys

import numpy as np

V3_NUMBERS = {
    "bool": "?", "int8": "<i1", "int16": "<i2", "int32": "<i4", "int64": "<i8",
    "uint8": "<u1", "uint16": "<u2", "uint32": "<u4", "uint64": "<u8",
    "float16": "<f2", "float32": "<f4", "float64": "<f8",
    "complex64": "<c8", "complex128": "<c16",
}


def v3_dtype(dt):
    """numpy dtype of a v3 data_type (name or object)."""
    if isinstance(dt, str):
        if dt in V3_NUMBERS:
            return np.dtype(V3_NUMBERS[dt])
        if dt.startswith("r") and dt[1:].isdigit():
            return np.dtype("V%d" % (int(dt[1:]) // 8))
        raise ValueError("no numpy type for %r" % dt)
    name, cfg = dt["name"], dt.get("configuration") or {}
    if name in ("numpy.datetime64", "numpy.timedelta64"):
        if cfg.get("scale_factor", 1) != 1:
            raise ValueError("scale_factor")
        code = "M8" if name == "numpy.datetime64" else "m8"
        return np.dtype("<%s[%s]" % (code, cfg["unit"]))
    if name in ("struct", "structured"):
        fields = []
        for f in cfg["fields"]:
            fname, ftype = (f["name"], f["data_type"]) if isinstance(f, dict) else f
            fields.append((fname, v3_dtype(ftype)))
        return np.dtype(fields)
    if not cfg:
        return v3_dtype(name)
    raise ValueError("no numpy type for %r" % dt)


def float_bits(v, dt):
    """A float fill value: a number, NaN/Infinity/-Infinity, or 0x hex bits."""
    if isinstance(v, str) and v.startswith("0x"):
        width = dt.itemsize
        return np.frombuffer(int(v, 16).to_bytes(width, "little"), dtype=dt.newbyteorder("<"))[0]
    special = {"NaN": np.nan, "Infinity": np.inf, "-Infinity": -np.inf}
    return np.array(special.get(v, v), dtype=dt)[()]


def scalar_bytes(dt, v, zarr_format):
    """The little-endian bytes of fill value v for numpy dtype dt."""
    if dt.fields is not None:
        if zarr_format == 2 or isinstance(v, (int, str)):
            if v == 0:
                return bytes(dt.itemsize)
            return base64.standard_b64decode(v)
        if set(v) != set(dt.names):
            raise ValueError("fill value fields %s, type has %s" % (sorted(v), dt.names))
        return b"".join(scalar_bytes(dt.fields[n][0], v[n], zarr_format) for n in dt.names)
    if dt.kind == "V":
        return bytes(v) if isinstance(v, list) else base64.standard_b64decode(v)
    if dt.kind == "f":
        return float_bits(v, dt).tobytes()
    if dt.kind == "c":
        half = np.dtype("<f%d" % (dt.itemsize // 2))
        return float_bits(v[0], half).tobytes() + float_bits(v[1], half).tobytes()
    if dt.kind in "mM":
        return np.array(np.iinfo(np.int64).min if v == "NaT" else v, dtype="<i8").tobytes()
    return np.array(v, dtype=dt).tobytes()


def decode(case):
    dt, v, fmt = case["data_type"], case["fill_value"], case["zarr_format"]
    if fmt == 3 and dt == "string":
        return {"text": v}
    if fmt == 3 and dt in ("bytes", "variable_length_bytes"):
        raw = bytes(v) if isinstance(v, list) else base64.standard_b64decode(v)
        return {"hex": raw.hex(), "vlen": True}
    if fmt == 2:
        ndt = np.dtype([tuple(f[:2]) + ((tuple(f[2]),) if len(f) > 2 else ()) for f in dt]) if isinstance(dt, list) else np.dtype(dt)
        ndt = ndt.newbyteorder("<") if ndt.fields is None else ndt
    else:
        ndt = v3_dtype(dt)
    return {"hex": scalar_bytes(ndt, v, fmt).hex()}


def main():
    out = {}
    for case in json.load(sys.stdin):
        try:
            out[case["id"]] = decode(case)
        except Exception as e:  # reported per case, never fatal to the batch
            out[case["id"]] = {"error": "%s: %s" % (type(e).__name__, e)}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
