package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/zarrgw/zarrgw/host/app"
)

// memoryFlag is a --memory value: a size such as "64MiB". def is the
// default shown in the help ("" for 64MiB).
type memoryFlag struct {
	bytes int64
	def   string
}

func (m *memoryFlag) String() string {
	switch {
	case m.bytes != 0:
		return fmt.Sprint(m.bytes)
	case m.def != "":
		return m.def
	}
	return "64MiB"
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
