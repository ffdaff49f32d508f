"""What a codec is: its manifest, its kind, and the spec of every call.

A codec is a class with encode and decode, of one of three kinds:

- BytesBytesCodec: bytes -> bytes (compressors, checksums);
- ArrayBytesCodec: an array -> bytes (serialisers, zfp);
- ArrayArrayCodec: an array -> an array (filters: packbits, categorize).

Bytes come in as a bytes-like object (bytes, or a memoryview of shared
memory the host reuses once the call returns: never keep it) and go out as
any bytes-like object or a numpy array. Arrays are numpy arrays in native
(little-endian) byte order and C order; the spec says their data type and
shape.
"""

import json

import numpy as np

from .errors import ConfigError

# Data type kinds, as the protocol numbers them (core/dtype.Kind).
BOOL, INT, UINT, FLOAT, COMPLEX, RAW, STRING, BYTES, FIXED_BYTES, FIXED_UNICODE, DATETIME, TIMEDELTA = range(1, 13)


class DataType:
    """A chunk's element type as zarrgw names it.

    name is as written in metadata ("float32", "r24", "U7", "O",
    "M8[ns]"); kind one of the module's kind constants; size the bytes per
    element (0 for variable-length types); unit a datetime's unit.
    """

    __slots__ = ("name", "kind", "size", "unit")

    def __init__(self, name, kind, size, unit=""):
        self.name, self.kind, self.size, self.unit = name, kind, size, unit

    def __repr__(self):
        return "DataType(%r)" % self.name

    def __eq__(self, other):
        return isinstance(other, DataType) and (self.name, self.kind, self.size, self.unit) == (
            other.name, other.kind, other.size, other.unit)

    @property
    def variable(self):
        return self.kind in (STRING, BYTES)

    @property
    def numpy(self):
        """The numpy dtype of this type in memory (object for strings)."""
        k, n = self.kind, self.size
        if k == BOOL:
            return np.dtype(bool)
        if k in (INT, UINT, FLOAT, COMPLEX):
            return np.dtype("<%s%d" % ({INT: "i", UINT: "u", FLOAT: "f", COMPLEX: "c"}[k], n))
        if k == RAW:
            return np.dtype("V%d" % n)
        if k == FIXED_BYTES:
            return np.dtype("S%d" % n)
        if k == FIXED_UNICODE:
            return np.dtype("<U%d" % (n // 4))
        if k in (DATETIME, TIMEDELTA):
            code = "M8" if k == DATETIME else "m8"
            return np.dtype("<%s[%s]" % (code, self.unit) if self.unit else "<" + code)
        return np.dtype(object)

    @classmethod
    def of(cls, dt):
        """The data type of a numpy dtype (native or not)."""
        dt = np.dtype(dt)
        c, n = dt.kind, dt.itemsize
        if c == "b":
            return cls("bool", BOOL, 1)
        if c in "iufc":
            kind = {"i": INT, "u": UINT, "f": FLOAT, "c": COMPLEX}[c]
            base = {"i": "int", "u": "uint", "f": "float", "c": "complex"}[c]
            return cls("%s%d" % (base, 8 * n), kind, n)
        if c == "S":
            return cls("S%d" % n, FIXED_BYTES, n)
        if c == "U":
            return cls("U%d" % (n // 4), FIXED_UNICODE, n)
        if c == "V":
            return cls("r%d" % (8 * n), RAW, n)
        if c in "Mm":
            unit = np.datetime_data(dt)[0]
            code = "M8" if c == "M" else "m8"
            return cls("%s[%s]" % (code, unit), DATETIME if c == "M" else TIMEDELTA, 8, unit)
        if c == "O":
            return cls("string", STRING, 0)
        raise ValueError("numpy dtype %s has no zarrgw data type" % dt)


class Spec:
    """The chunk a codec call works on.

    data_type (DataType) and shape (a tuple) describe the array; fill_value
    is one element in memory form (bytes) or None; for a bytes->bytes
    decode, decoded_size is the exact size the output must have (-1 when
    unknown) and max_decoded_size a bound on it (0 for none): output that
    does not fit them means corrupt input (raise CorruptError).
    """

    __slots__ = ("data_type", "shape", "fill_value", "decoded_size", "max_decoded_size")

    def __init__(self, data_type, shape, fill_value=None, decoded_size=-1, max_decoded_size=0):
        self.data_type = data_type
        self.shape = tuple(shape)
        self.fill_value = fill_value
        self.decoded_size = decoded_size
        self.max_decoded_size = max_decoded_size

    def __repr__(self):
        return "Spec(%s%s)" % (self.data_type.name, list(self.shape))

    @property
    def dtype(self):
        """The numpy dtype of the chunk's elements."""
        return self.data_type.numpy

    @property
    def size(self):
        """The number of elements."""
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def fill(self):
        """The fill value as a numpy scalar, or None."""
        if self.fill_value is None or self.data_type.variable:
            return None
        return np.frombuffer(self.fill_value, dtype=self.dtype)[0]

    def with_array(self, dtype=None, shape=None):
        """A spec for an array of another dtype or shape (an output spec)."""
        data_type = self.data_type if dtype is None else DataType.of(dtype)
        fill = self.fill_value if dtype is None else None
        return Spec(data_type, self.shape if shape is None else shape, fill)


class Manifest:
    """What a codec is: its registered name, the spec URIs it implements,
    its version, other names it answers to, and the JSON Schema zarrgw
    checks HCL codec blocks against (a dict, or None)."""

    def __init__(self, name, uris=(), version="0.0.0", aliases=(), config_schema=None):
        self.name, self.uris, self.version = name, list(uris), version
        self.aliases, self.config_schema = list(aliases), config_schema

    def answers_to(self, name):
        return name == self.name or name in self.aliases or name in self.uris


class Registration:
    """A manifest and the factory building a codec from a configuration
    (a dict): what serve() serves. A codec class with a `manifest` class
    attribute is its own registration."""

    def __init__(self, manifest, factory, kind=None):
        self.manifest, self.factory, self.kind = manifest, factory, kind

    @classmethod
    def of(cls, item):
        if isinstance(item, Registration):
            return item
        manifest = getattr(item, "manifest", None)
        if not isinstance(manifest, Manifest):
            raise TypeError("%r is neither a Registration nor a codec class with a Manifest" % (item,))
        return cls(manifest, item, kind_of(item))


class Codec:
    """The base of every codec: built from its configuration (a dict)."""

    kind = None

    def __init__(self, configuration):
        self.config = configuration

    def configuration(self):
        """The configuration written to array metadata (a dict)."""
        return self.config


class BytesBytesCodec(Codec):
    """encode(data, spec) -> bytes; decode(data, spec) -> bytes.

    May define encoded_size(spec, decoded_size) -> int, when the encoded
    size follows from the decoded size alone, so zarrgw can check sizes.
    """

    kind = "bytes_to_bytes"

    def encode(self, data, spec):
        raise NotImplementedError

    def decode(self, data, spec):
        raise NotImplementedError


class ArrayBytesCodec(Codec):
    """encode(array, spec) -> bytes; decode(data, spec) -> array."""

    kind = "array_to_bytes"

    def encode(self, array, spec):
        raise NotImplementedError

    def decode(self, data, spec):
        raise NotImplementedError


class ArrayArrayCodec(Codec):
    """encode(array, spec) -> array; decode(array, spec) -> array.

    output_spec(spec) says what encode makes of an array of that spec: the
    same spec unless the codec changes the dtype or shape.
    """

    kind = "array_to_array"

    def encode(self, array, spec):
        raise NotImplementedError

    def decode(self, array, spec):
        raise NotImplementedError

    def output_spec(self, spec):
        return spec


def kind_of(cls_or_codec):
    kind = getattr(cls_or_codec, "kind", None)
    if kind not in ("bytes_to_bytes", "array_to_bytes", "array_to_array"):
        raise TypeError("%r is none of BytesBytesCodec, ArrayBytesCodec, ArrayArrayCodec" % (cls_or_codec,))
    return kind


def config_json(configuration):
    """A configuration as compact JSON, the form metadata records."""
    return json.dumps(configuration, separators=(",", ":"), sort_keys=True).encode()


def parse_config(raw, name):
    """The configuration bytes of a call as a dict."""
    if not raw:
        return {}
    try:
        cfg = json.loads(raw)
    except ValueError as e:
        raise ConfigError("%s: configuration is not JSON: %s" % (name, e))
    if cfg is None:
        return {}
    if not isinstance(cfg, dict):
        raise ConfigError("%s: configuration must be a JSON object" % name)
    return cfg
