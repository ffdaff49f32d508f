package app

import (
	"slices"

	"github.com/zarrgw/zarrgw/pluginapi"
	"github.com/zarrgw/zarrgw/plugins/codecs/zstdcodec"
)

// PluginProtocolVersions are the plugin protocol versions this build
// speaks, the newest last, as `zarrgw version` reports them.
func PluginProtocolVersions() []int { return slices.Clone(pluginapi.ProtocolVersions) }

// ZstdLibrary names the zstd implementation this build encodes and
// decodes with: pure Go by default, libzstd in a build with -tags libzstd.
func ZstdLibrary() string { return zstdcodec.Library() }
