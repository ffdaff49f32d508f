// Command zarrgw-transformer-keyprefix serves the keyprefix storage
// transformer as a zarrgw plugin.
package main

import (
	"github.com/zarrgw/zarrgw/pluginapi"
	"github.com/zarrgw/zarrgw/plugins/transformers/keyprefix"
)

func main() { pluginapi.ServeTransformer(keyprefix.Registration) }
