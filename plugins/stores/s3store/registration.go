package s3store

import (
	"encoding/json"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/stores/internal/remote"
)

// Registration registers the store as "s3", with s3://bucket/prefix LOCATIONs.
var Registration = store.Registration{
	Manifest: extension.Manifest{Kind: extension.Store, Name: Name, ConfigSchema: json.RawMessage(Schema)},
	New:      Open,
	Schemes:  []string{"s3"},
	FromURL:  remote.URLConfig(ConfigFromURL),
}
