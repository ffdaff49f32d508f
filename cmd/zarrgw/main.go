// Command zarrgw is the Zarr engine and gateway's command line.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/zarrgw/zarrgw/host/app"
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
	root := newRoot(app.Bundled())
	root.SetArgs(goStyleFlags(root, os.Args[1:]))
	if err := root.ExecuteContext(ctx); err != nil {
		var quiet exitCode
		if !errors.As(err, &quiet) {
			fmt.Fprintf(os.Stderr, "zarrgw: %v\n", err)
		}
		os.Exit(quiet.code())
	}
}

// exitCode is the error of a command that has said what went wrong in its
// output already (a JSON document with the diagnostics, cp's line on an
// interruption): zarrgw exits with its status (1 when it gives none)
// without a line of its own.
type exitCode struct{ status int }

func (exitCode) Error() string { return "failed (see the output)" }

func (e exitCode) code() int {
	if e.status == 0 {
		return 1
	}
	return e.status
}
