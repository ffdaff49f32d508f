// Command zarrgw-codec-bitshave serves the bitshave codec as a zarrgw
// plugin. Build it on its own (go build ./cmd/zarrgw-codec-bitshave in
// this module), pin its checksum and name it in the configuration.
package main

import (
	"github.com/zarrgw/zarrgw/pluginapi"
	"github.com/zarrgw/zarrgw/plugins/codecs/bitshave"
)

func main() {
	pluginapi.ServeCodec(bitshave.Registration)
}
