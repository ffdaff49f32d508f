package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/zarrgw/zarrgw/host/app"
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
	n, err := app.ParseSize(s)
	if err != nil {
		return err
	}
	m.bytes = n
	return nil
}

func (m *memoryFlag) Type() string { return "size" }

// addMemoryFlag adds --memory, the budget of a streaming read or write.
func addMemoryFlag(cmd *cobra.Command, m *memoryFlag) {
	cmd.Flags().Var(m, "memory", "memory for the elements in flight (streamed slab by slab), e.g. 256MiB")
}
