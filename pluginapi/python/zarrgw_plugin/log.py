"""Logging in the form the host files under the plugin's name.

go-plugin's host reads the plugin's standard error line by line and parses
hclog's JSON lines ({"@level", "@message", "@timestamp", ...}); zarrgw logs
them under the plugin's name at the same level. The host passes its own
level in ZARRGW_PLUGIN_LOG_LEVEL so that a plugin does not write lines that
would be dropped. Never write to standard output: it carries the handshake.
"""

import datetime
import json
import logging
import os
import sys

LOG_LEVEL_ENV = "ZARRGW_PLUGIN_LOG_LEVEL"

_LEVELS = {
    "trace": 5,
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warn": logging.WARNING,
    "error": logging.ERROR,
}
_NAMES = {5: "trace", logging.DEBUG: "debug", logging.INFO: "info",
          logging.WARNING: "warn", logging.ERROR: "error", logging.CRITICAL: "error"}

# The real standard error, taken before serve() points sys.stderr at the
# stdio stream: log lines must reach the host's parser, not the stream.
_stderr = sys.__stderr__


class HCLogFormatter(logging.Formatter):
    """Formats records as hclog JSON lines; extra= fields become attributes."""

    _builtin = set(vars(logging.LogRecord("", 0, "", 0, "", None, None)))

    def format(self, record):
        line = {
            "@level": _NAMES.get(record.levelno, "info"),
            "@message": record.getMessage(),
            "@timestamp": datetime.datetime.fromtimestamp(record.created, datetime.timezone.utc)
            .strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        }
        for k, v in vars(record).items():
            if k not in self._builtin and k not in ("message", "asctime"):
                line[k] = v if isinstance(v, (str, int, float, bool)) or v is None else str(v)
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


def level():
    """The level the host asked for, as a logging level."""
    return _LEVELS.get(os.environ.get(LOG_LEVEL_ENV, "info").lower(), logging.INFO)


def logger(name="zarrgw_plugin"):
    """A logger writing hclog JSON to standard error at the host's level."""
    log = logging.getLogger(name)
    if not getattr(log, "_zarrgw", False):
        handler = logging.StreamHandler(_stderr)
        handler.setFormatter(HCLogFormatter())
        log.addHandler(handler)
        log.setLevel(level())
        log.propagate = False
        log._zarrgw = True
    return log
