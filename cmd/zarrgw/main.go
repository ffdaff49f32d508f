// Command zarrgw is the Zarr engine and gateway's command line.
package main

import (
	"fmt"
	"os"
)

func main() {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(os.Stderr, "zarrgw: internal error: %v\n", r)
			os.Exit(3)
		}
	}()
	if err := newRoot().Execute(); err != nil {
		fmt.Fprintf(os.Stderr, "zarrgw: %v\n", err)
		os.Exit(1)
	}
}
