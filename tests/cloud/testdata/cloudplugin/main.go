// Command cloudplugin serves the s3, azure and http stores as a plugin,
// as `zarrgw plugin serve` does.
package main

import (
	"github.com/zarrgw/zarrgw/pluginapi"
	"github.com/zarrgw/zarrgw/plugins/stores/azurestore"
	"github.com/zarrgw/zarrgw/plugins/stores/httpstore"
	"github.com/zarrgw/zarrgw/plugins/stores/s3store"
)

func main() {
	pluginapi.ServeStore(s3store.Registration, azurestore.Registration, httpstore.Registration)
}
