package fsstore

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/store"
)

// Registration registers the store as "fs": configuration {"root": DIR},
// LOCATION a directory path or a file:// URL.
var Registration = store.Registration{
	Manifest: extension.Manifest{
		Kind: extension.Store,
		Name: Name,
		ConfigSchema: json.RawMessage(`{"type":"object","required":["root"],"properties":{
	"root":{"type":"string","description":"directory holding the keys"},
	"dir_sync":{"type":"boolean","default":true,"description":"fsync the directory after each write"},
	"create_root":{"type":"boolean","default":false,"description":"create the root directory, and its parents, when it does not exist; otherwise a configuration naming a root that does not exist is refused"}}}`),
	},
	New:     open,
	Schemes: []string{"file"},
	FromURL: fromURL,
}

// config is the store's configuration. CreateRoot is checked by the
// host, which refuses a configuration whose root does not exist unless it
// is set (host/runtime/config.VerifyStores); the store itself, like New, makes
// its root when it opens.
type config struct {
	Root       string `json:"root"`
	DirSync    *bool  `json:"dir_sync"`
	CreateRoot bool   `json:"create_root,omitempty"`
}

// Config is the configuration of a store rooted at root.
func Config(root string) json.RawMessage {
	b, _ := json.Marshal(config{Root: root}) // a string cannot fail to marshal
	return b
}

func open(_ context.Context, configuration json.RawMessage) (store.Store, error) {
	var c config
	if err := extension.DecodeConfig(configuration, &c); err != nil {
		return nil, fmt.Errorf("%s: configuration: %w", Name, err)
	}
	var opts []Option
	if c.DirSync != nil {
		opts = append(opts, WithDirSync(*c.DirSync))
	}
	return New(c.Root, opts...)
}

// fromURL takes a file:// URL (or, with no scheme, a path) naming an
// existing directory: a command names data to read or add to, and a typo
// must not create an empty hierarchy somewhere.
func fromURL(u *url.URL) (json.RawMessage, error) {
	dir := u.Host + u.Path // file://relative/dir names a relative directory
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	return Config(dir), nil
}
