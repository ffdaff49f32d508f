"""The registered `zfp` codec (zarr-extensions codecs/zfp), through zfpy.

An array->bytes codec: the zfp library's stream of the chunk, WITHOUT the
header numcodecs' zfpy writes (the codec's configuration says what it
would). zarrgw has no zfp of its own (no sound pure-Go zfp exists), so the
numcodecs bridge serves it with the zfp library's Python binding, zfpy.

What zfpy can and cannot do decides what is served:
- modes reversible, fixed_accuracy, fixed_rate and fixed_precision; the
  expert mode's four parameters cannot be set through zfpy, so expert is
  refused, naming the codec and the mode;
- fixed_rate is zfp_stream_set_rate(rate, type, dims) of the chunk's type
  and dimensions, as zfp defines it; zfpy's compress_numpy passes no type
  (so no minimum bits per block), so the bridge works out the bits per
  block itself and hands zfpy the rate that gives exactly those bits;
- data types int32, uint32, int64, uint64, float32, float64, and by the
  spec's promotion int8, uint8, int16, uint16 (to int32) and float16 (to
  float32). uint32 and uint64 go to int32 and int64 as zarrs maps them
  (it clamps values above the signed maximum): the bridge refuses such a
  value rather than write a clamped one, and decodes negatives as 0 as
  zarrs does.

Streams are padded to a multiple of 8 bytes: zfp built with 64-bit stream
words (zarrs, PyPI's zfpy) writes that, and reads whole words, so a
shorter stream would make such a reader read past its end; Debian's zfp
(8-bit words) writes the same bits without the padding.

A chunk is untrusted input, and zfp streams carry no checksum: a stream
longer than zfp could write for the chunk is refused, and a stream is
decoded twice, padded with zero bits and with one bits, so that one cut
short before its last block (whose decode reads the padding) is refused.
An altered byte inside a lossy stream still decodes to other values
without an error, as in every zfp reader.
"""

import math

import numpy as np

import zarrgw_plugin as zp

NAME = "zfp"

MODES = ("reversible", "expert", "fixed_accuracy", "fixed_rate", "fixed_precision")

# The registry's schema of the configuration (codecs/zfp/schema.json).
CONFIG_SCHEMA = {
    "type": "object",
    "oneOf": [
        {"properties": {"mode": {"const": "reversible"}}, "required": ["mode"], "additionalProperties": False},
        {"properties": {"mode": {"const": "expert"}, "minbits": {"type": "integer", "minimum": 0},
                        "maxbits": {"type": "integer", "minimum": 0}, "maxprec": {"type": "integer", "minimum": 0},
                        "minexp": {"type": "integer"}},
         "required": ["mode", "minbits", "maxbits", "maxprec", "minexp"], "additionalProperties": False},
        {"properties": {"mode": {"const": "fixed_accuracy"}, "tolerance": {"type": "number"}},
         "required": ["mode", "tolerance"], "additionalProperties": False},
        {"properties": {"mode": {"const": "fixed_rate"}, "rate": {"type": "number"}},
         "required": ["mode", "rate"], "additionalProperties": False},
        {"properties": {"mode": {"const": "fixed_precision"}, "precision": {"type": "integer", "minimum": 0}},
         "required": ["mode", "precision"], "additionalProperties": False},
    ],
}

# The parameter each mode takes besides "mode".
PARAMETER = {"reversible": None, "fixed_accuracy": "tolerance", "fixed_rate": "rate", "fixed_precision": "precision"}

# More bits per value than the widest zfp type holds is never useful; the
# bound keeps a fixed_rate configuration from making streams of any size.
MAX_RATE = 64

# zfpy takes the precision as a C int.
MAX_PRECISION = 2**31 - 1


class Promotion:
    """How a chunk's data type goes to the zfp type and back (the spec's
    "Format and algorithm" section)."""

    def __init__(self, zfp_dtype, encode, decode):
        self.zfp_dtype = np.dtype(zfp_dtype)
        self.encode, self.decode = encode, decode

    @property
    def integer(self):
        return self.zfp_dtype.kind == "i"


def _shift_up(bits, offset=0):
    """intN (offset 0) or uintN (offset 2^(N-1)) to int32: (v - offset) << (31 - N)."""
    return lambda a: (a.astype(np.int32) - offset) << (31 - bits)


def _shift_down(dtype, bits, offset=0):
    """int32 back to intN or uintN: clamp((v >> (31 - N)) + offset)."""
    info = np.iinfo(dtype)
    return lambda a: np.clip((a >> (31 - bits)) + offset, info.min, info.max).astype(dtype)


def _unsigned_to_signed(signed):
    """uint32/uint64 to int32/int64, refusing what the signed type cannot
    hold (zarrs clamps it: that would be other values)."""
    top = np.iinfo(signed).max

    def promote(a):
        if a.size and a.max() > top:
            raise ValueError("%s: a %s value %d is above %d, the most zfp's %s holds (zarrs would clamp it)" % (
                NAME, a.dtype, int(a.max()), top, np.dtype(signed)))
        return a.astype(signed)
    return promote


def _signed_to_unsigned(unsigned):
    return lambda a: np.maximum(a, 0).astype(unsigned)


def _same(a):
    return a


PROMOTIONS = {
    "int32": Promotion("<i4", _same, _same),
    "int64": Promotion("<i8", _same, _same),
    "float32": Promotion("<f4", _same, _same),
    "float64": Promotion("<f8", _same, _same),
    "uint32": Promotion("<i4", _unsigned_to_signed(np.int32), _signed_to_unsigned(np.uint32)),
    "uint64": Promotion("<i8", _unsigned_to_signed(np.int64), _signed_to_unsigned(np.uint64)),
    "int8": Promotion("<i4", _shift_up(8), _shift_down(np.int8, 8)),
    "int16": Promotion("<i4", _shift_up(16), _shift_down(np.int16, 16)),
    "uint8": Promotion("<i4", _shift_up(8, 0x80), _shift_down(np.uint8, 8, 0x80)),
    "uint16": Promotion("<i4", _shift_up(16, 0x8000), _shift_down(np.uint16, 16, 0x8000)),
    "float16": Promotion("<f4", lambda a: a.astype(np.float32), lambda a: a.astype(np.float16)),
}


def _number(config, key, integer):
    v = config.get(key)
    if isinstance(v, bool) or not isinstance(v, (int,) if integer else (int, float)):
        raise zp.ConfigError("%s: mode %r needs %r, %s" % (
            NAME, config["mode"], key, "an integer" if integer else "a number"), path="/" + key)
    if not math.isfinite(v):
        raise zp.ConfigError("%s: %r must be finite" % (NAME, key), path="/" + key)
    return v


def _check(config):
    """The configuration's mode and parameter, checked: each refusal names
    the codec and the field."""
    if not isinstance(config, dict):
        raise zp.ConfigError("%s: the configuration must be an object" % NAME)
    mode = config.get("mode")
    if mode not in MODES:
        raise zp.ConfigError("%s: mode %r is none of %s" % (NAME, mode, ", ".join(MODES)), path="/mode")
    if mode == "expert":
        raise zp.ConfigError("%s: mode \"expert\" is not served: zfpy, through which the numcodecs bridge "
                             "runs zfp, cannot set minbits, maxbits, maxprec and minexp" % NAME, path="/mode")
    key = PARAMETER[mode]
    extra = sorted(set(config) - {"mode", key})
    if extra:
        raise zp.ConfigError("%s: mode %r takes no %s" % (NAME, mode, ", ".join(map(repr, extra))),
                             path="/" + extra[0])
    if key is None:
        return mode, None
    v = _number(config, key, integer=(key == "precision"))
    if key == "tolerance" and v < 0:
        raise zp.ConfigError("%s: tolerance %r is negative" % (NAME, v), path="/tolerance")
    if key == "rate" and not 0 < v <= MAX_RATE:
        raise zp.ConfigError("%s: rate %r is not in (0, %d] bits per value" % (NAME, v, MAX_RATE), path="/rate")
    if key == "precision" and not 0 <= v <= MAX_PRECISION:
        raise zp.ConfigError("%s: precision %r is not in [0, %d]" % (NAME, v, MAX_PRECISION), path="/precision")
    return mode, v


def _field_shape(spec):
    """The zfp field of a chunk: its shape, a 0-dimensional chunk as nx=1;
    zfp has fields of 1 to 4 dimensions."""
    shape = tuple(spec.shape) or (1,)
    if len(shape) > 4:
        raise ValueError("%s: a chunk of %d dimensions %s: zfp fields have 1 to 4 (squeeze singleton "
                         "dimensions with a codec before zfp)" % (NAME, len(shape), list(spec.shape)))
    return shape


class Zfp(zp.ArrayBytesCodec):
    """The registered zfp codec."""

    manifest = zp.Manifest(NAME, version="1.0.0", config_schema=CONFIG_SCHEMA)

    def __init__(self, configuration):
        self.mode, self.value = _check(configuration)
        super().__init__(dict(configuration))
        import zfpy  # checked by available(); here so a module import never needs it
        self._zfpy = zfpy

    def _promotion(self, spec):
        p = PROMOTIONS.get(spec.data_type.name)
        if p is None:
            raise ValueError("%s: no data type %s: zfp takes %s" % (NAME, spec.data_type.name, ", ".join(PROMOTIONS)))
        if self.mode == "fixed_accuracy" and p.integer:
            raise ValueError("%s: mode \"fixed_accuracy\" is for floating-point data, not %s" % (
                NAME, spec.data_type.name))
        return p

    def _rate_bits(self, promotion, dims):
        """Bits per block of fixed_rate, as zfp_stream_set_rate(rate, type,
        dims, 0) sets them: a float block has at least 9, a double 12."""
        bits = math.floor((4 ** dims) * self.value + 0.5)
        minimum = {"f4": 9, "f8": 12}.get(promotion.zfp_dtype.str[1:], 0)
        bits = max(bits, minimum)
        if bits == 0:
            raise ValueError("%s: rate %r gives blocks of 0 bits" % (NAME, self.value))
        return bits

    def _parameters(self, promotion, dims):
        """zfpy's keyword arguments for the mode (none: reversible)."""
        if self.mode == "fixed_accuracy":
            return {"tolerance": float(self.value)}
        if self.mode == "fixed_precision":
            return {"precision": int(self.value)}
        if self.mode == "fixed_rate":
            # bits / 4^dims is exact, and zfp rounds it back to bits.
            return {"rate": self._rate_bits(promotion, dims) / 4 ** dims}
        return {}

    def _max_stream_bytes(self, promotion, shape):
        """More than zfp writes for a field of shape in this mode: per
        block, every value's bit planes with a group test bit each and the
        block's exponent (zfp_stream_maximum_size), or a fixed rate's bits."""
        dims = len(shape)
        blocks = 1
        for n in shape:
            blocks *= -(-n // 4)
        per_block = 4 ** dims * (8 * promotion.zfp_dtype.itemsize + 1) + 20
        if self.mode == "fixed_rate":
            per_block = max(per_block, self._rate_bits(promotion, dims))
        return (blocks * per_block + 63) // 64 * 8 + 8

    def encode(self, array, spec):
        if spec.size == 0:
            return b""
        p = self._promotion(spec)
        shape = _field_shape(spec)
        field = np.ascontiguousarray(p.encode(np.asarray(array).reshape(shape)), dtype=p.zfp_dtype)
        out = self._zfpy.compress_numpy(field, write_header=False, **self._parameters(p, len(shape)))
        return out + bytes(-len(out) % 8)

    def decode(self, data, spec):
        b = bytes(data)
        if spec.size == 0:
            if b:
                raise zp.CorruptError("%s: %d bytes for an empty chunk" % (NAME, len(b)))
            return np.zeros(spec.shape, dtype=spec.dtype)
        p = self._promotion(spec)
        shape = _field_shape(spec)
        limit = self._max_stream_bytes(p, shape)
        if not b or len(b) > limit:
            raise zp.CorruptError("%s: a stream of %d bytes for a chunk of %s%s (zfp writes 1 to %d)" % (
                NAME, len(b), spec.data_type.name, list(spec.shape), limit))
        kw = self._parameters(p, len(shape))
        zeros = self._decompress(b + bytes(limit), p, shape, kw)
        ones = self._decompress(b + b"\xff" * limit, p, shape, kw)
        if zeros.tobytes() != ones.tobytes():
            raise zp.CorruptError("%s: the stream ends before its last block (%d bytes)" % (NAME, len(b)))
        return p.decode(zeros).reshape(spec.shape).astype(spec.dtype, copy=False)

    def _decompress(self, b, promotion, shape, kw):
        ztype = self._zfpy.dtype_to_ztype(promotion.zfp_dtype)
        try:
            out = self._zfpy._decompress(b, ztype, list(shape), **kw)
        except Exception as e:
            raise zp.CorruptError("%s: %s: %s" % (NAME, type(e).__name__, e))
        return np.asarray(out).reshape(shape)


def available():
    """Whether zfpy imports here (Debian's python3-zfpy)."""
    try:
        import zfpy  # noqa: F401
    except ImportError:
        return False
    return True


def registration():
    return zp.Registration.of(Zfp)
