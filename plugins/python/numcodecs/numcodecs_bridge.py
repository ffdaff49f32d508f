"""The numcodecs bridge: numcodecs codecs served to zarrgw.

Every codec numcodecs has in this Python environment is served under its
Zarr v2 id (as a .zarray's "compressor" or "filters" entry names it) and
under the name zarr-python 3 writes for it in zarr.json
("numcodecs.<id>"), its configuration passed through. By default the
bridge serves the codecs zarrgw does not bundle, so that zarrgw's own
(Go) zstd, blosc, ... stay in use; --codecs names exactly which to serve
(bundled ones included, say to compare them), --exclude removes some.

Kinds follow where zarr-python puts each codec: filters that work on
arrays (delta, packbits, categorize, astype, ...) are array->array, and
get the chunk's data type and shape; compressors are bytes->bytes (in v2)
and zfpy is array->bytes under its v3 name, as in zarr-python 3. A v2
compressor that needs the array (zfpy) gets it: the chunk's bytes viewed
with its data type and shape, as zarr-python 2 hands them over.

It also serves the registered zfp codec (registered_zfp.py), which is
not a numcodecs codec but runs on the same zfpy.
"""

import argparse

import numpy as np
import numcodecs
from numcodecs.registry import codec_registry

import zarrgw_plugin as zp
import registered_zfp

# The numcodecs ids zarrgw bundles in Go (zarrgw plugins list): not served
# by default, so the bridge does not take them over.
BUNDLED = {
    "adler32", "bitround", "blosc", "bz2", "crc32", "crc32c", "delta", "fixedscaleoffset", "fletcher32",
    "gzip", "json2", "lz4", "quantize", "shuffle", "vlen-bytes", "vlen-utf8", "zlib", "zstd",
}

# Never served: pickle runs arbitrary code when it decodes (a chunk is
# untrusted input); vlen-array's elements are arrays, which the protocol
# does not carry; the object codecs of old numcodecs versions.
REFUSED = {"pickle", "vlen-array", "json", "msgpack", "msgpack2"}

# numcodecs' filters that work on arrays (array->array in v3), as zarr
# v2 and zarr-python 3 (numcodecs.zarr3) place them.
ARRAY_FILTERS = {"astype", "bitround", "categorize", "delta", "fixedscaleoffset", "packbits", "quantize"}

# Codecs that serialise arrays under their v3 names (numcodecs.zarr3).
ARRAY_TO_BYTES_V3 = {"zfpy", "pcodec"}

V3_PREFIX = "numcodecs."


def _build(codec_id, config):
    """The numcodecs codec of codec_id with config; a configuration
    numcodecs refuses is a ConfigError naming the codec."""
    if "id" in config and config["id"] != codec_id:
        raise zp.ConfigError("%s: configuration names another codec, %r" % (codec_id, config["id"]), path="/id")
    cfg = dict(config)
    cfg["id"] = codec_id
    try:
        return numcodecs.get_codec(cfg)
    except (TypeError, ValueError, KeyError) as e:
        raise zp.ConfigError("%s: %s" % (codec_id, e))


def _config_of(codec):
    cfg = dict(codec.get_config())
    cfg.pop("id", None)
    return cfg


def _as_uint8(out):
    """A numcodecs output (bytes, bytearray, array.array, ndarray) as its
    bytes, without a copy where numpy allows."""
    return np.ascontiguousarray(numcodecs.compat.ensure_ndarray(out)).reshape(-1).view(np.uint8)


def _decoded(codec_id, fn, data):
    """Runs a decode; numcodecs and the libraries below it fail on corrupt
    input with all kinds of exceptions: each is corrupt input."""
    try:
        return fn(data)
    except zp.PluginError:
        raise
    except Exception as e:
        raise zp.CorruptError("%s: %s: %s" % (codec_id, type(e).__name__, e))


class ZfpGuard:
    """Makes zfpy safe on untrusted chunks. zfp streams carry no checksum,
    and the zfp library reads past the end of a truncated or altered
    stream (it crashed the plugin in the conformance suite) and allocates
    whatever shape an altered header names. So, before decoding, the
    stream's header (magic and the 52 bits of type and shape after it)
    must be the one zfp writes for this chunk's type and shape; then the
    stream is decoded twice, padded with zeros and with ones: a stream
    that ends before its last block reads the padding, and the two
    decodes differ. The cost is a second decode."""

    HEADER_BYTES = 10  # bits 0-79: magic and most of the meta

    def __init__(self):
        self._headers = {}

    def header(self, spec):
        key = (spec.dtype.str, spec.shape)
        h = self._headers.get(key)
        if h is None:
            import zfpy
            try:
                h = zfpy.compress_numpy(np.zeros(spec.shape, dtype=spec.dtype))[:self.HEADER_BYTES + 1]
            except Exception as e:
                raise zp.CorruptError("zfpy: no zfp stream holds a chunk of %s%s: %s" % (
                    spec.data_type.name, list(spec.shape), e))
            self._headers[key] = h
        return h

    def decode(self, codec, data, spec):
        want = self.header(spec)
        b = bytes(data)
        n = self.HEADER_BYTES
        if len(b) <= n or b[:n] != want[:n] or (b[n] & 0x0F) != (want[n] & 0x0F):
            raise zp.CorruptError("zfpy: the stream's header does not describe a chunk of %s%s" % (
                spec.data_type.name, list(spec.shape)))
        # A block never takes more than its raw bits plus a little.
        pad = spec.size * spec.dtype.itemsize // 4 + 4096
        zeros = np.asarray(_decoded("zfpy", codec.decode, b + bytes(pad)))
        ones = np.asarray(_decoded("zfpy", codec.decode, b + b"\xff" * pad))
        if zeros.shape != ones.shape or zeros.tobytes() != ones.tobytes():
            raise zp.CorruptError("zfpy: the stream ends before its last block (%d bytes)" % len(b))
        return zeros


_zfp = ZfpGuard()


def _decode_any(codec_id, codec, data, spec):
    """Decodes with numcodecs, zfpy through its guard."""
    if codec_id == "zfpy":
        return _zfp.decode(codec, data, spec)
    return _decoded(codec_id, codec.decode, np.frombuffer(data, dtype=np.uint8))


def _to_dtype(a, dtype):
    """a as dtype, keeping the values (a byte-order change included)."""
    return a if a.dtype == dtype else a.astype(dtype)


def _input_dtype(codec, a):
    """The dtype a v2 filter reads its input as: zarr-python 2 hands a
    filter the chunk in the array's dtype, which is the filter's "dtype"
    when it has one (delta, fixedscaleoffset, quantize, astype's
    decode_dtype); numcodecs views (not converts) its input as that."""
    for key in ("dtype", "decode_dtype"):
        name = getattr(codec, key, None)
        if name is not None:
            dt = np.dtype(name)
            if dt.kind == a.dtype.kind or (dt.kind in "OU" and a.dtype.kind in "OU"):
                return dt
    return a.dtype


class _Numcodec:
    """What every bridged codec holds: the numcodecs codec of its id
    (a class attribute of each registration's class), built from the
    configuration, which it reports as numcodecs normalises it."""

    codec_id = None

    def __init__(self, config):
        self.codec = _build(self.codec_id, config)

    def configuration(self):
        return _config_of(self.codec)


class BytesBytes(_Numcodec, zp.BytesBytesCodec):
    """A numcodecs compressor (or bytes filter) as a bytes->bytes codec."""

    def encode(self, data, spec):
        buf = np.frombuffer(data, dtype=np.uint8)
        dt = spec.dtype
        if dt.kind != "O" and buf.nbytes == spec.size * dt.itemsize and spec.size > 0:
            # The bytes are the chunk itself: give codecs that care (zfpy)
            # the array, as zarr-python 2 does.
            buf = buf.view(dt).reshape(spec.shape)
        return _as_uint8(self.codec.encode(buf))

    def decode(self, data, spec):
        return _as_uint8(_decode_any(self.codec_id, self.codec, data, spec))


class ArrayBytes(_Numcodec, zp.ArrayBytesCodec):
    """A numcodecs codec serialising arrays (zfpy under its v3 name)."""

    def encode(self, array, spec):
        return _as_uint8(self.codec.encode(np.ascontiguousarray(array)))

    def decode(self, data, spec):
        out = np.asarray(_decode_any(self.codec_id, self.codec, data, spec))
        return _shaped(self.codec_id, out.view(spec.dtype) if out.dtype.kind == "u" and out.itemsize == 1
                       and spec.dtype.itemsize != 1 else out, spec)


class ArrayArray(_Numcodec, zp.ArrayArrayCodec):
    """A numcodecs filter as an array->array codec."""

    def __init__(self, config):
        super().__init__(config)
        self._specs = {}

    def encode(self, array, spec):
        a = _to_dtype(array, _input_dtype(self.codec, array))
        if a.size == 0:
            # Some filters index their first element (delta): an empty
            # chunk encodes as an empty array of what one element makes.
            return np.asarray(self.codec.encode(np.zeros(1, dtype=a.dtype))).reshape(-1)[:0]
        return np.asarray(self.codec.encode(a))

    def decode(self, array, spec):
        if array.size == 0 and spec.size == 0:
            return np.zeros(spec.shape, dtype=spec.dtype)
        out = np.asarray(_decoded(self.codec_id, self.codec.decode, array))
        return _shaped(self.codec_id, out, spec)

    def output_spec(self, spec):
        # numcodecs does not say what a filter makes of an array: encode
        # one of the spec's shape (its fill value, else zeros) and see.
        key = (spec.data_type.name, spec.shape, spec.fill_value)
        out = self._specs.get(key)
        if out is None:
            fill = spec.fill
            probe = np.full(spec.shape, fill if fill is not None else 0, dtype=spec.dtype) \
                if spec.dtype.kind != "O" else np.full(spec.shape, "", dtype=object)
            enc = self.encode(probe, spec)
            out = spec.with_array(dtype=enc.dtype.newbyteorder("<") if enc.dtype.byteorder == ">" else enc.dtype,
                                  shape=enc.shape)
            self._specs[key] = out
        return out


def _shaped(codec_id, out, spec):
    """A decoded array in the chunk's shape and data type; one that cannot
    be is corrupt input."""
    if out.size != spec.size:
        raise zp.CorruptError("%s: decoded %d elements, want %d" % (codec_id, out.size, spec.size))
    try:
        return _to_dtype(out.reshape(spec.shape), spec.dtype)
    except (TypeError, ValueError) as e:
        raise zp.CorruptError("%s: decoded %s, want %s: %s" % (codec_id, out.dtype, spec.dtype, e))


def _registration(codec_id, name, base):
    cls = type("Numcodecs_" + name.replace(".", "_").replace("-", "_"), (base,), {"codec_id": codec_id})
    manifest = zp.Manifest(name, version=numcodecs.__version__,
                           config_schema={"type": "object"})
    return zp.Registration(manifest, cls, kind=base.kind)


def registrations(codec_ids):
    """The registrations serving codec_ids under their v2 ids and v3 names
    (the registered zfp under its name only)."""
    out = []
    for cid in sorted(codec_ids):
        if cid == registered_zfp.NAME:
            out.append(registered_zfp.registration())
            continue
        v2 = ArrayArray if cid in ARRAY_FILTERS else BytesBytes
        v3 = ArrayArray if cid in ARRAY_FILTERS else ArrayBytes if cid in ARRAY_TO_BYTES_V3 else BytesBytes
        out.append(_registration(cid, cid, v2))
        out.append(_registration(cid, V3_PREFIX + cid, v3))
    return out


def selected(argv=None):
    """The codec ids to serve, from the command line (the plugin block's
    args)."""
    p = argparse.ArgumentParser(prog="zarrgw-plugin-numcodecs")
    p.add_argument("--codecs", help="serve exactly these numcodecs ids (comma-separated)")
    p.add_argument("--exclude", default="", help="do not serve these ids (comma-separated)")
    args = p.parse_args(argv)
    available = set(codec_registry) - REFUSED
    if registered_zfp.available():
        # The registered zfp (not a numcodecs codec: zfp's stream without
        # zfpy's header), which zarrgw does not bundle.
        available.add(registered_zfp.NAME)
    if args.codecs:
        want = {c.strip() for c in args.codecs.split(",") if c.strip()}
        missing = sorted(want - available)
        if missing:
            raise SystemExit("zarrgw-plugin-numcodecs: numcodecs %s here has no codec %s (it has %s)" % (
                numcodecs.__version__, ", ".join(missing), ", ".join(sorted(available))))
    else:
        want = available - BUNDLED
    return want - {c.strip() for c in args.exclude.split(",")}
