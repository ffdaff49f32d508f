// Command coldread times Array.Read of a whole array into memory in a
// fresh process, the way a library user meets it: every page of the
// output is touched for the first time.
//
//	go run ./bench/stream/coldread DIR
//
// prints the seconds the read took (not the process start or the open).
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/plugins/stores/fsstore"
)

func main() {
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "coldread:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	ctx := context.Background()
	s, err := fsstore.New(dir)
	if err != nil {
		return err
	}
	a, err := hierarchy.OpenArray(ctx, s, "", array.Options{Codecs: registry.Codecs()})
	if err != nil {
		return err
	}
	start := time.Now()
	data, err := a.ReadAll(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("%.4f\n", time.Since(start).Seconds())
	if len(data.Data) == 0 {
		return fmt.Errorf("read nothing")
	}
	return nil
}
