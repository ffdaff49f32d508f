package azurestore

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"

	"github.com/zarrgw/zarrgw/plugins/stores/internal/remote"
)

// Config is the store's configuration; its JSON form is what Schema
// describes. One of ConnectionString, AccountKey or SASToken gives the
// credentials; with none, they come from the environment.
type Config struct {
	Container string `json:"container"`
	// Prefix is where the store's keys start inside the container.
	Prefix string `json:"prefix,omitempty"`
	// Account is the storage account (with AccountKey or SASToken).
	Account string `json:"account,omitempty"`
	// Endpoint is the blob service URL; default
	// https://<account>.blob.core.windows.net.
	Endpoint         string `json:"endpoint,omitempty"`
	AccountKey       string `json:"account_key,omitempty"`
	SASToken         string `json:"sas_token,omitempty"`
	ConnectionString string `json:"connection_string,omitempty"`
	// BlockSize is the threshold above which values are staged as blocks,
	// and the size of the blocks.
	BlockSize int64 `json:"block_size,omitempty"`
	// Concurrency bounds the parallel requests of one operation.
	Concurrency int `json:"concurrency,omitempty"`
	// ListPageSize is how many keys one listing request asks for (1-5000).
	ListPageSize int `json:"list_page_size,omitempty"`
	// MaxAttempts is how often a failing request is tried in all.
	MaxAttempts int `json:"max_attempts,omitempty"`
	// MaxIdleConns is how many idle connections to the service are kept.
	MaxIdleConns int `json:"max_idle_conns,omitempty"`
}

// Schema is the JSON Schema of Config. Secrets are writeOnly: a
// configuration takes them from variables, never spells them out.
const Schema = `{"type":"object","required":["container"],"properties":{
	"container":{"type":"string","description":"container name"},
	"prefix":{"type":"string","description":"key prefix inside the container"},
	"account":{"type":"string","description":"storage account (default: AZURE_STORAGE_ACCOUNT)"},
	"endpoint":{"type":"string","description":"blob service URL (default: https://ACCOUNT.blob.core.windows.net)"},
	"account_key":{"type":"string","writeOnly":true},
	"sas_token":{"type":"string","writeOnly":true},
	"connection_string":{"type":"string","writeOnly":true},
	"block_size":{"type":"integer","minimum":1,"default":8388608,"description":"values larger than this are staged in blocks of this size"},
	"concurrency":{"type":"integer","minimum":1,"default":8,"description":"parallel requests of one operation"},
	"list_page_size":{"type":"integer","minimum":1,"maximum":5000,"default":5000},
	"max_attempts":{"type":"integer","minimum":1,"default":5,"description":"tries of a request that fails transiently"},
	"max_idle_conns":{"type":"integer","minimum":1,"default":256}}}`

// Environment variables read when the configuration has no credentials.
const (
	EnvConnectionString = "AZURE_STORAGE_CONNECTION_STRING"
	EnvAccount          = "AZURE_STORAGE_ACCOUNT"
	EnvKey              = "AZURE_STORAGE_KEY"
	EnvSASToken         = "AZURE_STORAGE_SAS_TOKEN"
)

// ParseConfig decodes a JSON configuration, refusing unknown fields.
func ParseConfig(raw json.RawMessage) (Config, error) {
	var c Config
	if err := remote.Decode(Name, raw, &c); err != nil {
		return Config{}, err
	}
	return c, c.validate()
}

// ConfigFromURL returns the configuration of a LOCATION
// az://container/prefix; the account and credentials come from the
// environment.
func ConfigFromURL(loc string) (Config, error) {
	container, prefix, err := remote.ParseLocation("az", loc)
	if err != nil {
		return Config{}, fmt.Errorf("azure: %w", err)
	}
	return Config{Container: container, Prefix: prefix}, nil
}

func (c Config) validate() error {
	set := 0
	for _, v := range []string{c.ConnectionString, c.AccountKey, c.SASToken} {
		if v != "" {
			set++
		}
	}
	switch {
	case c.Container == "":
		return fmt.Errorf("azure: configuration: container is required")
	case strings.ContainsAny(c.Container, "/\\ "):
		return fmt.Errorf("azure: configuration: container %q is not a container name", c.Container)
	case set > 1:
		return fmt.Errorf("az://%s: give one of connection_string, account_key and sas_token", c.Container)
	case c.BlockSize < 0:
		return fmt.Errorf("az://%s: block_size %d is negative", c.Container, c.BlockSize)
	case c.ListPageSize < 0 || c.ListPageSize > 5000:
		return fmt.Errorf("az://%s: list_page_size %d is outside 1-5000", c.Container, c.ListPageSize)
	}
	return nil
}

// withEnvironment fills in the account and credentials from the
// environment when the configuration gives no credentials.
func (c Config) withEnvironment() Config {
	if c.ConnectionString != "" || c.AccountKey != "" || c.SASToken != "" {
		return c
	}
	if cs := os.Getenv(EnvConnectionString); cs != "" && c.Account == "" && c.Endpoint == "" {
		c.ConnectionString = cs
		return c
	}
	if c.Account == "" {
		c.Account = os.Getenv(EnvAccount)
	}
	c.AccountKey = os.Getenv(EnvKey)
	if c.AccountKey == "" {
		c.SASToken = os.Getenv(EnvSASToken)
	}
	return c
}

// client builds the container client for the credentials c holds.
func (c Config) client(opts *container.ClientOptions) (*container.Client, error) {
	if c.ConnectionString != "" {
		cl, err := container.NewClientFromConnectionString(c.ConnectionString, c.Container, opts)
		if err != nil {
			// The SDK's message may quote the string, secret included.
			return nil, fmt.Errorf("connection string is malformed")
		}
		return cl, nil
	}
	if c.Account == "" && c.Endpoint == "" {
		return nil, fmt.Errorf("no account: set account (or endpoint) and a credential, or %s, or %s with %s or %s",
			EnvConnectionString, EnvAccount, EnvKey, EnvSASToken)
	}
	containerURL := strings.TrimSuffix(c.serviceURL(), "/") + "/" + url.PathEscape(c.Container)
	switch {
	case c.AccountKey != "":
		cred, err := container.NewSharedKeyCredential(c.Account, c.AccountKey)
		if err != nil {
			return nil, fmt.Errorf("account key of %q is malformed", c.Account)
		}
		return container.NewClientWithSharedKeyCredential(containerURL, cred, opts)
	case c.SASToken != "":
		return container.NewClientWithNoCredential(containerURL+"?"+strings.TrimPrefix(c.SASToken, "?"), opts)
	}
	// A public container: anonymous reads.
	return container.NewClientWithNoCredential(containerURL, opts)
}

func (c Config) serviceURL() string {
	if c.Endpoint != "" {
		return c.Endpoint
	}
	return "https://" + c.Account + ".blob.core.windows.net"
}
