package shardtransformer

import (
	"fmt"
	"strings"

	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/meta"
)

// Layout says which keys are chunk keys.
type Layout struct {
	// Prefix starts every chunk key: an array's chunk prefix
	// ("data/root/foo/" in the draft layout, "foo/" in the final one, ""
	// for a root array), or "data/root/" with AnyDepth.
	Prefix string
	// AnyDepth translates the chunk keys of every array below Prefix, as
	// the transformer spec does for all keys under data/root; otherwise
	// only Prefix followed by a chunk id is a chunk key.
	AnyDepth bool
	// Encoding is the chunk key encoding of the ids after the prefix.
	Encoding meta.ChunkKeyEncoding
}

// ArrayLayout is the layout of one array's chunk keys.
func ArrayLayout(m *meta.ArrayMeta, path string) Layout {
	return Layout{Prefix: grid.ChunkPrefix(m.Format, path), Encoding: m.ChunkKey}
}

// DraftLayout covers every array of a draft v3 hierarchy: keys under
// data/root whose ids ("c1/2") use the separator.
func DraftLayout(separator string) Layout {
	return Layout{Prefix: "data/root/", AnyDepth: true, Encoding: meta.ChunkKeyEncoding{Name: "draft", Separator: separator}}
}

// keys parses and builds chunk and shard keys of a layout and rank.
type keys struct {
	layout Layout
	enc    grid.KeyEncoder
	rank   int
	sep    string
}

func newKeys(l Layout, rank int) (keys, error) {
	enc, err := grid.NewKeyEncoder(l.Encoding)
	if err != nil {
		return keys{}, err
	}
	k := keys{layout: l, enc: enc, rank: rank, sep: separator(l.Encoding)}
	if l.Prefix != "" && !strings.HasSuffix(l.Prefix, "/") {
		return keys{}, fmt.Errorf("layout prefix %q does not end in \"/\"", l.Prefix)
	}
	return k, nil
}

// separator is the encoding's separator with its default filled in.
func separator(e meta.ChunkKeyEncoding) string {
	if e.Separator != "" {
		return e.Separator
	}
	if e.Name == "v2" {
		return "."
	}
	return "/"
}

// idSegments is the number of "/"-separated segments of a chunk id.
func (k keys) idSegments() int {
	if k.sep != "/" || k.rank == 0 {
		return 1
	}
	if k.layout.Encoding.Name == "default" {
		return k.rank + 1
	}
	return k.rank
}

func (k keys) prefixOK(prefix string) bool {
	if k.layout.AnyDepth {
		return strings.HasPrefix(prefix, k.layout.Prefix)
	}
	return prefix == k.layout.Prefix
}

// split returns the array prefix and the grid coordinates of a chunk key
// (or, equally, a shard key), or false for any other key.
func (k keys) split(key string) (string, []int, bool) {
	if !strings.HasPrefix(key, k.layout.Prefix) {
		return "", nil, false
	}
	cut := len(key)
	for range k.idSegments() {
		if cut = strings.LastIndexByte(key[:cut], '/'); cut < 0 {
			break
		}
	}
	prefix := key[:cut+1]
	if !k.prefixOK(prefix) {
		return "", nil, false
	}
	coords, ok := k.enc.Parse(key[cut+1:], k.rank)
	return prefix, coords, ok
}

// key builds the key of grid position coords under an array prefix.
func (k keys) key(prefix string, coords []int) string { return prefix + k.enc.Key(coords) }

// partial is a listing prefix that ends inside chunk ids: the array
// prefix and the leading grid coordinates it fixes.
type partial struct {
	prefix string
	coords []int
}

// partials returns every reading of a listing prefix p ("" or ending in
// "/") as an array prefix followed by the leading part of chunk ids. Only
// "/" separators can cut a chunk id.
func (k keys) partials(p string) []partial {
	if k.sep != "/" || p == "" || !strings.HasPrefix(p, k.layout.Prefix) {
		return nil
	}
	var out []partial
	body := p[:len(p)-1]
	cut := len(body)
	for m := 1; m < k.idSegments() && cut >= 0; m++ {
		cut = strings.LastIndexByte(body[:cut], '/') // -1: the id starts the key
		prefix, tail := body[:cut+1], body[cut+1:]
		if coords, ok := k.parsePartial(tail, m); ok && k.prefixOK(prefix) {
			out = append(out, partial{prefix: prefix, coords: coords})
		}
	}
	return out
}

// parsePartial reads the first m segments of a chunk id.
func (k keys) parsePartial(tail string, m int) ([]int, bool) {
	if k.layout.Encoding.Name == "default" {
		if m == 1 {
			return []int{}, tail == "c"
		}
		return k.enc.Parse(tail, m-1)
	}
	return k.enc.Parse(tail, m)
}

// partialKey is the listing prefix of a partial at grid coords.
func (k keys) partialKey(prefix string, coords []int) string {
	if len(coords) == 0 {
		return prefix + "c/"
	}
	return prefix + k.enc.Key(coords) + "/"
}
