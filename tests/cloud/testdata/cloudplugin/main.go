// Command cloudplugin serves the s3, azure and http stores as a plugin,
// as `zarrgw plugin serve` does, plus "s3-get-only", the s3 store with its
// copy-free read hidden (bench/cloud compares the two out of process).
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

// getOnly hides a store's GetInto, so that the plugin serves whole reads
// with one Get instead of a Stat and a GetInto.
func getOnly(ctx context.Context, config json.RawMessage) (store.Store, error) {
	s, err := s3.Open(ctx, config)
	if err != nil {
		return nil, err
	}
	return store.WithOptional(s, store.OptionalOf(s).Minus(store.Optional{Into: true})), nil
}

func main() {
	pluginapi.ServeStore(
		s3.Registration,
		store.Registration{
			Manifest: extension.Manifest{Kind: extension.Store, Name: "s3-get-only", ConfigSchema: json.RawMessage(s3.Schema)},
			New:      getOnly,
		},
		azure.Registration,
		http.Registration,
	)
}
