// Command cloudplugin serves the s3, azure and http stores as a plugin,
// as `zarrgw plugin serve` does.
package main

import (
	"github.com/zarrgw/zarrgw/pluginapi"
	"github.com/zarrgw/zarrgw/plugins/stores/azure"
	"github.com/zarrgw/zarrgw/plugins/stores/http"
	"github.com/zarrgw/zarrgw/plugins/stores/s3"
)

func main() {
	pluginapi.ServeStore(s3.Registration, azure.Registration, http.Registration)
}
