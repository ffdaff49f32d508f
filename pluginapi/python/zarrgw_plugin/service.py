"""The plugin protocol's Plugin and Codec services, over the codecs served."""

import json
import logging
import mmap
import os
import threading
import traceback

import grpc
import numpy as np

from ._proto.google.rpc import status_pb2
from ._proto.zarrgw.v1 import codec_pb2, codec_pb2_grpc, plugin_pb2, plugin_pb2_grpc, types_pb2
from .codec import config_json, kind_of, parse_config
from .errors import ConfigError, CorruptError, PluginError, UnavailableError
from .wire import array_from_pb, array_to_pb, as_bytes, spec_from_pb, spec_to_pb

# The protocol version this SDK speaks (go-plugin's APP-PROTOCOL-VERSION).
PROTOCOL_VERSION = 1

# The most payload bytes one frame carries, as the Go SDK sends them.
FRAME_SIZE = 2 << 20
# Outputs of a batch beyond this (in total) go back for a call of their
# own on a stream, within the host's receive limit.
BATCH_RESPONSE_MAX = 12 << 20
TOO_LARGE_FOR_BATCH = "output too large for a batch"
ALIGN = 64

_KINDS = {
    "array_to_array": plugin_pb2.CODEC_KIND_ARRAY_TO_ARRAY,
    "array_to_bytes": plugin_pb2.CODEC_KIND_ARRAY_TO_BYTES,
    "bytes_to_bytes": plugin_pb2.CODEC_KIND_BYTES_TO_BYTES,
}
_ERROR_KINDS = {
    "CORRUPT": types_pb2.ERROR_KIND_CORRUPT,
    "INVALID_CONFIG": types_pb2.ERROR_KIND_INVALID_CONFIG,
    "CODEC_UNAVAILABLE": types_pb2.ERROR_KIND_CODEC_UNAVAILABLE,
}
_DETAIL_TYPE = "type.googleapis.com/zarrgw.v1.ErrorDetail"


class Failure(Exception):
    """A call's failure in protocol form: a status code, a message, the
    error detail (kinds and fields)."""

    def __init__(self, code, message, detail):
        super().__init__(message)
        self.code, self.message, self.detail = code, message, detail

    def to_pb(self):
        return types_pb2.Error(code=self.code.value[0], message=self.message, detail=self.detail)

    def abort(self, context):
        st = status_pb2.Status(code=self.code.value[0], message=self.message)
        st.details.add(type_url=_DETAIL_TYPE, value=self.detail.SerializeToString())
        context.set_trailing_metadata((("grpc-status-details-bin", st.SerializeToString()),))
        context.abort(self.code, self.message)


def failure(err, what, log):
    """The Failure describing err, raised while doing what (which names the
    codec and the operation).

    Calls catch BaseException, not Exception: a codec (or its library)
    calling sys.exit raises SystemExit, which escaping the handler would
    end its worker without an answer, leaving the host waiting forever.
    """
    if isinstance(err, Failure):
        return err
    detail = types_pb2.ErrorDetail()
    if isinstance(err, PluginError):
        code = err.code
        detail.kinds.extend(_ERROR_KINDS[k] for k in err.kinds)
        for path, msg in err.fields():
            detail.fields.add(path=path, message=msg)
        return Failure(code, "%s: %s" % (what, err), detail)
    # A bug in the codec (or its library): fail the call, naming the
    # exception, and keep its traceback in the log.
    log.error("%s: %s: %s" % (what, type(err).__name__, err), extra={"traceback": traceback.format_exc()})
    return Failure(grpc.StatusCode.UNKNOWN, "%s: %s: %s" % (what, type(err).__name__, err), detail)


class Arenas:
    """The host's shared memory arenas mapped into this process."""

    def __init__(self):
        self._lock = threading.Lock()
        self._maps = {}

    def map(self, ident, path, size):
        # The host removes the file once this call returns: map it now.
        fd = os.open(path, os.O_RDWR)
        try:
            mm = mmap.mmap(fd, size)
        finally:
            os.close(fd)
        with self._lock:
            old = self._maps.get(ident)
            self._maps[ident] = memoryview(mm)
        if old is not None:
            old.release()

    def span(self, sp):
        with self._lock:
            mem = self._maps.get(sp.arena)
        if mem is None:
            raise CorruptError("no arena %d is mapped" % sp.arena)
        if sp.offset > len(mem) or sp.length > len(mem) - sp.offset:
            raise CorruptError("arena span %d+%d beyond its %d bytes" % (sp.offset, sp.length, len(mem)))
        return mem[sp.offset:sp.offset + sp.length]

    def input(self, payload, data):
        """A payload's bytes: its frame data, or its arena span."""
        if payload.HasField("arena"):
            if data:
                raise CorruptError("payload both in frames and in an arena")
            data = self.span(payload.arena)
        if len(data) != payload.size:
            raise CorruptError("payload of %d bytes announced as %d" % (len(data), payload.size))
        return data


class OutRegion:
    """The part of an arena a host lent for a batch's outputs."""

    def __init__(self, arenas, sp):
        self.mem, self.sp, self.used = arenas.span(sp), sp, 0

    def place(self, data):
        """Copies data into the region; the span it is at, or None."""
        n = len(data)
        start = -(-self.used // ALIGN) * ALIGN
        if start + n > len(self.mem):
            return None
        self.mem[start:start + n] = data
        self.used = start + n
        return types_pb2.ArenaSpan(arena=self.sp.arena, offset=self.sp.offset + start, length=n)


class Codecs:
    """The codecs served, built on demand and kept by name and configuration."""

    MAX_BUILT = 1024

    def __init__(self, registrations, log):
        self.registrations = registrations
        self.log = log
        self._lock = threading.Lock()
        self._built = {}

    def registration(self, name):
        for r in self.registrations:
            if r.manifest.answers_to(name):
                return r
        raise UnavailableError("this plugin serves no codec named %r" % name)

    def get(self, ref):
        key = (ref.name, bytes(ref.configuration))
        with self._lock:
            c = self._built.get(key)
        if c is not None:
            return c
        r = self.registration(ref.name)
        cfg = parse_config(ref.configuration, ref.name)
        try:
            c = r.factory(cfg)
        except PluginError:
            raise
        except (ValueError, TypeError, KeyError) as e:
            raise ConfigError("%s: %s" % (ref.name, e))
        kind_of(c)
        with self._lock:
            if len(self._built) >= self.MAX_BUILT:
                self._built.clear()
            self._built[key] = c
        return c


class PluginService(plugin_pb2_grpc.PluginServicer):
    def __init__(self, codecs, arenas, features):
        self.codecs, self.arenas, self.features = codecs, arenas, features

    def Info(self, request, context):
        resp = plugin_pb2.InfoResponse(protocol_version=PROTOCOL_VERSION,
                                       features=plugin_pb2.Features(**self.features))
        for r in self.codecs.registrations:
            m = r.manifest
            resp.manifests.add(
                kind="codec", name=m.name, aliases=m.aliases, uris=m.uris, version=m.version,
                config_schema=json.dumps(m.config_schema).encode() if m.config_schema is not None else b"",
                codec_kind=_KINDS.get(r.kind, plugin_pb2.CODEC_KIND_UNSPECIFIED))
        return resp

    def Validate(self, request, context):
        resp = plugin_pb2.ValidateResponse()
        if request.kind != "codec":
            failure(UnavailableError("this plugin serves no %s named %r" % (request.kind, request.name)),
                    "validate", self.codecs.log).abort(context)
        try:
            self.codecs.get(codec_pb2.CodecRef(name=request.name, configuration=request.configuration))
        except UnavailableError as e:
            failure(e, "validate", self.codecs.log).abort(context)
        except ConfigError as e:
            resp.errors.add(path=e.path, message=str(e))
        except BaseException as e:  # the constructor refused it in its own way
            resp.errors.add(path="", message="%s: %s" % (type(e).__name__, e))
        return resp

    def MapArena(self, request, context):
        if not self.features.get("shared_memory"):
            context.abort(grpc.StatusCode.UNIMPLEMENTED, "this plugin maps no shared memory")
        self.codecs.log.debug("map arena", extra={"id": request.id, "size": request.size})
        try:
            self.arenas.map(request.id, request.path, request.size)
        except (OSError, ValueError) as e:
            context.abort(grpc.StatusCode.INTERNAL, "map arena: %s" % e)
        return plugin_pb2.MapArenaResponse()


class CodecService(codec_pb2_grpc.CodecServicer):
    def __init__(self, codecs, arenas, features):
        self.codecs, self.arenas, self.features = codecs, arenas, features
        self.log = codecs.log

    def _abort(self, context, err, what):
        failure(err, what, self.log).abort(context)

    def Describe(self, ref, context):
        try:
            c = self.codecs.get(ref)
            return codec_pb2.CodecInfo(
                name=self.codecs.registration(ref.name).manifest.name,
                kind=_KINDS[kind_of(c)], configuration=config_json(c.configuration()),
                sized=callable(getattr(c, "encoded_size", None)))
        except BaseException as e:
            self._abort(context, e, "codec %s" % ref.name)

    def OutputSpec(self, request, context):
        try:
            c = self.codecs.get(request.codec)
            if kind_of(c) != "array_to_array":
                raise PluginError("codec %s is not array->array" % request.codec.name)
            return spec_to_pb(c.output_spec(spec_from_pb(request.spec)))
        except BaseException as e:
            self._abort(context, e, "codec %s: output spec" % request.codec.name)

    def EncodedSize(self, request, context):
        try:
            c = self.codecs.get(request.codec)
            f = getattr(c, "encoded_size", None)
            n = f(spec_from_pb(request.spec), request.decoded_size) if callable(f) else None
            return codec_pb2.EncodedSizeResponse(size=-1 if n is None else n, ok=n is not None)
        except BaseException as e:
            self._abort(context, e, "codec %s: encoded size" % request.codec.name)

    def Run(self, request_iterator, context):
        try:
            first = next(request_iterator)
            # Each read of a bytes field copies it (protobuf's C++
            # messages make a new bytes object every time): read once.
            data = first.data
            parts, got = [data], len(data)
            size = first.payload.size
            for f in request_iterator:
                data = f.data
                got += len(data)
                if got > size:
                    raise CorruptError("more payload data than announced")
                parts.append(data)
            data = parts[0] if len(parts) == 1 else b"".join(parts)
            data = self.arenas.input(first.payload, data)
            payload, out = self.apply(first.call, first.payload, data)
        except BaseException as e:
            self._abort(context, e, self._what(first.call if "first" in locals() else None))
            return
        out = as_bytes(out)
        mv = memoryview(out).cast("B") if not isinstance(out, bytes) else out
        n = len(mv)
        payload.size = n
        if n <= FRAME_SIZE:
            yield codec_pb2.CodecFrame(payload=payload, data=bytes(mv))
            return
        for i in range(0, n, FRAME_SIZE):
            f = codec_pb2.CodecFrame(data=bytes(mv[i:i + FRAME_SIZE]))
            if i == 0:
                f.payload.CopyFrom(payload)
            yield f

    def Batch(self, request, context):
        if not self.features.get("batch"):
            context.abort(grpc.StatusCode.UNIMPLEMENTED, "this plugin does not batch")
        out = None
        if request.HasField("output"):
            try:
                out = OutRegion(self.arenas, request.output)
            except PluginError:
                out = None  # outputs go back inline
        resp = codec_pb2.BatchResponse()
        if self.log.isEnabledFor(logging.DEBUG):
            self.log.debug("batch", extra={"items": len(request.items), "shared_memory": out is not None})
        inline = 0
        for item in request.items:
            r = resp.results.add()
            try:
                data = self.arenas.input(item.payload, item.data)
                payload, result = self.apply(item.call, item.payload, data)
            except BaseException as e:
                r.error.CopyFrom(failure(e, self._what(item.call), self.log).to_pb())
                continue
            result = as_bytes(result)
            n = len(result) if isinstance(result, bytes) else result.nbytes
            payload.size = n
            sp = out.place(result) if out is not None and n > 0 else None
            if sp is not None:
                payload.arena.CopyFrom(sp)
            elif inline + n > BATCH_RESPONSE_MAX:
                r.error.code = grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
                r.error.message = TOO_LARGE_FOR_BATCH
                continue
            else:
                inline += n
                r.data = bytes(result) if not isinstance(result, bytes) else result
            r.payload.CopyFrom(payload)
        return resp

    def _what(self, call):
        if call is None:
            return "codec call"
        op = {codec_pb2.CODEC_OP_ENCODE: "encode", codec_pb2.CODEC_OP_DECODE: "decode"}.get(call.op, "call")
        return "codec %s: %s" % (call.codec.name, op)

    def apply(self, call, payload, data):
        """Runs one call; returns the output's payload header (size unset)
        and its bytes (bytes-like or a numpy array)."""
        c = self.codecs.get(call.codec)
        spec = spec_from_pb(call.spec)
        kind = kind_of(c)
        if call.op == codec_pb2.CODEC_OP_ENCODE:
            encode = True
        elif call.op == codec_pb2.CODEC_OP_DECODE:
            encode = False
        else:
            raise PluginError("unknown operation %d" % call.op)
        takes_array = kind == "array_to_array" or (kind == "array_to_bytes" and encode)
        if takes_array != payload.HasField("array"):
            raise CorruptError("codec %s takes %s, got %s" % (
                call.codec.name, "an array" if takes_array else "bytes", "an array" if payload.HasField("array") else "bytes"))
        inp = array_from_pb(payload.array, data) if takes_array else data
        result = c.encode(inp, spec) if encode else c.decode(inp, spec)
        gives_array = kind == "array_to_array" or (kind == "array_to_bytes" and not encode)
        p = types_pb2.Payload()
        if gives_array:
            if not isinstance(result, np.ndarray):
                raise PluginError("codec %s returned %s, not a numpy array" % (call.codec.name, type(result).__name__))
            header, arr = array_to_pb(result, like=spec.data_type)
            p.array.CopyFrom(header)
            return p, arr if isinstance(arr, bytes) else arr.reshape(-1).view(np.uint8)
        if isinstance(result, np.ndarray):
            result = np.ascontiguousarray(result).reshape(-1).view(np.uint8)
        if result is None:
            raise PluginError("codec %s returned nothing" % call.codec.name)
        if kind == "bytes_to_bytes" and not encode:
            check_decoded(call.codec.name, spec, result)
        return p, result


def check_decoded(name, spec, result):
    """A bytes->bytes decode's output must have the size the spec states,
    or stay within its bound: anything else is corrupt input, whatever
    the codec thought of it."""
    n = result.nbytes if isinstance(result, (np.ndarray, memoryview)) else len(result)
    if spec.decoded_size >= 0 and n != spec.decoded_size:
        raise CorruptError("codec %s: decoded %d bytes, want %d" % (name, n, spec.decoded_size))
    if spec.max_decoded_size > 0 and n > spec.max_decoded_size:
        raise CorruptError("codec %s: decoded %d bytes, more than %d" % (name, n, spec.max_decoded_size))
