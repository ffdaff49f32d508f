package sharding

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/zarrgw/zarrgw/core/shard"
)

// Describe summarises the shard layout of a sharding_indexed configuration
// for a shard shape (the array's chunk shape), for `zarrgw inspect`:
//
//	shard [64 64], inner [32 32] ([2 2] per shard, 4 inner chunks), index end 68 bytes [bytes, crc32c], inner codecs [bytes, gzip]
func Describe(configuration json.RawMessage, shardShape []int) (string, error) {
	cfg, err := parseConfig(configuration)
	if err != nil {
		return "", fmt.Errorf("%s: %w", Name, err)
	}
	cps, err := cfg.checkShard(shardShape)
	if err != nil {
		return "", fmt.Errorf("%s: %w", Name, err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "shard %v, inner %v (%v per shard, %d inner chunks), index %s ", shardShape, cfg.ChunkShape, cps, shard.Count(cps), cfg.IndexLocation)
	b.WriteString(describeIndex(cfg.IndexCodecs, cps))
	fmt.Fprintf(&b, ", inner codecs [%s]", chainNames(cfg.Codecs))
	for _, e := range cfg.Codecs {
		if e.Name == Name {
			if inner, err := Describe(e.Configuration, cfg.ChunkShape); err == nil {
				fmt.Fprintf(&b, " {%s}", inner)
			}
		}
	}
	return b.String(), nil
}

// describeIndex gives the index size from the names of well-known fixed
// size codecs (no resolver is at hand here).
func describeIndex(exts []chainEntry, cps []int) string {
	raw := shard.RawSize(cps)
	if exts == nil {
		return fmt.Sprintf("%d bytes with a CRC-32C or %d without (no index_codecs)", raw+4, raw)
	}
	size := raw
	for _, e := range exts {
		switch e.Name {
		case "bytes", "endian", "transpose":
		case "crc32c", "numcodecs.crc32c", "numcodecs.crc32", "numcodecs.adler32", "numcodecs.fletcher32":
			size += 4
		default:
			return fmt.Sprintf("of unknown size [%s]", chainNames(exts))
		}
	}
	return fmt.Sprintf("%d bytes [%s]", size, chainNames(exts))
}
