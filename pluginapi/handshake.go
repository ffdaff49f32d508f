package pluginapi

import (
	"context"
	"math"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/zarrgw/zarrgw/pluginapi/telemetry"
)

// Handshake is shared by zarrgw and every plugin. The cookie only keeps a
// plugin from being run by hand by mistake; it is not a secret.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  1,
	MagicCookieKey:   "ZARRGW_PLUGIN",
	MagicCookieValue: "f1b5a7d2c3e94b0a8d6e2c71a9f04b3e",
}

// PluginName is the name of the single go-plugin plugin in every version's
// set: one process serves all its extensions on one connection.
const PluginName = "zarrgw"

// ProtocolVersions are the plugin protocol versions this build speaks, the
// newest last. A version 2 would get its own plugin set in versionedSets
// (and its own services); go-plugin picks the newest both sides speak.
var ProtocolVersions = []int{1}

// versionedSets maps each protocol version to the go-plugin plugin set
// that serves it; srv is nil on the host side.
func versionedSets(srv *server) map[int]plugin.PluginSet {
	return map[int]plugin.PluginSet{
		1: {PluginName: &grpcPlugin{srv: srv}},
	}
}

// HostPlugins is the ClientConfig.VersionedPlugins of a host.
func HostPlugins() map[int]plugin.PluginSet { return versionedSets(nil) }

// grpcPlugin is the go-plugin glue: the plugin side registers the services,
// the host side gets a Conn.
type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	srv *server
}

func (p *grpcPlugin) GRPCServer(broker *plugin.GRPCBroker, s *grpc.Server) error {
	p.srv.register(broker, s)
	return nil
}

func (p *grpcPlugin) GRPCClient(_ context.Context, broker *plugin.GRPCBroker, cc *grpc.ClientConn) (any, error) {
	return &Conn{cc: cc, broker: broker}, nil
}

// Flow control windows. gRPC's defaults (64 KiB, grown by BDP probing)
// need many round trips to move a megabyte over a socket whose bandwidth-
// delay product is tiny but whose payloads are large; fixed windows let a
// whole frame go out at once. Buffers sized for a frame save syscalls.
const (
	streamWindow = 8 << 20
	connWindow   = 32 << 20
	ioBuffer     = 256 << 10
)

// ServerOptions are the gRPC options of every server speaking the
// protocol: the plugin's and the one on which the host serves the store
// below a transformer. When tracing is on (telemetry.Enabled) they take
// the caller's trace context from each call's metadata and make the
// call's span its child.
func ServerOptions() []grpc.ServerOption {
	return append([]grpc.ServerOption{
		grpc.MaxRecvMsgSize(maxMessage),
		grpc.MaxSendMsgSize(maxMessage),
		grpc.InitialWindowSize(streamWindow),
		grpc.InitialConnWindowSize(connWindow),
		grpc.ReadBufferSize(ioBuffer),
		grpc.WriteBufferSize(ioBuffer),
		grpc.MaxConcurrentStreams(math.MaxUint32),
	}, telemetry.ServerOptions()...)
}

// DialOptions are the gRPC options of every client of the protocol.
// The idle timeout is off: an idle channel would close its connection, and
// a plugin takes a closed host connection as the host having gone. When
// tracing is on (telemetry.Enabled) each call has a span and carries the
// trace context in its metadata, so the other side's spans join the trace.
func DialOptions() []grpc.DialOption {
	return append([]grpc.DialOption{
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxMessage), grpc.MaxCallSendMsgSize(maxMessage)),
		grpc.WithInitialWindowSize(streamWindow),
		grpc.WithInitialConnWindowSize(connWindow),
		grpc.WithReadBufferSize(ioBuffer),
		grpc.WithWriteBufferSize(ioBuffer),
		grpc.WithIdleTimeout(0),
	}, telemetry.DialOptions()...)
}
