package app

import (
	"slices"

	"github.com/zarrgw/zarrgw/pluginapi"
)

// PluginProtocolVersions are the plugin protocol versions this build
// speaks, the newest last, as `zarrgw version` reports them.
func PluginProtocolVersions() []int { return slices.Clone(pluginapi.ProtocolVersions) }
