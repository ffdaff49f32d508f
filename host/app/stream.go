package app

import "github.com/zarrgw/zarrgw/core/array"

// streamOptions bound a streamed read or write to memory bytes of
// elements in flight (0: the default).
func streamOptions(memory int64) array.StreamOptions {
	return array.StreamOptions{MemoryBudget: memory}
}
