package app

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/zarrgw/zarrgw/core/meta"
)

// chunksSyntax is how --chunks is written, for its errors.
const chunksSyntax = `give positive whole numbers, a length per dimension separated by commas (100,100), ` +
	`for a rectilinear grid a dimension's edges joined by + with LENGTH*COUNT for runs (10*5+5+5,15+15), ` +
	`or the rectilinear grid's chunk_shapes as JSON ('[[[10,5],5,5],[15,15]]')`

// parseChunks reads --chunks: a regular chunk shape ("100,100"), or a
// rectilinear grid, as edges ("10*5+5+5,15+15": per dimension its chunk
// edges joined by +, LENGTH*COUNT for COUNT chunks of LENGTH; a plain
// length in such a grid is the spec's shorthand, chunks of that length to
// the end) or as the spec's chunk_shapes JSON. edges is nil for a regular
// shape; chunks is then the shape, else the longest chunks.
func parseChunks(flag, s string) (chunks []int, edges []meta.Edges, err error) {
	if s == "" {
		return nil, nil, nil
	}
	if strings.HasPrefix(strings.TrimSpace(s), "[") {
		if edges, err = meta.ParseChunkShapes(json.RawMessage(s)); err != nil {
			return nil, nil, fmt.Errorf("%s %q: %w", flag, s, err)
		}
		return meta.LongestChunks(edges), edges, nil
	}
	if !strings.ContainsAny(s, "+*") {
		chunks, ok := commaInts(s, 1)
		if !ok {
			return nil, nil, fmt.Errorf("%s %q: %s", flag, s, chunksSyntax)
		}
		return chunks, nil, nil
	}
	for _, dim := range strings.Split(s, ",") {
		e, ok := parseEdgesText(strings.TrimSpace(dim))
		if !ok {
			return nil, nil, fmt.Errorf("%s %q: dimension %q: %s", flag, s, dim, chunksSyntax)
		}
		edges = append(edges, e)
	}
	return meta.LongestChunks(edges), edges, nil
}

// parseEdgesText reads one dimension's edges: "LENGTH" (the shorthand) or
// edges joined by +, each LENGTH or LENGTH*COUNT.
func parseEdgesText(s string) (meta.Edges, bool) {
	if n, err := strconv.Atoi(s); err == nil {
		return meta.Edges{Uniform: n}, n > 0
	}
	var runs []meta.EdgeRun
	for _, part := range strings.Split(s, "+") {
		length, count, found := strings.Cut(strings.TrimSpace(part), "*")
		r := meta.EdgeRun{Count: 1}
		var err error
		if r.Length, err = strconv.Atoi(strings.TrimSpace(length)); err != nil || r.Length < 1 {
			return meta.Edges{}, false
		}
		if found {
			if r.Count, err = strconv.Atoi(strings.TrimSpace(count)); err != nil || r.Count < 1 {
				return meta.Edges{}, false
			}
		}
		runs = append(runs, r)
	}
	return meta.Edges{Runs: runs}, true
}
