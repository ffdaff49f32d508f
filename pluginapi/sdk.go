package pluginapi

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/store"
)

// CodecExtension is a codec served by a plugin.
type CodecExtension struct {
	Manifest extension.Manifest
	// Kind is what the codec turns into what. When zero it is learnt by
	// building the codec from an empty configuration, if that succeeds;
	// the host learns it from each built codec in any case.
	Kind codec.Kind
	New  codec.Factory
}

// StoreExtension is a store type served by a plugin.
type StoreExtension struct {
	Manifest extension.Manifest
	New      func(config json.RawMessage) (store.Store, error)
}

// TransformerExtension is a storage transformer served by a plugin. next
// is the store below it, which the host serves back to the plugin.
type TransformerExtension struct {
	Manifest extension.Manifest
	New      func(config json.RawMessage, next store.Store) (store.Store, error)
}

// Extensions is everything one plugin process serves.
type Extensions struct {
	Codecs       []CodecExtension
	Stores       []StoreExtension
	Transformers []TransformerExtension
	// Resolver builds the nested codecs of a codec's configuration
	// (sharding's inner chains); nil resolves among Codecs.
	Resolver codec.Resolver
}

// ServeCodec serves codecs until the host ends the plugin. Call it from
// main, and write nothing to stdout before: the handshake uses it.
func ServeCodec(codecs ...CodecExtension) { Serve(Extensions{Codecs: codecs}) }

// ServeStore serves store types until the host ends the plugin.
func ServeStore(stores ...StoreExtension) { Serve(Extensions{Stores: stores}) }

// ServeTransformer serves storage transformers until the host ends the plugin.
func ServeTransformer(ts ...TransformerExtension) { Serve(Extensions{Transformers: ts}) }

// Serve serves any mix of extensions until the host ends the plugin (or
// its connection to the host closes: the host died). It exits the process
// with status 1 if ext is inconsistent.
func Serve(ext Extensions) {
	srv, err := newServer(ext)
	if err != nil {
		fmt.Fprintf(os.Stderr, "zarrgw plugin: %v\n", err)
		os.Exit(1)
	}
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
