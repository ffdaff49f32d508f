// Command cloudplugin serves the s3, azure and http stores as a plugin,
// the way `zarrgw plugin serve` will once they are registered: the cloud
// store tests run the store suite through it, out of process.
package main

import (
	"context"
	"encoding/json"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/pluginapi"
	"github.com/zarrgw/zarrgw/plugins/stores/azure"
	"github.com/zarrgw/zarrgw/plugins/stores/http"
	"github.com/zarrgw/zarrgw/plugins/stores/s3"
)

func serve(name, schema string, open func(context.Context, json.RawMessage) (store.Store, error)) pluginapi.StoreExtension {
	return pluginapi.StoreExtension{
		Manifest: extension.Manifest{Kind: extension.Store, Name: name, ConfigSchema: json.RawMessage(schema)},
		New:      func(config json.RawMessage) (store.Store, error) { return open(context.Background(), config) },
	}
}

// getOnly hides a store's GetInto, so that the plugin serves whole reads
// with one Get instead of a Stat and a GetInto (bench/cloud compares).
func getOnly(open func(context.Context, json.RawMessage) (store.Store, error)) func(context.Context, json.RawMessage) (store.Store, error) {
	return func(ctx context.Context, config json.RawMessage) (store.Store, error) {
		s, err := open(ctx, config)
		return struct{ store.Store }{s}, err
	}
}

func main() {
	pluginapi.ServeStore(
		serve(s3.Name, s3.Schema, s3.Open),
		serve("s3-get-only", s3.Schema, getOnly(s3.Open)),
		serve(azure.Name, azure.Schema, azure.Open),
		serve(http.Name, http.Schema, http.Open),
	)
}
