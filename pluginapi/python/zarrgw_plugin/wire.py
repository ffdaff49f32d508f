"""Conversions between the protocol's messages and Python values."""

import numpy as np

from ._proto.zarrgw.v1 import types_pb2
from .codec import DataType, Spec
from .errors import CorruptError

# The most elements a shape may hold, as the host checks it.
_MAX_ELEMENTS = 1 << 62


def data_type_from_pb(p):
    return DataType(p.name, p.kind, p.size, p.unit)


def data_type_to_pb(d):
    return types_pb2.DataType(name=d.name, kind=d.kind, size=d.size, unit=d.unit)


def spec_from_pb(p):
    shape = tuple(p.shape)
    n = 1
    for d in shape:
        if d < 0:
            raise CorruptError("invalid shape %s" % (list(shape),))
        n *= d
    if n > _MAX_ELEMENTS:
        raise CorruptError("shape %s has too many elements" % (list(shape),))
    fill = p.fill_value if p.HasField("fill_value") else None
    return Spec(data_type_from_pb(p.data_type), shape, fill, p.decoded_size, p.max_decoded_size)


def spec_to_pb(s):
    p = types_pb2.ChunkSpec(data_type=data_type_to_pb(s.data_type), shape=list(s.shape),
                            decoded_size=s.decoded_size, max_decoded_size=s.max_decoded_size)
    if s.fill_value is not None:
        p.fill_value = bytes(s.fill_value)
    return p


def array_from_pb(header, data):
    """The numpy array a payload's header and bytes describe. Fixed-size
    elements are a read-only view of data, not a copy."""
    dt = data_type_from_pb(header.data_type)
    shape = tuple(header.shape)
    n = 1
    for d in shape:
        n *= d
    if dt.variable:
        return _unpack_strings(data, n, dt).reshape(shape)
    if len(data) != n * dt.size:
        raise CorruptError("array %s%s: %d data bytes, want %d" % (dt.name, list(shape), len(data), n * dt.size))
    return np.frombuffer(data, dtype=dt.numpy).reshape(shape)


def array_to_pb(a, like=None):
    """A payload header and the bytes of array a (converted to native byte
    order and C order). like is the data type to name the array with when
    a's dtype is that type's (it keeps names such as "M8[ns]" or "U7")."""
    a = np.asarray(a)
    if a.dtype.kind == "O":
        dt = like if like is not None and like.variable else DataType("string", 7, 0)
        data = _pack_strings(a)
    else:
        if a.dtype.byteorder == ">" or (a.dtype.byteorder == "=" and np.little_endian is False):
            a = a.astype(a.dtype.newbyteorder("<"))
        # reshape: numpy's ascontiguousarray makes a 0-d array 1-d
        a = np.ascontiguousarray(a).reshape(a.shape)
        dt = like if like is not None and not like.variable and like.numpy == a.dtype else DataType.of(a.dtype)
        data = a
    header = types_pb2.ArrayHeader(data_type=data_type_to_pb(dt), shape=list(a.shape))
    return header, data


def as_bytes(out):
    """A codec's bytes output as something that supports the buffer
    protocol without a copy where it can (a contiguous ndarray or bytes)."""
    if isinstance(out, bytes):
        return out
    if isinstance(out, np.ndarray):
        return np.ascontiguousarray(out).view(np.uint8).reshape(-1)
    return memoryview(out).cast("B")


def _uvarint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _pack_strings(a):
    parts = []
    for v in a.reshape(-1):
        if isinstance(v, str):
            v = v.encode("utf-8")
        elif not isinstance(v, (bytes, bytearray)):
            raise TypeError("object array element %r is neither str nor bytes" % (v,))
        parts.append(_uvarint(len(v)))
        parts.append(bytes(v))
    return b"".join(parts)


def _unpack_strings(data, n, dt):
    data = bytes(data)
    out = np.empty(n, dtype=object)
    pos = 0
    as_str = dt.kind == 7
    for i in range(n):
        length, shift = 0, 0
        while True:
            if pos >= len(data):
                raise CorruptError("string %d of %d is truncated" % (i, n))
            b = data[pos]
            pos += 1
            length |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                break
            if shift > 63:
                raise CorruptError("string %d of %d has an invalid length" % (i, n))
        if length > len(data) - pos:
            raise CorruptError("string %d of %d is truncated" % (i, n))
        v = data[pos:pos + length]
        pos += length
        out[i] = v.decode("utf-8", errors="surrogateescape") if as_str else v
    if pos != len(data):
        raise CorruptError("%d bytes after the last of %d strings" % (len(data) - pos, n))
    return out
