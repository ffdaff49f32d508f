package store

import (
	"context"
	"encoding/json"
	"net/url"

	"github.com/zarrgw/zarrgw/core/extension"
)

// Factory opens a store from its configuration: a JSON object that
// configuration loading has checked against the manifest's schema and that
// the store checks again (it may come from anywhere).
type Factory func(ctx context.Context, configuration json.RawMessage) (Store, error)

// Registration is one store implementation, registered the way codecs
// (codec.Registration) and storage transformers (transformer.Registration)
// are: its manifest (type name, configuration schema) and its constructor.
// A package that implements a store exports one, and one line in
// plugins/builtin lists it; that line is all the host needs to open it in
// process, serve it as a plugin, check its configuration blocks, list it,
// and open the LOCATION URLs of its Schemes.
type Registration struct {
	Manifest extension.Manifest
	New      Factory
	// Schemes are the LOCATION URL schemes that name a store of this type
	// ("s3" for s3://bucket/prefix). A store without any is reached only
	// through a configuration's store blocks.
	Schemes []string
	// FromURL turns a LOCATION URL of one of Schemes into the store's
	// configuration. Required when Schemes is not empty.
	FromURL func(u *url.URL) (json.RawMessage, error)
}
