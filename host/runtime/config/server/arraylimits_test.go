package server_test

import (
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/meta"
)

// The server block's bounds on array metadata: unset they are zero
// (meta's defaults), set they are read, out of range they are errors
// naming the attribute.
func TestArrayLimits(t *testing.T) {
	if l := mustParse(t, serverWith("")).ArrayLimits; l != (meta.Limits{}) {
		t.Errorf("unset: %+v, want zero (the defaults)", l)
	}
	got := mustParse(t, serverWith(`max_array_rank = 8
  max_chunk_bytes = "256MiB"
  max_shard_chunks = 65536
  max_chunk_edges = 1000`)).ArrayLimits
	if want := (meta.Limits{MaxRank: 8, MaxChunkBytes: 256 << 20, MaxShardChunks: 65536, MaxChunkEdges: 1000}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	for src, want := range map[string]string{
		`max_array_rank = 0`:      "max_array_rank must be a whole number from 1 to 1024",
		`max_array_rank = 1.5`:    "max_array_rank must be a whole number",
		`max_chunk_bytes = 0`:     "max_chunk_bytes must be a positive number of bytes",
		`max_chunk_bytes = "1KB"`: "",
		`max_shard_chunks = -1`:   "max_shard_chunks must be a whole number from 1",
		`max_chunk_edges = 0`:     "max_chunk_edges must be a whole number from 1",
	} {
		_, p, diags := parse(t, serverWith(src))
		if msg := render(p, diags); want == "" && diags.HasErrors() || want != "" && !strings.Contains(msg, want) {
			t.Errorf("%s: %q, want %q", src, msg, want)
		}
	}
}
