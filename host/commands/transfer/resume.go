package transfer

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
)

// CopyID names a copy by everything that decides what it writes: the
// configuration file (when locations are its datasets), both locations
// and the options that shape the output. A second run of the same copy
// finds its journal, and no other copy does. Local paths count by their
// absolute form.
func CopyID(configFile, src, dst string, opts Options) string {
	abs := func(loc string) string {
		if strings.Contains(loc, "://") || configFile != "" {
			return loc
		}
		if a, err := filepath.Abs(loc); err == nil {
			return a
		}
		return loc
	}
	if configFile != "" {
		configFile, _ = filepath.Abs(configFile)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%d\x00%v\x00%v\x00%v\x00%v\x00%d\x00%t\x00%d",
		configFile, abs(src), abs(dst), opts.Path, opts.ToFormat, opts.Codecs, opts.Chunks, opts.Shard, opts.InnerChunks,
		opts.ChunksPerShard, opts.Consolidate, opts.Stream.MemoryBudget)
	if opts.Partition.set() {
		// each partition its own journal; added only then, so that the
		// journals of copies begun before partitions existed still match
		fmt.Fprintf(h, "\x00partition %s", opts.Partition)
	}
	if opts.ChunkEdges != nil {
		// a rectilinear grid's edges, beyond its longest chunks (Chunks)
		fmt.Fprintf(h, "\x00edges %v", opts.ChunkEdges)
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}
