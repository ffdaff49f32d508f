package app

import "github.com/zarrgw/zarrgw/core/array"

// streamOptions bound a streamed read or write to memory bytes of
// elements in flight (0: the default).
func streamOptions(memory int64) array.StreamOptions {
	return array.StreamOptions{MemoryBudget: memory}
}

// DefaultReadMemory is the memory budget of a streamed read (cat) when
// the command line does not say (array.DefaultReadMemoryBudget).
const DefaultReadMemory = array.DefaultReadMemoryBudget
