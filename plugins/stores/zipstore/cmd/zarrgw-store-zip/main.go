// Command zarrgw-store-zip serves the zip store type as a zarrgw plugin.
// Build it on its own (go build ./cmd/zarrgw-store-zip in this module),
// lock it and name it in a configuration.
package main

import (
	"github.com/zarrgw/zarrgw/pluginapi"
	"github.com/zarrgw/zarrgw/plugins/stores/zipstore"
)

func main() { pluginapi.ServeStore(zipstore.Registration) }
