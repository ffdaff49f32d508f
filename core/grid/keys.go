// Package grid holds the regular chunk grid: chunk key encodings, and
// selections (per dimension an index or a slice with a step) projected onto
// the chunks they touch.
package grid

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/zarrgw/zarrgw/core/meta"
)

// KeyEncoder turns chunk grid coordinates into a store key relative to the
// array's chunk prefix.
type KeyEncoder struct {
	lead string // "c" + separator for default, "c" for draft, "" for v2
	sep  string
	zero string // the key of a 0-d array's only chunk
}

// NewKeyEncoder builds the encoder for a chunk key encoding.
func NewKeyEncoder(enc meta.ChunkKeyEncoding) (KeyEncoder, error) {
	sep := enc.Separator
	switch enc.Name {
	case "default":
		if sep == "" {
			sep = "/"
		}
		if sep != "/" && sep != "." {
			return KeyEncoder{}, fmt.Errorf("chunk key encoding default: invalid separator %q", sep)
		}
		return KeyEncoder{lead: "c" + sep, sep: sep, zero: "c"}, nil
	case "v2":
		if sep == "" {
			sep = "."
		}
		if sep != "/" && sep != "." {
			return KeyEncoder{}, fmt.Errorf("chunk key encoding v2: invalid separator %q", sep)
		}
		return KeyEncoder{sep: sep, zero: "0"}, nil
	case "draft":
		if sep == "" {
			sep = "/"
		}
		// zarr-python 2 wrote "c0" for the 0-d chunk; the draft text says "c".
		return KeyEncoder{lead: "c", sep: sep, zero: "c0"}, nil
	}
	return KeyEncoder{}, fmt.Errorf("unknown chunk key encoding %q", enc.Name)
}

// Key returns the key of the chunk at coords.
func (e KeyEncoder) Key(coords []int) string {
	if len(coords) == 0 {
		return e.zero
	}
	var b strings.Builder
	b.Grow(len(e.lead) + len(coords)*4)
	b.WriteString(e.lead)
	for i, c := range coords {
		if i > 0 {
			b.WriteString(e.sep)
		}
		b.WriteString(strconv.Itoa(c))
	}
	return b.String()
}

// Parse is the inverse of Key: it returns the coordinates of a chunk key of
// the given rank, or false if key is not such a chunk key.
func (e KeyEncoder) Parse(key string, rank int) ([]int, bool) {
	if rank == 0 {
		return nil, key == e.zero
	}
	if !strings.HasPrefix(key, e.lead) {
		return nil, false
	}
	parts := strings.Split(key[len(e.lead):], e.sep)
	if len(parts) != rank {
		return nil, false
	}
	coords := make([]int, rank)
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || strconv.Itoa(n) != p {
			return nil, false
		}
		coords[i] = n
	}
	return coords, true
}

// NodePrefix is the key prefix of a node at path ("" for the root, "a/b"
// below it) in the v2 and v3 layouts.
func NodePrefix(path string) string {
	if path == "" {
		return ""
	}
	return path + "/"
}

// ChunkPrefix is the prefix an array's chunk keys (as its key encoding
// builds them) are appended to.
func ChunkPrefix(f meta.Format, path string) string {
	if f == meta.V3Draft {
		return "data/root/" + NodePrefix(path)
	}
	return NodePrefix(path)
}
