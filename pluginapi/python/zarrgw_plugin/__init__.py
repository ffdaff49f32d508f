"""zarrgw_plugin: codecs for zarrgw written in Python.

A codec is a class with encode and decode and a manifest; serve() serves
it to zarrgw over the plugin protocol (gRPC, through go-plugin's
handshake), out of zarrgw's process:

    import zarrgw_plugin as zp

    class Xor(zp.BytesBytesCodec):
        manifest = zp.Manifest("xor", uris=["https://example.com/xor/1.0"], version="1.0.0")

        def encode(self, data, spec): ...
        def decode(self, data, spec): ...

    zp.serve(Xor)

See pluginapi/python/README.md for the walk-through.
"""

from .codec import (ArrayArrayCodec, ArrayBytesCodec, BytesBytesCodec, Codec, DataType, Manifest,
                    Registration, Spec)
from .errors import ConfigError, CorruptError, PluginError, UnavailableError
from .log import logger
from .server import serve

__all__ = [
    "ArrayArrayCodec", "ArrayBytesCodec", "BytesBytesCodec", "Codec", "DataType", "Manifest",
    "Registration", "Spec", "ConfigError", "CorruptError", "PluginError", "UnavailableError",
    "logger", "serve",
]
