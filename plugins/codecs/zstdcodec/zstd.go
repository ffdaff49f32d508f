// Package zstdcodec is the "zstd" codec (registered in zarr-extensions;
// numcodecs zstd): one Zstandard frame (RFC 8878) holding the chunk.
package zstdcodec

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/extension"
)

// Registration registers the codec as "zstd" and "numcodecs.zstd", and under its draft v3 URI.
var Registration = codec.Registration{
	Manifest: extension.Manifest{
		Kind:    extension.Codec,
		Name:    "zstd",
		Aliases: []string{"numcodecs.zstd"},
		URIs:    []string{"https://purl.org/zarr/spec/codec/zstd/1.0"},
		ConfigSchema: json.RawMessage(`{"type":"object","properties":{
	"level":{"type":"integer","minimum":-131072,"maximum":22,"default":0},
	"checksum":{"type":"boolean","default":false}}}`),
	},
	New: New,
}

// Level bounds of the zstd library.
const (
	MinLevel = -131072
	MaxLevel = 22
)

// Codec is the zstd codec. Its encoding state (encoders) depends on the
// build: klauspost/compress's pure-Go encoder by default, libzstd through
// cgo under the libzstd build tag (purego.go, libzstd.go).
type Codec struct {
	level    int
	checksum bool

	encoders
}

// New builds the codec from {"level": n, "checksum": bool}; both are
// optional (level 0 = the library default, checksum false).
func New(_ context.Context, configuration json.RawMessage, _ codec.Resolver) (codec.Codec, error) {
	var cfg struct {
		Level    *int  `json:"level"`
		Checksum *bool `json:"checksum"`
	}
	if len(configuration) > 0 && string(configuration) != "null" {
		if err := json.Unmarshal(configuration, &cfg); err != nil {
			return nil, fmt.Errorf("zstd: configuration: %w", err)
		}
	}
	c := &Codec{}
	if cfg.Level != nil {
		c.level = *cfg.Level
	}
	if cfg.Checksum != nil {
		c.checksum = *cfg.Checksum
	}
	if c.level < MinLevel || c.level > MaxLevel {
		return nil, fmt.Errorf("zstd: level %d out of range %d..%d", c.level, MinLevel, MaxLevel)
	}
	return c, nil
}

func (c *Codec) Name() string { return "zstd" }

// Configuration returns {"level": n, "checksum": bool}, as zarr-python writes.
func (c *Codec) Configuration() json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"level":%d,"checksum":%t}`, c.level, c.checksum))
}

// moduleVersion is the version of the Go module path linked into this
// binary, "" when the build recorded none (as in test binaries).
func moduleVersion(path string) string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, dep := range info.Deps {
		if dep.Path == path {
			if dep.Replace != nil {
				return dep.Replace.Version
			}
			return dep.Version
		}
	}
	return ""
}
