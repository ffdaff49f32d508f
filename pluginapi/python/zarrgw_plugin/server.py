"""serve(): the go-plugin side of a plugin process.

What go-plugin's host expects of a plugin, in the order it happens:

1. the magic cookie in the environment (a plugin run by hand says so and
   exits) and a protocol version both sides speak;
2. with AutoMTLS (PLUGIN_CLIENT_CERT set), a certificate of our own, made
   now, and client certificates checked against the host's;
3. a gRPC server on a Unix socket serving the health service ("plugin" is
   SERVING), the controller (Shutdown), the stdio stream, the broker and
   the protocol's Plugin and Codec services;
4. one handshake line on stdout:
   CORE-VERSION|APP-VERSION|unix|SOCKET|grpc|SERVER-CERT (base64, no padding).

After the handshake, whatever the plugin prints goes to the host over the
stdio stream; log lines (zarrgw_plugin.log) go to the real stderr, where
the host parses them. The process exits when the host asks (Shutdown) or
goes away (its connection closes, or the process that started us ends).
"""

import base64
import datetime
import os
import queue
import signal
import sys
import tempfile
import threading
from concurrent import futures

import grpc

from ._proto.grpc.health.v1 import health_pb2, health_pb2_grpc
from ._proto.plugin import go_plugin_pb2, go_plugin_pb2_grpc
from ._proto.zarrgw.v1 import codec_pb2_grpc, plugin_pb2_grpc
from . import log as plugin_log
from .codec import Registration
from .service import PROTOCOL_VERSION, Arenas, Codecs, CodecService, PluginService

MAGIC_COOKIE_KEY = "ZARRGW_PLUGIN"
MAGIC_COOKIE_VALUE = "f1b5a7d2c3e94b0a8d6e2c71a9f04b3e"
CORE_PROTOCOL_VERSION = 1

# Messages up to this size are accepted: a frame (2 MiB) or a batch
# (the host bounds batches at 4 MiB of input) with room to spare.
MAX_MESSAGE = 64 << 20


def serve(*codecs, batch=True, shared_memory=True, workers=16):
    """Serves codecs (Registration objects or codec classes with a
    manifest) to zarrgw until it ends the plugin. Never returns.

    batch and shared_memory turn off the protocol's optional parts (the
    host then makes every call on a stream of its own, payloads in
    frames); workers is how many calls run at once.
    """
    log = plugin_log.logger()
    if os.environ.get(MAGIC_COOKIE_KEY) != MAGIC_COOKIE_VALUE:
        sys.__stderr__.write(
            "This program is a zarrgw plugin: zarrgw starts it when a configuration names what it serves.\n"
            "It is not meant to be run by hand.\n")
        sys.exit(1)
    versions = [v.strip() for v in os.environ.get("PLUGIN_PROTOCOL_VERSIONS", "1").split(",")]
    if str(PROTOCOL_VERSION) not in versions:
        log.error("the host speaks plugin protocol versions %s; this plugin speaks %d" % (",".join(versions), PROTOCOL_VERSION))
        sys.exit(1)

    registrations = [Registration.of(c) for c in codecs]
    features = {"batch": bool(batch), "shared_memory": bool(shared_memory)}
    codec_set = Codecs(registrations, log)
    arenas = Arenas()
    done = threading.Event()
    stdio = _Stdio()

    # Two workers more than asked: the stdio and broker streams hold one
    # each for the plugin's whole life.
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=workers + 2),
        options=[("grpc.max_receive_message_length", MAX_MESSAGE),
                 ("grpc.max_send_message_length", MAX_MESSAGE)])
    health_pb2_grpc.add_HealthServicer_to_server(_Health(), server)
    go_plugin_pb2_grpc.add_GRPCControllerServicer_to_server(_Controller(done), server)
    go_plugin_pb2_grpc.add_GRPCStdioServicer_to_server(_StdioService(stdio, done), server)
    go_plugin_pb2_grpc.add_GRPCBrokerServicer_to_server(_Broker(done), server)
    plugin_pb2_grpc.add_PluginServicer_to_server(PluginService(codec_set, arenas, features), server)
    codec_pb2_grpc.add_CodecServicer_to_server(CodecService(codec_set, arenas, features), server)

    path = _socket_path()
    cert_line = ""
    client_cert = os.environ.get("PLUGIN_CLIENT_CERT", "")
    if client_cert:
        cert_pem, key_pem, cert_der = _server_certificate()
        creds = grpc.ssl_server_credentials([(key_pem, cert_pem)], root_certificates=client_cert.encode(),
                                            require_client_auth=True)
        bound = server.add_secure_port("unix:" + path, creds)
        cert_line = base64.b64encode(cert_der).decode().rstrip("=")
    else:
        bound = server.add_insecure_port("unix:" + path)
    if not bound:
        log.error("cannot listen on %s" % path)
        sys.exit(1)
    server.start()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the host handles Ctrl-C, then ends us

    line = "%d|%d|unix|%s|grpc" % (CORE_PROTOCOL_VERSION, PROTOCOL_VERSION, path)
    if cert_line:
        line += "|" + cert_line
    sys.__stdout__.write(line + "\n")
    sys.__stdout__.flush()
    sys.stdout, sys.stderr = stdio.writer(go_plugin_pb2.StdioData.STDOUT), stdio.writer(go_plugin_pb2.StdioData.STDERR)

    threading.Thread(target=_watch_parent, args=(done,), daemon=True).start()
    done.wait()
    log.debug("plugin exiting")
    server.stop(grace=1).wait(2)
    try:
        os.unlink(path)
    except OSError:
        pass
    sys.stdout.flush()
    os._exit(0)


def _socket_path():
    """A fresh path for the socket, where go-plugin's host asks for it."""
    directory = os.environ.get("PLUGIN_UNIX_SOCKET_DIR") or tempfile.gettempdir()
    fd, path = tempfile.mkstemp(prefix="plugin", dir=directory)
    os.close(fd)
    os.unlink(path)
    return path


def _server_certificate():
    """A self-signed certificate for localhost, as go-plugin's own servers
    make one: the host trusts exactly the certificate the handshake line
    carries."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost"),
                      x509.NameAttribute(NameOID.ORGANIZATION_NAME, "zarrgw plugin")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder()
            .subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(seconds=30))
            .not_valid_after(now + datetime.timedelta(days=3650))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_encipherment=True, key_agreement=True,
                                         key_cert_sign=True, content_commitment=False, data_encipherment=False,
                                         crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]),
                           critical=False)
            .sign(key, hashes.SHA256()))
    cert_pem = cert.public_bytes(serialization.Encoding.PEM)
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    return cert_pem, key_pem, cert.public_bytes(serialization.Encoding.DER)


def _watch_parent(done):
    """Ends the plugin when the process that started it is gone (a host
    killed outright may leave its connection to us half open)."""
    parent = os.getppid()
    while not done.wait(1):
        if os.getppid() != parent:
            plugin_log.logger().info("the host is gone; exiting")
            done.set()


class _Health(health_pb2_grpc.HealthServicer):
    def Check(self, request, context):
        if request.service not in ("", "plugin"):
            context.abort(grpc.StatusCode.NOT_FOUND, "unknown service %r" % request.service)
        return health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.SERVING)


class _Controller(go_plugin_pb2_grpc.GRPCControllerServicer):
    def __init__(self, done):
        self.done = done

    def Shutdown(self, request, context):
        # Answer first, then stop: the host waits for the answer.
        threading.Timer(0.05, self.done.set).start()
        return go_plugin_pb2.Empty()


class _Stdio:
    """What the plugin writes to sys.stdout and sys.stderr after the
    handshake, queued for the host's stdio stream."""

    # How long a write waits for room while the host reads the stream.
    WAIT = 5

    def __init__(self):
        self.queue = queue.Queue(maxsize=1024)
        # Set while the host's stream is open and being fed.
        self.reading = threading.Event()

    def writer(self, channel):
        return _StdioWriter(self, channel)


class _StdioWriter:
    encoding = "utf-8"

    def __init__(self, stdio, channel):
        self.stdio, self.channel = stdio, channel

    def write(self, s):
        if s:
            data = s.encode("utf-8", "replace") if isinstance(s, str) else bytes(s)
            # A burst faster than the stream waits for room while the host
            # reads (dropping it lost most of a few thousand lines printed
            # at once); with no reader, output is dropped rather than
            # blocking the codec.
            try:
                self.stdio.queue.put((self.channel, data), block=self.stdio.reading.is_set(), timeout=self.stdio.WAIT)
            except queue.Full:
                pass
        return len(s)

    def flush(self):
        pass

    def isatty(self):
        return False


class _StdioService(go_plugin_pb2_grpc.GRPCStdioServicer):
    def __init__(self, stdio, done):
        self.stdio, self.done = stdio, done

    def StreamStdio(self, request, context):
        # The host holds this stream open for as long as it holds the
        # connection: when it ends without a Shutdown, the host is gone.
        context.add_callback(self.done.set)
        context.add_callback(self.stdio.reading.clear)
        self.stdio.reading.set()
        try:
            while not self.done.is_set():
                try:
                    channel, data = self.stdio.queue.get(timeout=0.5)
                except queue.Empty:
                    continue
                yield go_plugin_pb2.StdioData(channel=channel, data=data)
        finally:
            self.stdio.reading.clear()


class _Broker(go_plugin_pb2_grpc.GRPCBrokerServicer):
    """A codec plugin dials nothing through the broker: the stream is
    answered and drained."""

    def __init__(self, done):
        self.done = done

    def StartStream(self, request_iterator, context):
        for _ in request_iterator:
            pass
        return iter(())
