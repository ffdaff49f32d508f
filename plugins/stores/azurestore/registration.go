package azurestore

import (
	"encoding/json"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/stores/internal/remote"
)

// Registration registers the store as "azure", with az://container/prefix LOCATIONs.
var Registration = store.Registration{
	Manifest: extension.Manifest{Kind: extension.Store, Name: Name, ConfigSchema: json.RawMessage(Schema)},
	New:      Open,
	Schemes:  []string{"az"},
	FromURL:  remote.URLConfig(ConfigFromURL),
}
