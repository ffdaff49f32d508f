package main

import (
	"fmt"
	"github.com/zarrgw/zarrgw/core/size"

	"github.com/spf13/cobra"

	"github.com/zarrgw/zarrgw/core/array"
)

// memoryFlag is a --memory value: a size such as "64MiB".
type memoryFlag struct{ bytes int64 }

func (m *memoryFlag) String() string {
	if m.bytes == 0 {
		return "64MiB"
	}
	return fmt.Sprint(m.bytes)
}

func (m *memoryFlag) Set(s string) error {
	n, err := size.Parse(s)
	if err != nil {
		return err
	}
	m.bytes = n
	return nil
}

func (m *memoryFlag) Type() string { return "size" }

func (m *memoryFlag) options() array.StreamOptions {
	return array.StreamOptions{MemoryBudget: m.bytes}
}

// addMemoryFlag adds --memory, the budget of a streaming read or write.
func addMemoryFlag(cmd *cobra.Command, m *memoryFlag) {
	cmd.Flags().Var(m, "memory", "memory for the elements in flight (streamed slab by slab), e.g. 256MiB")
}
