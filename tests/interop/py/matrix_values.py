"""The expected contents of an array of the interoperability matrix, as a
numpy array, from its manifest entry (see matrix_write.py): elements from
the shared formula (formula.py) in the first written_rows rows, the fill
value everywhere else.

Runs under the venv's python (numpy 2, ml_dtypes) and Debian's python3
(numpy 1.24, zarr 2.13): nothing here needs more than numpy, and ml_dtypes
is imported only for the types that need it.
"""

import numpy as np

import formula

NAT = np.iinfo(np.int64).min


def element(f, i):
    """Element i of formula f, as a Python value numpy takes for the type."""
    kind = f["kind"]
    if kind == "complex":
        re = formula.value(dict(f, kind="float"), i)
        im = -formula.value(dict(f, kind="float"), i + 1)
        return complex(re, im)
    if kind in ("datetime", "timedelta"):
        # every 7th element from the 5th is NaT
        return NAT if i % 7 == 5 else formula.value(dict(f, kind="int"), i)
    if kind == "raw":
        return bytes(formula.u(i * f["width"] + k, 8) for k in range(f["width"]))
    if kind == "vbytes":
        return ("b%d" % i).encode("ascii") + b"\x00\xff"[: i % 3]
    return formula.value(f, i)


def numpy_dtype(name):
    """The numpy dtype of a manifest's dtype: a numpy type string, one of
    ml_dtypes' names, "string"/"vbytes" (variable length, held as objects)
    or a structured type's field list."""
    if isinstance(name, list):
        return np.dtype([(n, numpy_dtype(t)) for n, t in name])
    if name in ("string", "vbytes"):
        return np.dtype(object)
    try:
        return np.dtype(name)
    except TypeError:
        import ml_dtypes

        return np.dtype(getattr(ml_dtypes, name))


def scalar(f, dt, v):
    """A fill value from the manifest (as matrix_write.py records it) as a
    value numpy takes for the type."""
    kind = f["kind"]
    if kind == "struct":
        return tuple(scalar(ff, dt[ff["name"]], vv) for ff, vv in zip(f["fields"], v))
    if kind == "complex":
        return complex(float(v[0]), float(v[1]))
    if kind in ("datetime", "timedelta"):
        return NAT if v == "NaT" else int(v)
    if kind in ("raw", "bytes", "vbytes"):
        return bytes.fromhex(v)
    if kind in ("int", "uint"):
        return int(v)
    if kind == "float":
        return float(v)
    return v


def elements(f, dt, n, start=0):
    """n elements of formula f from flat index start, as a 1-d array."""
    if f["kind"] == "struct":
        out = np.zeros(n, dtype=dt)
        for ff in f["fields"]:
            out[ff["name"]] = elements(ff, dt[ff["name"]], n, start)
        return out
    vals = [element(f, i) for i in range(start, start + n)]
    if f["kind"] in ("datetime", "timedelta"):
        return np.array(vals, dtype=np.int64).view(dt)
    if f["kind"] == "raw":
        return np.frombuffer(b"".join(vals), dtype=dt).copy()
    if dt.kind == "O":
        out = np.empty(n, dtype=object)
        out[:] = vals
        return out
    return np.array(vals, dtype=dt)


def expected(entry):
    """The whole array the entry describes, in C order."""
    dt = numpy_dtype(entry["dtype"])
    shape = tuple(entry["shape"])
    n = int(np.prod(shape))
    row = n // shape[0] if shape[0] else 0
    written = entry["written_rows"] * row
    f = entry["formula"]
    out = np.empty(n, dtype=dt)
    out[:written] = elements(f, dt, written)
    if written < n:
        out[written:] = np.array([scalar(f, dt, entry["fill"])] * (n - written), dtype=dt) if dt.kind != "O" else scalar(f, dt, entry["fill"])
    return out.reshape(shape)


def same(got, want):
    """None when got holds exactly want's elements (floats bit for bit, so
    -0 differs from 0 and NaN equals NaN), else what differs."""
    got = np.asarray(got)
    if got.shape != want.shape:
        return "shape %s, want %s" % (list(got.shape), list(want.shape))
    if want.dtype.kind == "O" or got.dtype.kind in ("O", "T"):
        g, w = [canon(x) for x in got.ravel().tolist()], [canon(x) for x in want.ravel().tolist()]
        return first_diffs(g, w)
    if got.dtype.newbyteorder("<") != want.dtype.newbyteorder("<"):
        return "dtype %s, want %s" % (got.dtype, want.dtype)
    if want.dtype.name in ("int2", "int4", "uint2", "uint4"):
        # ml_dtypes' sub-byte integers, compared by value: the bits above
        # the value are not part of it (tensorstore's fill elements carry
        # the sign there, 0xf8 for int4 -8, where ml_dtypes has 0x08)
        return same(got.astype(np.int8), want.astype(np.int8))
    g = np.ascontiguousarray(got).astype(want.dtype.newbyteorder("<") if want.dtype.byteorder != "|" else want.dtype)
    w = np.ascontiguousarray(want).astype(g.dtype)
    if g.tobytes() == w.tobytes():
        return None
    itemsize = g.dtype.itemsize
    gb, wb = g.tobytes(), w.tobytes()
    bad = [i for i in range(g.size) if gb[i * itemsize:(i + 1) * itemsize] != wb[i * itemsize:(i + 1) * itemsize]]
    shown = "; ".join("[%d] got %r want %r" % (i, g.ravel()[i], w.ravel()[i]) for i in bad[:4])
    return "%d of %d elements differ: %s" % (len(bad), g.size, shown)


def same_read(got, want):
    """same() for what a reader returned, as any reader returns it: None
    or what differs (a comparison that raises is a difference too)."""
    try:
        got = np.asarray(got)
        if want.dtype.kind == "V" and want.dtype.names is None and got.shape == want.shape + (want.dtype.itemsize,) and got.dtype.itemsize == 1:
            # tensorstore holds r<N> as a trailing dimension of bytes
            got = np.ascontiguousarray(got).view(want.dtype).reshape(want.shape)
        return same(got, want)
    except Exception as exc:
        return "comparison failed: %s: %s" % (type(exc).__name__, exc)


def canon(x):
    if isinstance(x, np.generic):
        x = x.item()
    return x


def first_diffs(g, w):
    bad = [i for i in range(len(w)) if i >= len(g) or g[i] != w[i] or type(g[i]) is not type(w[i])]
    if len(g) != len(w):
        return "%d elements, want %d" % (len(g), len(w))
    if not bad:
        return None
    shown = "; ".join("[%d] got %r want %r" % (i, g[i], w[i]) for i in bad[:4])
    return "%d of %d elements differ: %s" % (len(bad), len(w), shown)
