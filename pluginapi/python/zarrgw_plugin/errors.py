"""Errors a codec raises, mapped onto the plugin protocol's error kinds.

The host matches these kinds the way Go code matches zarrgw's sentinel
errors: a CorruptError is codec.ErrCorrupt on the host (the chunk is
reported as corrupt, never read as fill values), a ConfigError is a
configuration that fails validation, with the offending fields.

Any other exception raised by a codec fails the call too, as an internal
error of the plugin naming the codec, the operation and the exception; its
traceback goes to the plugin's log.
"""

import grpc


class PluginError(Exception):
    """An error with a gRPC status code and protocol error kinds."""

    code = grpc.StatusCode.UNKNOWN
    kinds = ()

    def fields(self):
        """The configuration fields at fault, as (JSON pointer, message)."""
        return []


class CorruptError(PluginError):
    """The input cannot be decoded: truncated, altered, or the wrong size."""

    code = grpc.StatusCode.DATA_LOSS
    kinds = ("CORRUPT",)


class ConfigError(PluginError):
    """A configuration the codec cannot be built from.

    path is a JSON pointer to the field at fault ("/level"), "" for the
    configuration as a whole.
    """

    code = grpc.StatusCode.INVALID_ARGUMENT
    kinds = ("INVALID_CONFIG",)

    def __init__(self, message, path=""):
        super().__init__(message)
        self.path = path
        self.message = message

    def fields(self):
        return [(self.path, self.message)]


class UnavailableError(PluginError):
    """The plugin serves no codec of that name (in this environment)."""

    code = grpc.StatusCode.NOT_FOUND
    kinds = ("CODEC_UNAVAILABLE",)
