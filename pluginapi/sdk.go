package pluginapi

import (
	"fmt"
	"os"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/core/transformer"
)

// Extensions is everything one plugin process serves. Each extension is
// the registration its package exports, the same value zarrgw bundles
// extensions with (codec.Registration, store.Registration,
// transformer.Registration): its manifest, with the configuration schema,
// and its constructor. A codec's kind is the interface it implements.
type Extensions struct {
	Codecs       []codec.Registration
	Stores       []store.Registration
	Transformers []transformer.Registration
	// Resolver builds the nested codecs of a codec's configuration
	// (sharding's inner chains); nil resolves among Codecs.
	Resolver codec.Resolver
}

// ServeCodec serves codecs until the host ends the plugin. Call it from
// main, and write nothing to stdout before: the handshake uses it.
func ServeCodec(codecs ...codec.Registration) { Serve(Extensions{Codecs: codecs}) }

// ServeStore serves store types until the host ends the plugin.
func ServeStore(stores ...store.Registration) { Serve(Extensions{Stores: stores}) }

// ServeTransformer serves storage transformers until the host ends the plugin.
func ServeTransformer(ts ...transformer.Registration) { Serve(Extensions{Transformers: ts}) }

// Serve serves any mix of extensions until the host ends the plugin (or
// its connection to the host closes: the host died). It exits the process
// with status 1 if ext is inconsistent, or if an OTEL_* variable asks for
// traces in a way it cannot follow (the variable is named). When they ask
// for traces (see telemetry.Setup), the plugin exports its own spans: one
// per call of the protocol, the child of the host's span that made it,
// and one per store and codec operation below it.
func Serve(ext Extensions) {
	srv, err := newServer(ext)
	if err != nil {
		fmt.Fprintf(os.Stderr, "zarrgw plugin: %v\n", err)
		os.Exit(1)
	}
	endTelemetry, err := startTelemetry()
	if err != nil {
		fmt.Fprintf(os.Stderr, "zarrgw plugin: %v\n", err)
		os.Exit(1)
	}
	// The host closing its connection ends the process at once (hostWatch):
	// the spans left go first.
	exit := srv.watch.exit
	srv.watch.exit = func() {
		endTelemetry()
		exit()
	}
	defer endTelemetry()
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig:  Handshake,
		VersionedPlugins: versionedSets(srv),
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			opts = append(opts, ServerOptions()...)
			return grpc.NewServer(append(opts, grpc.StatsHandler(srv.watch))...)
		},
		Logger: hclogger(),
	})
}
