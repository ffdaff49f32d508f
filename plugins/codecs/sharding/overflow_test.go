package sharding

import (
	"strings"
	"testing"
)

// A shard whose inner chunks are too many for an index of 16 bytes
// each to have a 64-bit size is refused; the count wrapped before.
func TestShardIndexOverflow(t *testing.T) {
	c := &config{ChunkShape: []int{1, 1}}
	for _, shard := range [][]int{{1 << 31, 1 << 31}, {1 << 62, 4}} {
		if _, err := c.checkShard(shard); err == nil || !strings.Contains(err.Error(), "64-bit") {
			t.Errorf("shard %v of inner chunks [1 1]: %v, want refused", shard, err)
		}
	}
	if cps, err := c.checkShard([]int{1 << 20, 1 << 20}); err != nil || cps[0] != 1<<20 {
		t.Errorf("shard of 2^40 inner chunks: %v %v (its index fits)", cps, err)
	}
}
