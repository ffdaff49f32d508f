// Command zarrgw is the Zarr engine and gateway's command line.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/zarrgw/zarrgw/host/registry"
)

func main() {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(os.Stderr, "zarrgw: internal error: %v\n", r)
			os.Exit(3)
		}
	}()
	// An interrupt cancels the command's context, so deferred closes run
	// and plugin processes end with it.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := newRoot(registry.Bundled())
	root.SetArgs(goStyleFlags(root, os.Args[1:]))
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "zarrgw: %v\n", err)
		os.Exit(1)
	}
}
