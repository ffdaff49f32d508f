package s3store

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/zarrgw/zarrgw/plugins/stores/internal/remote"
)

// Config is the store's configuration; its JSON form is what Schema
// describes. Unset credentials come from the SDK's default chain.
type Config struct {
	Bucket string `json:"bucket"`
	// Prefix is where the store's keys start inside the bucket.
	Prefix string `json:"prefix,omitempty"`
	Region string `json:"region,omitempty"`
	// Endpoint is the URL of an S3-compatible service; unset, the SDK's
	// (AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, else AWS).
	Endpoint string `json:"endpoint,omitempty"`
	// UsePathStyle addresses buckets in the path; by default on when an
	// endpoint is set (by configuration or environment).
	UsePathStyle    *bool  `json:"use_path_style,omitempty"`
	Profile         string `json:"profile,omitempty"`
	AccessKeyID     string `json:"access_key_id,omitempty"`
	SecretAccessKey string `json:"secret_access_key,omitempty"`
	SessionToken    string `json:"session_token,omitempty"`
	// PartSize is the multipart threshold and part size (at least 5 MiB).
	PartSize int64 `json:"part_size,omitempty"`
	// Concurrency bounds the parallel requests of one operation (parts,
	// delete batches).
	Concurrency int `json:"concurrency,omitempty"`
	// ListPageSize is how many keys one listing request asks for (1-1000).
	ListPageSize int `json:"list_page_size,omitempty"`
	// MaxAttempts is how often a failing request is tried in all.
	MaxAttempts int `json:"max_attempts,omitempty"`
	// MaxIdleConns is how many idle connections to the service are kept.
	MaxIdleConns int `json:"max_idle_conns,omitempty"`
}

// Schema is the JSON Schema of Config. Secrets are writeOnly: a
// configuration takes them from variables, never spells them out.
const Schema = `{"type":"object","required":["bucket"],"properties":{
	"bucket":{"type":"string","description":"bucket name"},
	"prefix":{"type":"string","description":"key prefix inside the bucket"},
	"region":{"type":"string","description":"region (default: the SDK's, else us-east-1)"},
	"endpoint":{"type":"string","description":"URL of an S3-compatible service (default: AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, else AWS)"},
	"use_path_style":{"type":"boolean","description":"bucket in the path, not the host name (default: on with a custom endpoint)"},
	"profile":{"type":"string","description":"shared configuration profile"},
	"access_key_id":{"type":"string"},
	"secret_access_key":{"type":"string","writeOnly":true},
	"session_token":{"type":"string","writeOnly":true},
	"part_size":{"type":"integer","minimum":5242880,"default":8388608,"description":"values larger than this are uploaded in parts of this size"},
	"concurrency":{"type":"integer","minimum":1,"default":8,"description":"parallel requests of one operation"},
	"list_page_size":{"type":"integer","minimum":1,"maximum":1000,"default":1000},
	"max_attempts":{"type":"integer","minimum":1,"default":5,"description":"tries of a request that fails transiently"},
	"max_idle_conns":{"type":"integer","minimum":1,"default":256}}}`

// ParseConfig decodes a JSON configuration, refusing unknown fields.
func ParseConfig(raw json.RawMessage) (Config, error) {
	var c Config
	if err := remote.Decode(Name, raw, &c); err != nil {
		return Config{}, err
	}
	return c, c.validate()
}

// ConfigFromURL returns the configuration of a LOCATION s3://bucket/prefix;
// everything else comes from the environment.
func ConfigFromURL(loc string) (Config, error) {
	bucket, prefix, err := remote.ParseLocation("s3", loc)
	if err != nil {
		return Config{}, fmt.Errorf("s3: %w", err)
	}
	return Config{Bucket: bucket, Prefix: prefix}, nil
}

func (c Config) validate() error {
	switch {
	case c.Bucket == "":
		return fmt.Errorf("s3: configuration: bucket is required")
	case strings.ContainsAny(c.Bucket, "/\\ "):
		return fmt.Errorf("s3: configuration: bucket %q is not a bucket name", c.Bucket)
	case c.PartSize != 0 && c.PartSize < MinPartSize:
		return fmt.Errorf("s3://%s: part_size %d is below S3's minimum of %d", c.Bucket, c.PartSize, MinPartSize)
	case c.ListPageSize < 0 || c.ListPageSize > 1000:
		return fmt.Errorf("s3://%s: list_page_size %d is outside 1-1000", c.Bucket, c.ListPageSize)
	case c.AccessKeyID != "" && c.SecretAccessKey == "":
		return fmt.Errorf("s3://%s: access_key_id is set without secret_access_key", c.Bucket)
	case c.AccessKeyID == "" && (c.SecretAccessKey != "" || c.SessionToken != ""):
		return fmt.Errorf("s3://%s: secret_access_key or session_token is set without access_key_id", c.Bucket)
	}
	return nil
}
