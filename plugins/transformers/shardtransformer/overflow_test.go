package shardtransformer

import (
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
)

// chunks_per_shard whose product (or index of 16 bytes per chunk)
// overflows is refused when the transformer is made, as a dataset's
// block declares it: a wrapped count sized the index wrongly.
func TestChunksPerShardOverflow(t *testing.T) {
	for _, cps := range [][]int{{1 << 32, 1 << 32}, {1 << 30, 1 << 30}} {
		if _, err := New(store.NewMemory(), DraftLayout("/"), cps); err == nil || !strings.Contains(err.Error(), "64-bit") {
			t.Errorf("chunks_per_shard %v: %v, want refused", cps, err)
		}
	}
	if _, err := New(store.NewMemory(), DraftLayout("/"), []int{1 << 20, 1 << 20}); err != nil {
		t.Errorf("chunks_per_shard of 2^40: %v (the index fits a 64-bit size)", err)
	}
}
